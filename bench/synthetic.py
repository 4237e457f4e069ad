"""Synthetic federations for the benchmarks, written with bulk SQL; imports ratingdb only for the schema.

A federation is players, the list in force (2025-10-01) and the previous list (2025-09-01), and the
events of period 2025-10 with their games: Swiss events of players of similar strength and open events
of any strength, 2650+ players, juniors, women, unrated newcomers, forfeits and byes, events that
started in September (they use the September list) and a few late events (§9.1). Everything is drawn
from a seeded generator, so a scale gives the same database on every run and engine.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, text

from ratingdb.engines.mysql import MYSQL_STATEMENT_BYTES
from ratingdb.names import name_key, sound, tokens
from ratingdb.rating import Period, activity_flag
from ratingdb.services.rows import LIST_ENTRY_COLUMNS, ListEntryRow

PERIOD = "2025-10"
LIST_DATE = "2025-10-01"
PREVIOUS_LIST_DATE = "2025-09-01"
IN_FORCE_LIST_ID = 2
PREVIOUS_LIST_ID = 1
FEDERATIONS = ("IRL", "ENG", "FRA", "GER", "ESP", "ITA", "NED", "BEL", "POL", "IND", "USA", "RUS", "CHN")


@dataclass(frozen=True)
class Scale:
    """Players and games of one benchmark size."""

    name: str
    rated: int  # players with a rating on the list in force
    unrated: int  # players without one: some on the list (dropped or pooling), the rest new
    games: int  # games played over the board in the period (forfeits and byes come on top)


SCALES = {
    "national": Scale("national", 18_000, 2_000, 10_000),
    "large": Scale("large", 180_000, 20_000, 200_000),
    "fide": Scale("fide", 1_000_000, 50_000, 1_000_000),
}


@dataclass
class Federation:
    """Counts of what was generated (the figures a report prints)."""

    players: int = 0
    rated_players: int = 0
    list_entries: int = 0
    events: int = 0
    games: int = 0  # game rows of the period, forfeits and byes included
    played_games: int = 0


def write_rows(
    connection: Any, dialect: str, table: str, columns: Sequence[str], rows: Iterable[tuple]
) -> int:
    """Bulk-write plain tuples through the driver: executemany on SQLite and MySQL (where PyMySQL sends
    multi-row INSERTs, as ratingdb.services.bulk does), COPY on PostgreSQL."""
    count = 0
    cursor = connection.cursor()
    names = ", ".join(f'"{c}"' for c in columns)  # quoted: `change` is reserved in MySQL
    if dialect in ("sqlite", "mysql"):
        mark = "?" if dialect == "sqlite" else "%s"
        sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join([mark] * len(columns))})"
        if dialect == "mysql":
            cursor.max_stmt_length = MYSQL_STATEMENT_BYTES
        batch: list[tuple] = []
        for row in rows:
            batch.append(row)
            if len(batch) == 100_000:
                cursor.executemany(sql, batch)
                count += len(batch)
                batch = []
        cursor.executemany(sql, batch)
        count += len(batch)
    else:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                count += 1
    cursor.close()
    return count


PLAYER_COLUMNS = (
    "id", "fide_id", "name", "federation", "sex", "title", "birth_year", "name_key", "current_version_id"
)  # fmt: skip
# Version 1 of each player's details has the player's id (as the migration's backfill does).
VERSION_COLUMNS = (
    "id", "player_id", "version", "fide_id", "name", "federation", "sex", "title", "birth_year", "deceased",
    "created_by", "is_current",
)  # fmt: skip
ENTRY_COLUMNS = LIST_ENTRY_COLUMNS
EVENT_COLUMNS = (
    "id",
    "name",
    "city",
    "federation",
    "start_date",
    "end_date",
    "rating_type",
    "official",
    "time_control",
    "rounds",
    "period",
    "natural_period",
    "source_name",
    "source_hash",
)
GAME_COLUMNS = (
    "id",
    "event_id",
    "round",
    "date",
    "white_id",
    "black_id",
    "white_result",
    "black_result",
    "rated",
    "colour_known",
)


def build(engine: Engine, scale: Scale, seed: int = 20251001) -> Federation:
    """Write a synthetic federation of `scale` into a migrated, empty database."""
    rng = random.Random(seed)
    fed = Federation()
    dialect = engine.dialect.name
    n_players = scale.rated + scale.unrated
    ids = list(range(1, n_players + 1))
    rng.shuffle(ids)
    rated_ids, unrated_ids = ids[: scale.rated], ids[scale.rated :]
    on_list_unrated = unrated_ids[: len(unrated_ids) * 2 // 5]  # dropped below the floor or pooling
    newcomers = unrated_ids[len(on_list_unrated) :]

    rating: dict[int, int] = {}
    elite = max(3, scale.rated // 5000)
    for i, pid in enumerate(rated_ids):
        if i < elite:
            rating[pid] = rng.randint(2650, 2850)
        else:
            rating[pid] = min(2849, max(1400, int(rng.gauss(1650, 280))))
    birth_year = {
        pid: (rng.randint(2007, 2017) if rng.random() < 0.18 else rng.randint(1940, 2006)) for pid in ids
    }
    female = {pid for pid in ids if rng.random() < 0.12}

    with engine.begin() as conn:
        raw = conn.connection.driver_connection
        if dialect == "sqlite":
            raw.execute("PRAGMA cache_size = -1048576")  # 1 GiB: index pages of a million-row list
        players = [
            (
                pid,
                100_000_000 + pid,
                f"Player, {pid:07d}",
                FEDERATIONS[pid % len(FEDERATIONS)],
                "F" if pid in female else "M",
                ("GM" if rating.get(pid, 0) >= 2500 else "IM" if rating.get(pid, 0) >= 2400 else None),
                birth_year[pid],
                name_key(f"Player, {pid:07d}"),
                pid,
            )
            for pid in range(1, n_players + 1)
        ]
        fed.players = register(raw, dialect, players)
        del players
        write_rows(
            raw,
            dialect,
            "rating_list",
            ("id", "rating_type", "list_date", "origin", "source"),
            [
                (PREVIOUS_LIST_ID, "standard", PREVIOUS_LIST_DATE, "imported", "bench-2025-09.txt"),
                (IN_FORCE_LIST_ID, "standard", LIST_DATE, "imported", "bench-2025-10.txt"),
            ],
        )
        previous_rating = {
            pid: (r - rng.randint(-15, 15) if rng.random() < 0.4 else r) for pid, r in rating.items()
        }
        for list_id, ratings in ((PREVIOUS_LIST_ID, previous_rating), (IN_FORCE_LIST_ID, rating)):
            fed.list_entries += write_rows(
                raw,
                dialect,
                "list_entry",
                ENTRY_COLUMNS,
                _entries(
                    random.Random(seed + list_id), list_id, ratings, on_list_unrated, birth_year, female
                ),
            )
        fed.rated_players = len(rating)
        events, games = _events_and_games(rng, scale, rating, newcomers + on_list_unrated)
        fed.events = write_rows(raw, dialect, "event", EVENT_COLUMNS, events)
        fed.games = write_rows(raw, dialect, "game", GAME_COLUMNS, games)
        fed.played_games = sum(1 for g in games if g[8])
        move_sequences(conn, ("player", "player_version", "audit_log", "rating_list", "event", "game"))
    if dialect == "postgresql":
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))
    elif dialect == "mysql":
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE TABLE player, rating_list, list_entry, event, game")
    else:
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
    return fed


def register(raw: Any, dialect: str, players: list[tuple[Any, ...]]) -> int:
    """Write `players` (rows of PLAYER_COLUMNS, version 1 of each with the player's id) as the register
    holds them: the player, its first version, its name tokens, and the audit entry (id 1) they name."""
    count = write_rows(raw, dialect, "player", PLAYER_COLUMNS, players)
    write_rows(raw, dialect, "audit_log", ("id", "action", "detail"), [(1, "bench", "synthetic players")])
    write_rows(
        raw,
        dialect,
        "player_version",
        VERSION_COLUMNS,
        ((p[0], p[0], 1, *p[1:7], False, 1, True) for p in players),
    )
    write_rows(
        raw,
        dialect,
        "player_name_token",
        ("token", "player_id", "sound"),
        ((token, p[0], sound(token)) for p in players for token in sorted(set(tokens(p[2])))),
    )
    return count


def move_sequences(conn: Connection, tables: Iterable[str]) -> None:
    """On PostgreSQL, move each table's id sequence past the ids written explicitly (they do not move it;
    the close and the imports insert through it). Nothing to do on the other engines."""
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        conn.execute(
            text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
        )


@dataclass
class FollowingMonths:
    """The synthetic period's events and games, to be written again for each following month: the same
    pairings and results with new ids, dates and periods moved `month` months on.

    A federation's later months for the benchmarks that close several periods (publish.py, growth.py)."""

    events: list[Any]
    games: list[Any]
    next_event: int
    next_game: int

    @classmethod
    def read(cls, conn: Connection) -> FollowingMonths:
        """The events and games `build` wrote (the template month)."""
        events = conn.execute(text(f"SELECT {', '.join(EVENT_COLUMNS)} FROM event ORDER BY id")).all()
        games = conn.execute(text(f"SELECT {', '.join(GAME_COLUMNS)} FROM game ORDER BY id")).all()
        return cls(list(events), list(games), events[-1].id + 1, games[-1].id + 1)

    def write(self, conn: Connection, month: int) -> None:
        """Write the template month's events and games as those of period PERIOD + `month`."""
        raw = conn.connection.driver_connection
        dialect = conn.dialect.name
        first = Period.parse(PERIOD)
        new_id: dict[int, int] = {}
        copies = []
        for event in self.events:
            new_id[event.id] = self.next_event
            copies.append(
                (
                    self.next_event,
                    event.name,
                    event.city,
                    event.federation,
                    shift_date(event.start_date, month),
                    shift_date(event.end_date, month),
                    event.rating_type,
                    event.official,
                    event.time_control,
                    event.rounds,
                    str(first.shift(month)),
                    str(Period.parse(event.natural_period).shift(month)),
                    f"bench-{self.next_event}.trf",
                    f"{self.next_event:064x}",
                )
            )
            self.next_event += 1
        write_rows(raw, dialect, "event", EVENT_COLUMNS, copies)
        game_rows = []
        for game in self.games:
            game_rows.append(
                (self.next_game, new_id[game.event_id], game.round, shift_date(game.date, month), *game[4:])
            )
            self.next_game += 1
        write_rows(raw, dialect, "game", GAME_COLUMNS, game_rows)
        move_sequences(conn, ("event", "game"))


def shift_date(value: Any, months: int) -> str:
    """The same day `months` later (the 28th at most, so every month has it), as YYYY-MM-DD."""
    day = dt.date.fromisoformat(str(value))
    total = day.year * 12 + day.month - 1 + months
    return dt.date(total // 12, total % 12 + 1, min(day.day, 28)).isoformat()


def _entries(
    rng: random.Random,
    list_id: int,
    rating: dict[int, int],
    unrated: list[int],
    birth_year: dict[int, int],
    female: set[int],
) -> Iterable[tuple]:
    list_year = 2025
    for pid, r in sorted(rating.items()):  # in key order: appends, not random B-tree inserts
        reached_2400 = r >= 2400 or (r >= 2250 and rng.random() < 0.2)
        reached_2300 = reached_2400 or r >= 2300
        games_total = rng.randint(5, 40) if rng.random() < 0.15 else rng.randint(30, 900)
        junior = list_year - birth_year[pid] <= 18
        if reached_2400:
            k = 10
        elif (junior and not reached_2300) or games_total < 30:
            k = 40
        else:
            k = 20
        draw = rng.random()
        last_active = "2025-09" if draw < 0.75 else "2025-02" if draw < 0.9 else "2023-05"
        active = last_active != "2023-05"
        flag = activity_flag(female=pid in female, active=active) or None
        yield ListEntryRow(
            list_id=list_id,
            player_id=pid,
            rating=r,
            games=0,
            k=k,
            flag=flag,
            change=None,
            games_total=games_total,
            reached_2400=reached_2400,
            reached_2300=reached_2300,
            last_active=last_active,
            pool_from="2024-01",
            player_version_id=pid,
        )
    for pid in sorted(unrated):
        yield ListEntryRow(
            list_id=list_id,
            player_id=pid,
            rating=None,
            games=0,
            k=None,
            flag=None,
            change=None,
            games_total=rng.randint(0, 4),
            reached_2400=False,
            reached_2300=False,
            last_active=None,
            pool_from="2025-03",
            player_version_id=pid,
        )


def _result(rng: random.Random, white: int | None, black: int | None) -> tuple[str, str]:
    if rng.random() < 0.3:
        return "=", "="
    d = (white or 1500) - (black or 1500)
    p_white = 1.0 / (1.0 + math.pow(10.0, -d / 400.0))
    return ("1", "0") if rng.random() < p_white else ("0", "1")


def _events_and_games(
    rng: random.Random, scale: Scale, rating: dict[int, int], unrated: list[int]
) -> tuple[list[tuple], list[tuple]]:
    by_strength = sorted(rating, key=rating.__getitem__)
    events: list[tuple] = []
    games: list[tuple] = []
    played = 0
    game_id = 0
    while played < scale.games:
        event_id = len(events) + 1
        size = rng.randint(8, 60)
        rounds = rng.randint(5, 9)
        kind = rng.random()
        if kind < 0.8:  # a section of players of similar strength
            centre = rng.randrange(len(by_strength))
            low = max(0, min(centre - 2 * size, len(by_strength) - 4 * size))
            field = rng.sample(by_strength[low : low + 4 * size], min(size, len(by_strength)))
        else:  # an open: anybody
            field = rng.sample(by_strength, size)
        newcomers = rng.sample(unrated, min(len(unrated), rng.randint(0, max(1, size // 10))))
        field += newcomers
        timing = rng.random()
        if timing < 0.93:  # played in October
            start = rng.randint(1, 26)
            end = min(29, start + rounds // 2)
            start_date, end_date, natural = f"2025-10-{start:02d}", f"2025-10-{end:02d}", PERIOD
        elif timing < 0.98:  # started in September: uses the September list (§3)
            start_date, end_date, natural = f"2025-09-{rng.randint(26, 30):02d}", "2025-10-04", PERIOD
        else:  # reported late (§9.1): ended in period 2025-09, rated now
            start_date, end_date, natural = "2025-09-10", "2025-09-14", "2025-09"
        events.append(
            (
                event_id,
                f"Bench event {event_id}",
                "Benchtown",
                "IRL",
                start_date,
                end_date,
                "standard",
                False,
                "90+30",
                rounds,
                PERIOD,
                natural,
                f"bench-{event_id}.trf",
                f"{event_id:064x}",
            )
        )
        for rnd in range(1, rounds + 1):
            rng.shuffle(field)
            for board in range(0, len(field) - 1, 2):
                white, black = field[board], field[board + 1]
                game_id += 1
                if rng.random() < 0.02:  # forfeit: kept as data, not rated (§5.1)
                    games.append((game_id, event_id, rnd, start_date, white, black, "+", "-", False, True))
                    continue
                w, b = _result(rng, rating.get(white), rating.get(black))
                games.append((game_id, event_id, rnd, start_date, white, black, w, b, True, True))
                played += 1
            if len(field) % 2:
                game_id += 1
                games.append((game_id, event_id, rnd, start_date, field[-1], None, "U", None, False, False))
    return events, games
