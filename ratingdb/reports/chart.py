"""The rating-history chart: one line per rating type over list dates, published K changes marked.

SVG is drawn here as an element tree (small and fast enough for a page per player of a published site);
PNG with matplotlib, imported only when a PNG is asked for. Reads the history lines of
ratingdb.reports.lists; no database access and no CLI imports.
"""

from __future__ import annotations

import datetime as dt
import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, Final

from ratingdb.errors import ConfigError
from ratingdb.reports.lists import HistoryLine

CHART_FORMATS: Final = (".png", ".svg")
WIDTH_INCHES: Final = 9.0
HEIGHT_INCHES: Final = 4.5
DPI: Final = 100  # a PNG is 900 × 450 pixels; an SVG 648 × 324 pt
MAX_LABELLED_DATES: Final = 12
COLOURS: Final = {"standard": "#1f4e79", "rapid": "#c55a11", "blitz": "#548235"}


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
    types = [t for t in COLOURS if any(h.rating_type == t and h.rating is not None for h in history)]
    for rating_type in types:
        lines = sorted((h for h in history if h.rating_type == rating_type), key=lambda h: h.list_date)
        ratings = [math.nan if h.rating is None else float(h.rating) for h in lines]
        ax.plot(
            date2num([h.list_date for h in lines]),
            ratings,
            marker="o",
            markersize=3,
            linewidth=1.6,
            color=COLOURS[rating_type],
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
    if top == bottom or top - high < step / 4:
        top += step  # room for the highest point's marker
    if room_above:
        top += step  # room for the K labels
    return bottom, top, step


def _x_labels(dates: Sequence[dt.date]) -> list[tuple[dt.date, str, str]]:
    """Tick labels: the month, and the year under the first label of each year."""
    every = max(1, math.ceil(len(dates) / MAX_LABELLED_DATES))
    labels, last_year = [], None
    for date in dates[::every]:
        labels.append((date, date.strftime("%b"), str(date.year) if date.year != last_year else ""))
        last_year = date.year
    return labels


def history_svg(history: Sequence[HistoryLine], title: str) -> str:
    """The chart as an SVG element (text): lines per rating type, K changes marked, for pages and files."""
    rated = [h for h in history if h.rating is not None]
    if not rated:
        raise ConfigError("the player has no rating on any list: there is nothing to plot")
    dates = sorted({h.list_date for h in history})
    first, last = dates[0].toordinal(), dates[-1].toordinal()
    if first == last:
        first, last = first - 15, last + 15
    marked = [(line, before) for line, before in k_changes(history) if line.rating is not None]
    bottom, top, step = _y_scale([h.rating for h in rated if h.rating is not None], bool(marked))

    def x(date: dt.date) -> float:
        return PLOT_LEFT + (date.toordinal() - first) / (last - first) * (PLOT_RIGHT - PLOT_LEFT)

    def y(rating: float) -> float:
        return PLOT_BOTTOM - (rating - bottom) / (top - bottom) * (PLOT_BOTTOM - PLOT_TOP)

    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": f"{SVG_WIDTH}pt",
            "height": f"{SVG_HEIGHT}pt",
            "viewBox": f"0 0 {SVG_WIDTH} {SVG_HEIGHT}",
            "role": "img",
            "class": "history-chart",
            "font-family": "sans-serif",
            "font-size": "11",
        },
    )
    ET.SubElement(svg, "title").text = title
    ET.SubElement(svg, "rect", {"width": "100%", "height": "100%", "fill": "white"})
    heading = {"x": _n(SVG_WIDTH / 2), "y": "20", "text-anchor": "middle", "font-size": "14"}
    ET.SubElement(svg, "text", heading).text = title
    grid = ET.SubElement(svg, "g", {"class": "grid", "stroke": "#dddddd"})
    labels = ET.SubElement(svg, "g", {"class": "y-labels", "text-anchor": "end"})
    for rating in range(bottom, top + 1, step):
        at = _n(y(rating))
        ET.SubElement(grid, "line", {"x1": str(PLOT_LEFT), "x2": str(PLOT_RIGHT), "y1": at, "y2": at})
        ET.SubElement(labels, "text", {"x": str(PLOT_LEFT - 6), "y": _n(y(rating) + 4)}).text = str(rating)
    ticks = ET.SubElement(svg, "g", {"class": "x-labels", "text-anchor": "middle"})
    for date, month, year in _x_labels(dates):
        at = _n(x(date))
        ET.SubElement(grid, "line", {"x1": at, "x2": at, "y1": str(PLOT_TOP), "y2": str(PLOT_BOTTOM)})
        ET.SubElement(ticks, "text", {"x": at, "y": str(PLOT_BOTTOM + 15)}).text = month
        if year:
            ET.SubElement(ticks, "text", {"x": at, "y": str(PLOT_BOTTOM + 28)}).text = year
    frame = {"x": str(PLOT_LEFT), "y": str(PLOT_TOP), "width": str(PLOT_RIGHT - PLOT_LEFT)}
    frame |= {"height": str(PLOT_BOTTOM - PLOT_TOP), "fill": "none", "stroke": "#999999"}
    ET.SubElement(svg, "rect", frame)
    axis = {"x": _n(SVG_WIDTH / 2), "y": str(SVG_HEIGHT - 8), "text-anchor": "middle"}
    ET.SubElement(svg, "text", axis).text = "list date"
    turned = {"transform": f"translate(14 {_n((PLOT_TOP + PLOT_BOTTOM) / 2)}) rotate(-90)"}
    ET.SubElement(svg, "text", turned | {"text-anchor": "middle"}).text = "rating"

    types = [t for t in COLOURS if any(h.rating_type == t for h in rated)]
    for rating_type in types:
        colour = COLOURS[rating_type]
        series = ET.SubElement(svg, "g", {"class": f"series {rating_type}", "stroke": colour, "fill": colour})
        runs: list[list[HistoryLine]] = [[]]
        for h in sorted((h for h in history if h.rating_type == rating_type), key=lambda h: h.list_date):
            if h.rating is None:
                runs.append([])  # an unrated list leaves a gap in the line
            else:
                runs[-1].append(h)
        for run in runs:
            if len(run) > 1:
                points = " ".join(f"{_n(x(h.list_date))},{_n(y(h.rating or 0))}" for h in run)
                ET.SubElement(series, "polyline", {"points": points, "fill": "none", "stroke-width": "1.6"})
            for h in run:
                dot = {"cx": _n(x(h.list_date)), "cy": _n(y(h.rating or 0)), "r": "3"}
                point = ET.SubElement(series, "circle", dot)
                ET.SubElement(point, "title").text = f"{rating_type} {h.list_date.isoformat()}: {h.rating}"
    marks = ET.SubElement(svg, "g", {"class": "k-changes", "fill": K_MARK, "text-anchor": "middle"})
    for line, before in marked:
        cx, cy = x(line.list_date), y(line.rating or 0)
        diamond = f"{_n(cx)},{_n(cy - 6)} {_n(cx + 6)},{_n(cy)} {_n(cx)},{_n(cy + 6)} {_n(cx - 6)},{_n(cy)}"
        ET.SubElement(marks, "polygon", {"points": diamond})
        ET.SubElement(
            marks, "text", {"x": _n(cx), "y": _n(cy - 10), "font-size": "10"}
        ).text = f"K {before}→{line.k}"
    legend = ET.SubElement(svg, "g", {"class": "legend"})
    entries: list[tuple[str, str, bool]] = [(t, COLOURS[t], False) for t in types]
    if marked:
        entries.append(("K changed", K_MARK, True))
    for row, (label, colour, diamond_mark) in enumerate(entries):
        ly = PLOT_TOP + 14 + 15 * row
        lx = PLOT_RIGHT - 96
        if diamond_mark:
            shape = f"{lx + 10},{ly - 9} {lx + 15},{ly - 4} {lx + 10},{ly + 1} {lx + 5},{ly - 4}"
            ET.SubElement(legend, "polygon", {"points": shape, "fill": colour})
        else:
            ET.SubElement(
                legend,
                "line",
                {"x1": str(lx), "x2": str(lx + 20), "y1": str(ly - 4), "y2": str(ly - 4), "stroke": colour},
            )
        ET.SubElement(legend, "text", {"x": str(lx + 26), "y": str(ly)}).text = label
    return ET.tostring(svg, encoding="unicode")
