"""The in-memory baseline of bench/close_command.py: a period rated with the rules library alone.

    python bench/in_memory_close.py DIR PERIOD LIST_DATE

Reads DIR/entries.csv (the list in force with each player's facts) and DIR/games.csv (the period's played
games), both written by bench/close_command.py, rates every rated player who played with
`ratingdb.rating.batch` (K, the capped differences, the change, the floor; the activity flag of those who
did not play) and writes DIR/new-list.csv. What the in-memory engines do: no database, no calculation
record, no unrated pool. A script of its own so that its process imports the rules library and the
standard library only, as an in-memory engine would: the time close_command.py takes of it is start-up
included.
"""

from __future__ import annotations

import csv
import datetime as dt
import sys
from collections import defaultdict
from pathlib import Path

from ratingdb.rating import Period
from ratingdb.rating.batch import BatchRater, FlagCache, KCache
from ratingdb.rating.catalogue import rule_set_for
from ratingdb.rating.flags import below_floor


def baseline(folder: Path, period_text: str, list_date: str) -> None:
    """Read the CSV inputs, rate the period with the rules library alone, write the new list as CSV."""
    period = Period.parse(period_text)
    rules = rule_set_for("standard", period)
    rater = BatchRater(rules)
    k_of = KCache(dt.date.fromisoformat(list_date), rules)  # K on the list in force, as the close
    flag_of = FlagCache(period)
    entries: dict[int, list[str]] = {}
    with open(folder / "entries.csv", newline="") as source:
        for row in csv.reader(source):
            entries[int(row[0])] = row
    rating = {pid: int(row[1]) for pid, row in entries.items() if row[1]}
    score = {"1": 100, "=": 50, "0": 0}
    sides: dict[int, list[tuple[int, int, int, int, int, int]]] = defaultdict(list)
    with open(folder / "games.csv", newline="") as source:
        for game, event, white, black, white_result, black_result in csv.reader(source):
            w, b = int(white), int(black)
            if w in rating and b in rating and white_result in score and black_result in score:
                sides[w].append((int(game), int(event), b, rating[w], rating[b], score[white_result]))
                sides[b].append((int(game), int(event), w, rating[b], rating[w], score[black_result]))
    truthy = {"1", "True", "true", "t"}
    with open(folder / "new-list.csv", "w", newline="") as out:
        writer = csv.writer(out)
        for pid, (_p, own, stored_k, total, r2400, r2300, last_active, birth, sex) in entries.items():
            played = sides.get(pid)
            if own and played:
                k = (
                    int(stored_k)
                    if stored_k
                    else k_of(r2400 in truthy, r2300 in truthy, int(birth) if birth else None, int(total))
                )
                change = rater.rate(int(own), k, played)
                new_rating: int | None = change.new_rating
                if below_floor(change.new_rating, rules.floor):  # §7.2.1
                    new_rating = rules.floor if rules.below_floor == "floor" else None
                writer.writerow((pid, new_rating, change.change, len(played), k, ""))
            else:
                flag = flag_of(last_active or None, sex == "F")
                writer.writerow((pid, own, "", 0, "", flag or ""))


if __name__ == "__main__":
    baseline(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
