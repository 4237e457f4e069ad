"""The rating-history chart: one line per rating type over list dates (every type the player has a rating
on, so the scale spans only what is drawn), published K changes marked.

SVG from the Jinja2 template history_chart.svg beside this module (small and fast enough for a page per
player of a published site), PNG with matplotlib; each imported only when a chart of its kind is drawn.
Reads the history lines of ratingdb.reports.lists; no database access and no CLI imports.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final

from ratingdb.errors import ConfigError
from ratingdb.i18n import ENGLISH, Language
from ratingdb.reports.lists import HistoryLine

if TYPE_CHECKING:
    from jinja2 import Template

CHART_FORMATS: Final = (".png", ".svg")
WIDTH_INCHES: Final = 9.0
HEIGHT_INCHES: Final = 4.5
DPI: Final = 100  # a PNG is 900 × 450 pixels; an SVG 648 × 324 pt
MAX_LABELLED_DATES: Final = 12
COLOURS: Final = {"standard": "#1f4e79", "rapid": "#c55a11", "blitz": "#548235"}
# The other types a player's page tables (a federation's national or club lists), in the order of their
# names: each is drawn too, so the chart shows every list whose ratings it is scaled to.
MORE_COLOURS: Final = ("#7030a0", "#bf9000", "#2e75b6", "#a02b93", "#4d4d4d", "#00827f")


def chart_types(history: Sequence[HistoryLine]) -> list[tuple[str, str]]:
    """The types of `history` with a rating, each with its colour: FIDE's three first, then the others."""
    rated = {h.rating_type for h in history if h.rating is not None}
    others = sorted(rated - COLOURS.keys())
    return [(t, c) for t, c in COLOURS.items() if t in rated] + [
        (t, MORE_COLOURS[i % len(MORE_COLOURS)]) for i, t in enumerate(others)
    ]


def k_changes(history: Sequence[HistoryLine]) -> list[tuple[HistoryLine, int]]:
    """Entries whose published K differs from the previous published K of the same type (with that K)."""
    changes: list[tuple[HistoryLine, int]] = []
    previous: dict[str, int] = {}
    for line in sorted(history, key=lambda h: (h.rating_type, h.list_date)):
        if line.k is None:
            continue
        before = previous.get(line.rating_type)
        if before is not None and before != line.k:
            changes.append((line, before))
        previous[line.rating_type] = line.k
    return changes


def write_history_chart(
    history: Sequence[HistoryLine], path: Path, title: str, *, file: BinaryIO | None = None
) -> None:
    """Plot the ratings of `history` to `path` (.png or .svg), or to `file` in that format.

    Unrated lists leave a gap in the line.
    """
    suffix = path.suffix.lower()
    if suffix not in CHART_FORMATS:
        raise ConfigError(f"{path}: a chart is written as .png or .svg")
    if not any(h.rating is not None for h in history):
        raise ConfigError("the player has no rating on any list: there is nothing to plot")
    if suffix == ".svg":
        svg = ('<?xml version="1.0" encoding="UTF-8"?>\n' + history_svg(history, title) + "\n").encode(
            "utf-8"
        )
        if file is None:
            path.write_bytes(svg)
        else:
            file.write(svg)
        return
    # The object-oriented API with no pyplot: no global figure state and no GUI backend, so it works
    # headless and the same in tests and on servers.
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    for rating_type, colour in chart_types(history):
        lines = sorted((h for h in history if h.rating_type == rating_type), key=lambda h: h.list_date)
        ratings = [math.nan if h.rating is None else float(h.rating) for h in lines]
        ax.plot(
            date2num([h.list_date for h in lines]),
            ratings,
            marker="o",
            markersize=3,
            linewidth=1.6,
            color=colour,
            zorder=3 if rating_type in COLOURS else 2,  # FIDE's on top, as in the SVG
            label=rating_type,
        )
    marked = [(line, before) for line, before in k_changes(history) if line.rating is not None]
    for line, before in marked:
        x, y = float(date2num(line.list_date)), float(line.rating or 0)
        ax.plot([x], [y], marker="D", markersize=8, color="#c00000", linestyle="none")
        ax.annotate(
            f"K {before}→{line.k}",
            (x, y),
            textcoords="offset points",
            xytext=(0, 10),
            ha="center",
            fontsize=8,
            color="#c00000",
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )
    if marked:
        ax.plot([], [], marker="D", color="#c00000", linestyle="none", label="K changed")
    dates = sorted({h.list_date for h in history})
    if len(dates) <= MAX_LABELLED_DATES:
        # Few lists: a tick on each list date, so the axis reads as the lists themselves.
        ax.set_xticks(date2num(dates), [d.strftime("%b %Y") for d in dates])
    else:
        locator = AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("list date")
    ax.set_ylabel("rating")
    ax.set_title(title, parse_math=False)  # a name is text, never $mathtext$
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best")
    fig.savefig(path if file is None else file, format="png", metadata={"Software": "ratingdb"})


# --- SVG ----------------------------------------------------------------------------------------------

SVG_WIDTH: Final = 648  # points: the same 9 × 4.5 inches as the PNG
SVG_HEIGHT: Final = 324
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 58, 636, 34, 270
Y_STEPS: Final = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
K_MARK: Final = "#c00000"


def _n(value: float) -> str:
    """A coordinate with at most one decimal: compact and the same on every run."""
    return f"{value:.1f}".removesuffix(".0")


def _y_scale(ratings: Sequence[int], room_above: bool) -> tuple[int, int, int]:
    """Axis bounds and a round tick step giving at most six ticks."""
    low, high = min(ratings), max(ratings)
    step = next((s for s in Y_STEPS if (high - low) / s <= 4), Y_STEPS[-1])
    bottom, top = (low // step) * step, -(-high // step) * step
    if low - bottom < step / 4:
        bottom -= step  # room for the lowest point's marker
    if top == bottom or top - high < step / 4:
        top += step  # room for the highest point's marker
    if room_above:
        top += step  # room for the K labels
    return bottom, top, step


def _x_labels(dates: Sequence[dt.date], lang: Language) -> list[tuple[dt.date, str, str]]:
    """Tick labels: the month, and the year under the first label of each year."""
    every = max(1, math.ceil(len(dates) / MAX_LABELLED_DATES))
    labels, last_year = [], None
    for date in dates[::every]:
        labels.append(
            (
                date,
                lang.month(date),
                str(date.year) if date.year != last_year else "",
            )
        )
        last_year = date.year
    return labels


CHART_TEMPLATE: Final = "history_chart.svg"  # beside this module: the SVG's markup


@functools.cache
def _svg_template() -> Template:
    from ratingdb.templating import Templates

    source = resources.files("ratingdb.reports").joinpath(CHART_TEMPLATE).read_text("utf-8")
    return Templates(autoescape=True, trim_blocks=True).from_string(source)


def history_svg(history: Sequence[HistoryLine], title: str, lang: Language = ENGLISH) -> str:
    """The chart as an SVG element (text): lines per rating type, K changes marked, for pages and files;
    its labels in `lang` (a page's language; English for `report history --chart`)."""
    rated = [h for h in history if h.rating is not None]
    if not rated:
        raise ConfigError("the player has no rating on any list: there is nothing to plot")
    dates = sorted({h.list_date for h in history})
    first, last = dates[0].toordinal(), dates[-1].toordinal()
    if first == last:
        first, last = first - 15, last + 15
    marked = [(line, before) for line, before in k_changes(history) if line.rating is not None]
    bottom, top, step = _y_scale([h.rating for h in rated if h.rating is not None], bool(marked))
    x_scale = (PLOT_RIGHT - PLOT_LEFT) / (last - first)
    y_scale = (PLOT_BOTTOM - PLOT_TOP) / (top - bottom)

    def x(date: dt.date) -> float:
        return PLOT_LEFT + (date.toordinal() - first) * x_scale

    def y(rating: float) -> float:
        return PLOT_BOTTOM - (rating - bottom) * y_scale

    english = lang == ENGLISH  # compared once: a dataclass's equality is not free (a tenth of the chart)
    dates_shown = {d: d.isoformat() if english else lang.date(d) for d in dates}
    xs = {d: _n(x(d)) for d in dates}  # each date's coordinate written once for every line through it
    series = []
    types = chart_types(rated)
    for rating_type, colour in types:
        runs: list[list[HistoryLine]] = [[]]
        for h in sorted((h for h in history if h.rating_type == rating_type), key=lambda h: h.list_date):
            if h.rating is None:
                runs.append([])  # an unrated list leaves a gap in the line
            else:
                runs[-1].append(h)
        # Each point's coordinates written once, for its line and its dot.
        points = [[(xs[h.list_date], _n(y(h.rating or 0)), h) for h in run] for run in runs]
        lines = [" ".join(f"{px},{py}" for px, py, _ in run) for run in points if len(run) > 1]
        word = lang.type_word(rating_type)
        dots = [
            (px, py, f"{word} {dates_shown[h.list_date]}: {h.rating}") for run in points for px, py, h in run
        ]
        series.append((rating_type, colour, lines, dots))
    marks = []
    for line, before in marked:
        cx, cy = x(line.list_date), y(line.rating or 0)
        diamond = f"{_n(cx)},{_n(cy - 6)} {_n(cx + 6)},{_n(cy)} {_n(cx)},{_n(cy + 6)} {_n(cx - 6)},{_n(cy)}"
        marks.append((diamond, _n(cx), _n(cy - 10), f"K {before}→{line.k}"))
    legend = [(lang.type_word(t), colour, False) for t, colour in types]
    legend += [(lang.gettext("K changed"), K_MARK, True)] if marked else []
    return _svg_template().render(
        title=title,
        width=SVG_WIDTH,
        height=SVG_HEIGHT,
        left=PLOT_LEFT,
        right=PLOT_RIGHT,
        top=PLOT_TOP,
        bottom=PLOT_BOTTOM,
        y_ticks=[(_n(y(r)), r) for r in range(bottom, top + 1, step)],
        x_ticks=[(_n(x(date)), month, year) for date, month, year in _x_labels(dates, lang)],
        x_label=lang.gettext("list date"),
        y_label=lang.gettext("rating"),
        # FIDE's lines drawn last, on top: a national list that follows the standard one would hide it.
        series=sorted(series, key=lambda one: one[0] in COLOURS),
        marks=marks,
        mark=K_MARK,
        legend=[
            (label, colour, is_mark, PLOT_RIGHT - 96, PLOT_TOP + 14 + 15 * row)
            for row, (label, colour, is_mark) in enumerate(legend)
        ],
    )
