"""How well expected scores forecast results: log-loss and Brier score; imports only the stdlib.

A rating system gives each game an expected score p for one side before the period; the result is
s = 1, 0.5 or 0. Two proper scoring rules measure the forecast (lower is better):
  log-loss  −[s ln p + (1 − s) ln(1 − p)]   (a draw scores both halves; 0.6931 = ln 2 for p = 0.5)
  Brier     (p − s)²                       (0.25 for p = 0.5 against a decisive game)
Both are the same from either side of a game (p ↔ 1 − p, s ↔ 1 − s). p is kept within [10⁻¹², 1 − 10⁻¹²]
so that a certain forecast proven wrong scores a large, finite loss. Pure: no database, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

EDGE: Final = 1e-12


def log_loss(p: float, s: float) -> float:
    """−[s ln p + (1 − s) ln(1 − p)] for an expected score p and a result s."""
    p = min(max(p, EDGE), 1.0 - EDGE)
    return -(s * math.log(p) + (1.0 - s) * math.log(1.0 - p))


def brier(p: float, s: float) -> float:
    """(p − s)² for an expected score p and a result s."""
    return (p - s) * (p - s)


@dataclass
class Forecasts:
    """The forecasts of one system (on one band of games): the sums, kept exactly with fsum at the end."""

    log_losses: list[float] = field(default_factory=list)
    briers: list[float] = field(default_factory=list)

    def add(self, p: float, s: float) -> None:
        self.log_losses.append(log_loss(p, s))
        self.briers.append(brier(p, s))

    @property
    def games(self) -> int:
        return len(self.briers)

    @property
    def mean_log_loss(self) -> float | None:
        return math.fsum(self.log_losses) / self.games if self.games else None

    @property
    def mean_brier(self) -> float | None:
        return math.fsum(self.briers) / self.games if self.games else None


def band(rating: float, width: int = 200) -> str:
    """The rating band of a game by its players' mean rating: 1800–1999 for 1850 (width 200)."""
    low = int(rating // width) * width
    return f"{low}–{low + width - 1}"
