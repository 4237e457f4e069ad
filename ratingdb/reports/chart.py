"""The rating-history chart: one line per rating type over list dates, published K changes marked.

Imports matplotlib (only here, so other commands do not pay for it) and the history lines of
ratingdb.reports.lists; no database access and no CLI imports.
"""

from __future__ import annotations

import math
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
    metadata = {"Date": None} if suffix == ".svg" else {"Software": "ratingdb"}
    fig.savefig(path if file is None else file, format=suffix[1:], metadata=metadata)
