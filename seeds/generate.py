"""Writes the demo federation's lists and TRF files, deterministically; imports only ratingdb.formats.

Run `python seeds/generate.py` from the checkout to rewrite the files next to it. The same code always
writes the same bytes (a fixed random seed, no clock), and tests/cli/test_demo.py checks that the
committed files are exactly what it writes.

Most players and games are random but plausible. The players and games that show a rule (the floor,
the 700 rule, the 2650 game, the newcomers, the event across two periods) are written out by hand in
SPECIAL and in the scripted events below, so that the tests can work their numbers out on paper.
"""

from __future__ import annotations

import datetime as dt
import io
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from ratingdb.formats import (
    ListRating,
    ListRow,
    TrfEvent,
    TrfGame,
    TrfPlayer,
    as_sex,
    write_csv_list,
    write_trf16,
)
from ratingdb.formats.glicko2_list import Glicko2Figures, write_glicko2_list
from ratingdb.rating import activity_flag

SEED = 20250901
LIST_DATE = dt.date(2025, 9, 1)
HOME = "IRL"
PLAYED_SCORE = {"1": 1.0, "=": 0.5, "0": 0.0}
BYE_SCORE = {"H": 0.5, "F": 1.0, "U": 1.0, "Z": 0.0}
FORFEIT_SCORE = {"+": 1.0, "-": 0.0}
OPPOSITE = {"1": "0", "0": "1", "=": "="}

# -- names -----------------------------------------------------------------------------------------------

IRISH_MEN = (
    "Aidan Brian Cathal Cian Ciarán Colm Conor Darragh Declan Diarmuid Dónal Eamon Eoin Fergal Fionn "
    "Gareth Hugh Jack James John Kevin Liam Lorcan Mark Michael Niall Oisín Pádraig Paul Peter Rory "
    "Ruairí Seán Séamus Shane Stephen Tadhg Thomas Tomás David Brendan Barry Gerard Kieran Odhrán"
).split()
IRISH_WOMEN = (
    "Aoife Áine Bríd Caoimhe Ciara Clodagh Deirdre Eimear Emer Fiona Gráinne Máire Maeve Niamh Nuala "
    "Orla Róisín Saoirse Siobhán Sinéad Úna Sarah Emma Rachel Katie Laura Ailbhe Muireann Sorcha Clíona"
).split()
IRISH_SURNAMES = (
    "Murphy Kelly O'Sullivan Walsh Smith O'Brien Byrne Ryan O'Connor O'Neill O'Reilly Doyle McCarthy "
    "Gallagher Doherty Kennedy Lynch Murray Quinn Moore McLoughlin O'Carroll Connolly Daly Connell "
    "Wilson Dunne Brennan Burke Collins Campbell Clarke Johnston Hughes Farrell Fitzgerald Brown "
    "Martin Maguire Nolan Flynn Thompson Callaghan O'Donnell Duffy Mahony Boyle Healy Shea White Sweeney "
    "Hayes Kavanagh Power McGrath Moran Brady Stewart Casey Foley Fitzpatrick Leary McDonnell MacMahon "
    "Donnelly Regan Donovan Burns Flanagan Mullan Barry Kane Robinson Cunningham Griffin Kenny Sheehan "
    "Ward Whelan Lyons Reid Graham Higgins Cullen Keane King Maher McKenna Bell Scott Hogan Keogh "
    "Magee McNamara Tierney Culligan Heneghan Cronin"
).split() + ["Ó Briain", "Ó Súilleabháin", "Ó Conaill", "Mac Gearailt", "Mac Aodha"]
FOREIGN: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    # federation: (men's first names, women's first names, surnames)
    "ENG": (
        ("Oliver", "Harry", "George", "Samuel"),
        ("Charlotte", "Amelia"),
        ("Whitfield", "Hartley", "Price"),
    ),
    "FRA": (("Antoine", "Julien", "Mathieu"), ("Camille", "Léa"), ("Lefèvre", "Moreau", "Girard")),
    "GER": (("Lukas", "Jonas", "Felix"), ("Hannah", "Lena"), ("Schneider", "Becker", "Hoffmann")),
    "POL": (("Tomasz", "Piotr", "Michał"), ("Agnieszka", "Zofia"), ("Nowak", "Wiśniewski", "Kowalczyk")),
    "ESP": (("Javier", "Pablo", "Sergio"), ("Lucía", "Marta"), ("García", "Fernández", "Ruiz")),
    "UKR": (("Dmytro", "Oleksandr", "Andriy"), ("Olena", "Iryna"), ("Kovalenko", "Shevchuk", "Bondarenko")),
    "IND": (("Arjun", "Rohan", "Vikram"), ("Priya", "Ananya"), ("Iyer", "Nair", "Reddy")),
    "ITA": (("Marco", "Luca", "Davide"), ("Giulia", "Chiara"), ("Rossi", "Bianchi", "Ferrari")),
    "NED": (("Daan", "Sem", "Bram"), ("Sanne", "Fenna"), ("de Vries", "Jansen", "Bakker")),
    "LTU": (("Mantas", "Tadas"), ("Rūta", "Eglė"), ("Kazlauskas", "Petrauskas")),
}

# -- players ---------------------------------------------------------------------------------------------


@dataclass
class Person:
    """A player of the demo federation as the starting lists (2025-09-01) show them."""

    fide_id: int
    name: str
    federation: str
    sex: str  # M / F
    birth_year: int
    rating: int | None  # standard rating on 2025-09-01; None: unrated (or not on the list)
    title: str | None = None
    games_total: int = 0
    reached_2400: bool = False
    reached_2300: bool = False
    active: bool = True
    rapid: int | None = None  # rapid rating on 2025-09-01; None: not on the rapid list
    rapid_games_total: int = 0
    on_list: bool = True  # False: not on any starting list (registered by the first TRF import)
    role: str = ""  # why a hand-made player exists; generic players have none
    national_id: str | None = None

    @property
    def junior(self) -> bool:
        return LIST_DATE.year - self.birth_year <= 18

    @property
    def senior(self) -> bool:
        return self.birth_year <= 1970


def k_for(p: Person, rating: int | None, games_total: int) -> int | None:
    """K as a list publishes it (§8.3.3); the same rules for rapid."""
    if rating is None:
        return None
    if p.reached_2400:
        return 10
    if p.junior and not p.reached_2300:
        return 40
    if games_total < 30:
        return 40
    return 20


# The hand-made players. FIDE IDs 25900001… are invented (the demo federation is fictional).
# (key, name, federation, sex, title, birth year, standard rating, games total, reached 2400, role)
SPECIAL: tuple[tuple[str, str, str, str, str | None, int, int | None, int, bool, str], ...] = (
    # The Irish Masters round robin (October): a 2650+ player, players above 2400, and one much lower.
    ("gm", "Kovalenko, Dmytro", "UKR", "M", "GM", 1992, 2672, 900, True, "2650+ in the round robin"),
    ("m2", "Whitfield, Oliver", "ENG", "M", "GM", 1996, 2561, 700, True, "round robin"),
    ("m3", "Ó Briain, Cathal", HOME, "M", "IM", 1988, 2478, 650, True, "round robin"),
    ("m4", "Lefèvre, Antoine", "FRA", "M", "IM", 1999, 2452, 500, True, "round robin"),
    ("m5", "Quinn, Eoin", HOME, "M", "IM", 1994, 2431, 480, True, "round robin"),
    ("m6", "Nowak, Tomasz", "POL", "M", "FM", 2001, 2405, 300, True, "round robin"),
    ("m7", "Fitzgerald, Aoife", HOME, "F", "WGM", 1997, 2356, 420, False, "round robin"),
    # Reached 2400 years ago: K 10 for good although rated 2318 now (§8.3.3, a stored flag).
    ("m8", "Delaney, Ronan", HOME, "M", "FM", 1975, 2318, 900, True, "round robin, once 2400"),
    ("m9", "Kavanagh, Shane", HOME, "M", "CM", 1990, 2264, 380, False, "round robin"),
    ("low", "Moran, Declan", HOME, "M", None, 1983, 2120, 260, False, "the much lower player"),
    # The 700 rule: K 20 adult with 39 games in October.
    ("busy", "Doyle, Patrick", HOME, "M", None, 1979, 1846, 412, False, "plays 39 games in October"),
    # The floor: 1412 and loses all three games of the club quads in September.
    ("floor", "Byrne, Noel", HOME, "M", None, 1958, 1412, 87, False, "drops below 1400"),
    ("q1", "Keane, Martin", HOME, "M", None, 1966, 1496, 140, False, "club quads"),
    ("q2", "Walsh, Siobhán", HOME, "F", None, 1972, 1503, 95, False, "club quads"),
    ("q3", "Murphy, Colm", HOME, "M", None, 1961, 1511, 210, False, "club quads"),
    # The newcomers: one on the list without a rating, one on no list at all.
    ("n1", "Ní Mhurchú, Saoirse", HOME, "F", None, 2012, None, 0, False, "newcomer on the list, unrated"),
    ("n2", "Kowalczyk, Piotr", HOME, "M", None, 1990, None, 0, False, "newcomer on no list"),
    # Their rated opponents: September (r1–r4), October (r5–r8). r7 then plays the Halloween Open.
    ("r1", "Sheehan, Liam", HOME, "M", None, 1985, 1580, 150, False, "newcomers' opponent"),
    ("r2", "Cronin, Máire", HOME, "F", None, 1978, 1540, 120, False, "newcomers' opponent"),
    ("r3", "Hogan, Peter", HOME, "M", None, 1969, 1620, 330, False, "newcomers' opponent"),
    ("r4", "Tierney, Odhrán", HOME, "M", None, 2004, 1500, 64, False, "newcomers' opponent"),
    ("r5", "Culligan, Gráinne", HOME, "F", None, 1982, 1610, 180, False, "newcomers' opponent"),
    ("r6", "Heneghan, Fergal", HOME, "M", None, 1974, 1560, 240, False, "newcomers' opponent"),
    ("r7", "Lyons, Conor", HOME, "M", None, 1987, 1650, 310, False, "plays across two periods"),
    ("r8", "Keogh, Brendan", HOME, "M", None, 1993, 1530, 75, False, "newcomers' opponent"),
)
SPECIAL_KEYS = {s[0] for s in SPECIAL}


def make_players(rng: random.Random) -> tuple[list[Person], dict[str, Person]]:
    players: list[Person] = []
    special: dict[str, Person] = {}
    ids = iter(range(25900001, 25999999))
    used_names: set[str] = set()
    rating: int | None
    for key, name, fed, sex, title, born, rating, games, r2400, role in SPECIAL:
        p = Person(
            fide_id=next(ids),
            name=name,
            federation=fed,
            sex=sex,
            birth_year=born,
            rating=rating,
            title=title,
            games_total=games,
            reached_2400=r2400,
            reached_2300=r2400 or (rating or 0) >= 2300,
            role=role,
            on_list=key != "n2",
        )
        players.append(p)
        special[key] = p
        used_names.add(name)

    count = 300 - len(players)
    for i in range(count):
        foreign = rng.random() < 0.09
        fed = rng.choice(sorted(FOREIGN)) if foreign else HOME
        sex = "F" if rng.random() < 0.25 else "M"
        age_group = rng.choices(("junior", "adult", "senior"), weights=(22, 50, 28))[0]
        born = {
            "junior": lambda: rng.randint(2008, 2015),
            "adult": lambda: rng.randint(1971, 2007),
            "senior": lambda: rng.randint(1940, 1970),
        }[age_group]()
        while True:
            if foreign:
                men, women, surnames = FOREIGN[fed]
                first = rng.choice(women if sex == "F" else men)
                last = rng.choice(surnames)
            else:
                first = rng.choice(IRISH_WOMEN if sex == "F" else IRISH_MEN)
                last = rng.choice(IRISH_SURNAMES)
                if sex == "F" and last.startswith("Ó "):
                    last = "Ní " + last[2:]
                elif sex == "F" and last.startswith("Mac "):
                    last = "Nic " + last[4:]
            name = f"{last}, {first}"
            if name not in used_names:
                used_names.add(name)
                break
        mean, sd = {"junior": (1680, 190), "adult": (1760, 220), "senior": (1720, 190)}[age_group]
        rating = int(min(2380, max(1500, rng.gauss(mean, sd))))
        if i % 45 == 7:
            rating = None  # registered but never rated
        games_total = 0 if rating is None else rng.randint(30, 650)
        if rating is not None and age_group == "adult" and rng.random() < 0.08:
            games_total = rng.randint(9, 29)  # an adult still under 30 games: K 40 (§8.3.3)
        if rating is not None and age_group == "junior":
            games_total = rng.randint(12, 260)
        p = Person(
            fide_id=next(ids),
            name=name,
            federation=fed,
            sex=sex,
            birth_year=born,
            rating=rating,
            games_total=games_total,
            reached_2300=(rating or 0) >= 2300,
            active=rating is not None and rng.random() > 0.12,
        )
        p.title = _title(rng, p)
        players.append(p)

    for p in players:
        if p.federation == HOME and p.on_list:
            p.national_id = f"{10000 + p.fide_id % 100000:05d}"
        if p.rating is not None and p.active and (p.role == "" or p.role.startswith("round robin")):
            if p.role or rng.random() < 0.7:
                p.rapid = max(1400, p.rating + int(rng.gauss(-20, 70)))
                p.rapid_games_total = rng.randint(10, 200)
    return players, special


def _title(rng: random.Random, p: Person) -> str | None:
    r = p.rating or 0
    if r >= 2300 and rng.random() < 0.8:
        return "FM"
    if r >= 2200 and rng.random() < 0.5:
        return "CM" if p.sex == "M" else "WFM"
    if p.sex == "F" and r >= 2050 and rng.random() < 0.4:
        return "WCM"
    return None


def list_csv(players: Sequence[Person], rating_type: str) -> str:
    """The starting list of one type as a ratingdb CSV list, written by ratingdb.formats."""
    rows: list[ListRow] = []
    for p in sorted(players, key=lambda p: p.fide_id):
        if not p.on_list:
            continue
        if rating_type == "standard":
            rating, games_total = p.rating, p.games_total
            reached_2400, reached_2300 = p.reached_2400, p.reached_2300
        else:
            if p.rapid is None:
                continue
            rating, games_total = p.rapid, p.rapid_games_total
            reached_2400, reached_2300 = p.rapid >= 2400 or p.reached_2400, p.rapid >= 2300 or p.reached_2300
        flag = None
        if rating is not None:
            flag = activity_flag(female=p.sex == "F", active=p.active) or None
        rating_entry = ListRating(
            rating=rating,
            games=0,
            k=k_for(p, rating, games_total),
            games_total=games_total,
            reached_2400=reached_2400,
            reached_2300=reached_2300,
        )
        rows.append(
            ListRow(
                line=len(rows) + 2,
                fide_id=p.fide_id,
                national_id=p.national_id,
                name=p.name,
                federation=p.federation,
                sex=as_sex(p.sex),
                title=p.title,
                birth_year=p.birth_year,
                flag=flag,
                ratings={rating_type: rating_entry},
            )
        )
    out = io.StringIO()
    write_csv_list(rows, out, rating_type)
    return out.getvalue()


def club_csv(players: Sequence[Person], *, volatility: bool = True) -> str:
    """The club's starting Glicko-2 list: the players rated on the standard list, at their standard rating,
    the deviation by how much they have played (60 from 100 games, 120 from 30, else 250) and Glickman's
    volatility 0.06; written by ratingdb.formats.glicko2_list. Without `volatility`, the league's starting
    Glicko list: the same players, ratings and deviations."""
    rows = []
    for p in sorted(players, key=lambda p: p.fide_id):
        if not p.on_list or p.rating is None:
            continue
        deviation = 60 if p.games_total >= 100 else 120 if p.games_total >= 30 else 250
        row = ListRow(
            line=len(rows) + 2, fide_id=p.fide_id, national_id=p.national_id, name=p.name,
            federation=p.federation, sex=as_sex(p.sex), title=p.title, birth_year=p.birth_year, flag=None,
            ratings={},
        )  # fmt: skip
        rows.append((row, Glicko2Figures(p.rating * 100, deviation * 100, 60_000)))
    out = io.StringIO()
    write_glicko2_list(rows, out, volatility=volatility)
    return out.getvalue()


# -- events ----------------------------------------------------------------------------------------------


@dataclass
class Pairing:
    round: int
    white: Person
    black: Person | None  # None: a bye (or an unpaired round)
    white_result: str
    black_result: str | None = None

    @property
    def rated(self) -> bool:
        return self.black is not None and self.white_result in PLAYED_SCORE


@dataclass
class Tournament:
    file: str  # file name under trf/, "<type>-<slug>.trf"
    name: str
    city: str
    start: dt.date
    end: dt.date
    round_dates: tuple[dt.date, ...]
    time_control: str
    players: list[Person] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)

    def as_trf(self, rating_type: str) -> TrfEvent:
        points: dict[int, float] = {p.fide_id: 0.0 for p in self.players}
        for g in self.pairings:
            points[g.white.fide_id] += _score(g.white_result)
            if g.black is not None and g.black_result is not None:
                points[g.black.fide_id] += _score(g.black_result)
        # Starting ranks by the rating the organiser used (the starting list), best first.
        order = sorted(self.players, key=lambda p: (-(_rating(p, rating_type) or 0), p.name))
        rank = {p.fide_id: i for i, p in enumerate(order, 1)}
        players = tuple(
            TrfPlayer(
                rank=rank[p.fide_id],
                line=0,
                name=p.name,
                sex=p.sex,  # type: ignore[arg-type]
                title=p.title,
                fide_rating=_rating(p, rating_type),
                federation=p.federation,
                fide_id=p.fide_id,
                national_id=None,
                national_rating=None,
                birth_year=p.birth_year,
                points=Decimal(str(points[p.fide_id])),
            )
            for p in order
        )
        games = tuple(
            TrfGame(
                round=g.round,
                date=self.round_dates[g.round - 1],
                white=rank[g.white.fide_id],
                black=None if g.black is None else rank[g.black.fide_id],
                white_result=g.white_result,
                black_result=g.black_result,
                rated=g.rated,
            )
            for g in self.pairings
        )
        return TrfEvent(
            source_name=self.file,
            sha256="",
            version=16,
            name=self.name,
            city=self.city,
            federation=HOME,
            start_date=self.start,
            end_date=self.end,
            time_control=self.time_control,
            encoded_time_control=None,
            rating_type=rating_type,
            rounds=len(self.round_dates),
            round_dates=self.round_dates,
            players=players,
            games=games,
        )


def _score(code: str) -> float:
    return {**PLAYED_SCORE, **BYE_SCORE, **FORFEIT_SCORE}[code]


def _rating(p: Person, rating_type: str) -> int | None:
    return p.rating if rating_type == "standard" else p.rapid


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def dates(*texts: str) -> tuple[dt.date, ...]:
    return tuple(d(t) for t in texts)


def _result(rng: random.Random, white: int, black: int) -> str:
    """A plausible result from the two ratings: the logistic curve, with more draws at the top."""
    expected = 1 / (1 + 10 ** ((black - white - 35) / 400))
    draw = min(0.55, 0.18 + max(0, (white + black) / 2 - 1600) / 2500)
    draw *= 1 - abs(expected - 0.5)
    x = rng.random()
    win = expected - draw / 2
    if x < win:
        return "1"
    if x < win + draw:
        return "="
    return "0"


def round_robin(
    rng: random.Random,
    t: Tournament,
    results: dict[tuple[str, str], str] | None = None,
    keys: dict[int, str] | None = None,
) -> Tournament:
    """Berger pairings for an even number of players; `results` fixes some games (by player key)."""
    players = t.players
    n = len(players)
    assert n % 2 == 0
    fixed = results or {}
    names = keys or {}
    circle = list(range(n))
    for rnd in range(1, n):
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if i == 0 and rnd % 2 == 0:
                a, b = b, a
            white, black = players[a], players[b]
            key = (names.get(white.fide_id, ""), names.get(black.fide_id, ""))
            back = (key[1], key[0])
            if key in fixed:
                res = fixed[key]
            elif back in fixed:
                res = OPPOSITE[fixed[back]]
            else:
                res = _result(rng, white.rating or 1500, black.rating or 1500)
            t.pairings.append(Pairing(rnd, white, black, res, OPPOSITE[res]))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return t


def swiss(
    rng: random.Random,
    t: Tournament,
    rating_type: str = "standard",
    *,
    protected: Iterable[Person] = (),
    half_byes: int = 0,
    full_byes: int = 0,
    forfeits: int = 0,
    withdrawals: int = 0,
) -> Tournament:
    """A plausible Swiss: pair by score then rating without rematches; odd player out gets U.

    `protected` players play every round over the board (no byes, no forfeits).
    """
    rounds = len(t.round_dates)
    safe = {p.fide_id for p in protected}
    others = [p for p in t.players if p.fide_id not in safe]
    score: dict[int, float] = {p.fide_id: 0.0 for p in t.players}
    whites: dict[int, int] = {p.fide_id: 0 for p in t.players}
    played: dict[int, set[int]] = {p.fide_id: set() for p in t.players}
    had_bye: set[int] = set()
    requests: dict[int, set[int]] = {}  # round → players asking for a bye that round
    for _ in range(half_byes):
        requests.setdefault(rng.randint(1, max(1, rounds - 1)), set()).add(rng.choice(others).fide_id)
    full: dict[int, int] = {}
    for _ in range(full_byes):
        full[rng.randint(2, rounds)] = rng.choice(others).fide_id
    gone: dict[int, int] = {}  # player → first round missed (withdrawn)
    for _ in range(withdrawals):
        gone[rng.choice(others).fide_id] = rng.randint(rounds // 2 + 1, rounds)
    forfeit_rounds = sorted(rng.randint(1, rounds) for _ in range(forfeits))

    def rating(p: Person) -> int:
        return _rating(p, rating_type) or 0

    for rnd in range(1, rounds + 1):
        present: list[Person] = []
        for p in t.players:
            if gone.get(p.fide_id, rounds + 1) <= rnd:
                t.pairings.append(Pairing(rnd, p, None, "Z"))
            elif p.fide_id in requests.get(rnd, set()):
                t.pairings.append(Pairing(rnd, p, None, "H"))
                score[p.fide_id] += 0.5
            elif full.get(rnd) == p.fide_id:
                t.pairings.append(Pairing(rnd, p, None, "F"))
                score[p.fide_id] += 1
            else:
                present.append(p)
        present.sort(key=lambda p: (-score[p.fide_id], -rating(p), p.fide_id))
        if len(present) % 2:
            candidates = [p for p in present if p.fide_id not in had_bye and p.fide_id not in safe]
            out = candidates[-1]
            present.remove(out)
            had_bye.add(out.fide_id)
            t.pairings.append(Pairing(rnd, out, None, "U"))
            score[out.fide_id] += 1
        pairs = _pair(present, played) or _pair(present, {k: set() for k in played})
        assert pairs is not None
        forfeit_here = forfeit_rounds.count(rnd)
        for a, b in pairs:
            if whites[a.fide_id] > whites[b.fide_id] or (
                whites[a.fide_id] == whites[b.fide_id] and (rnd + a.fide_id) % 2
            ):
                a, b = b, a
            whites[a.fide_id] += 1
            played[a.fide_id].add(b.fide_id)
            played[b.fide_id].add(a.fide_id)
            if forfeit_here and a.fide_id not in safe and b.fide_id not in safe:
                forfeit_here -= 1
                res, back = ("+", "-") if rng.random() < 0.5 else ("-", "+")
            else:
                res = _result(rng, rating(a), rating(b))
                back = OPPOSITE[res]
            t.pairings.append(Pairing(rnd, a, b, res, back))
            score[a.fide_id] += _score(res)
            score[b.fide_id] += _score(back)
    return t


def _pair(order: list[Person], played: dict[int, set[int]]) -> list[tuple[Person, Person]] | None:
    """Top half against the next available player, backtracking to avoid rematches."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if other.fide_id in played[first.fide_id]:
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], played)
        if tail is not None:
            return [(first, other), *tail]
    return None


def scripted(t: Tournament, games: Sequence[tuple[int, Person, Person, str]]) -> Tournament:
    for rnd, white, black, res in games:
        t.pairings.append(Pairing(rnd, white, black, res, OPPOSITE[res]))
    return t


def pick(rng: random.Random, pool: Sequence[Person], n: int, *, also: Sequence[Person] = ()) -> list[Person]:
    chosen = rng.sample(list(pool), n - len(also))
    return [*also, *chosen]


def make_events(
    rng: random.Random, players: list[Person], s: dict[str, Person]
) -> list[tuple[str, Tournament]]:
    """Every event of September–November 2025 as (rating type, tournament)."""
    generic = [p for p in players if not p.role and p.rating is not None and p.active]
    juniors = [p for p in generic if p.junior]
    seniors = [p for p in generic if p.senior]
    strong_enough = [p for p in generic if (p.rating or 0) >= 1600 and not p.junior]
    rapid_pool = [p for p in generic if p.rapid is not None]
    events: list[tuple[str, Tournament]] = []
    standard_tc = "90 min for 40 moves + 30 min, 30 s per move from move 1"

    # September (period 2025-09, rated on the 2025-10-01 list)
    open_ = Tournament(
        "standard-dublin-september-open.trf",
        "Dublin September Open",
        "Dublin",
        d("2025-09-05"),
        d("2025-09-07"),
        dates("2025-09-05", "2025-09-06", "2025-09-06", "2025-09-07", "2025-09-07", "2025-09-07"),
        standard_tc,
        players=pick(rng, [p for p in generic if not p.junior or p.rating >= 1800], 61),  # type: ignore[operator]
    )
    events.append(("standard", swiss(rng, open_, half_byes=5, full_byes=1, forfeits=2, withdrawals=1)))

    quads = Tournament(
        "standard-leinster-club-quads.trf",
        "Leinster Club Quads",
        "Naas",
        d("2025-09-13"),
        d("2025-09-14"),
        dates("2025-09-13", "2025-09-13", "2025-09-14"),
        standard_tc,
        players=[s["floor"], s["q1"], s["q2"], s["q3"]],
    )
    # Noel Byrne (1412) loses all three; the other games are hand-picked too.
    f, q1, q2, q3 = quads.players
    events.append(
        (
            "standard",
            scripted(
                quads,
                [
                    (1, f, q1, "0"),
                    (1, q2, q3, "="),
                    (2, q2, f, "1"),
                    (2, q3, q1, "1"),
                    (3, f, q3, "0"),
                    (3, q1, q2, "="),
                ],
            ),
        )
    )

    n1, n2 = s["n1"], s["n2"]
    r1, r2, r3, r4, r5, r6, r7, r8 = (s[f"r{i}"] for i in range(1, 9))
    newcomers = Tournament(
        "standard-bray-newcomers-weekend.trf",
        "Bray Newcomers' Weekend",
        "Bray",
        d("2025-09-20"),
        d("2025-09-21"),
        dates("2025-09-20", "2025-09-20", "2025-09-20", "2025-09-21", "2025-09-21"),
        standard_tc,
        players=[n1, n2, r1, r2, r3, r4],
    )
    # Saoirse Ní Mhurchú 2½/4 against the rated players, Piotr Kowalczyk 1½/4 (plus their own game).
    events.append(
        (
            "standard",
            scripted(
                newcomers,
                [
                    (1, n1, r1, "1"),
                    (1, r2, n2, "="),
                    (1, r3, r4, "1"),
                    (2, r2, n1, "="),
                    (2, n2, r3, "0"),
                    (2, r4, r1, "="),
                    (3, n1, r3, "0"),
                    (3, r4, n2, "0"),
                    (3, r1, r2, "1"),
                    (4, r4, n1, "0"),
                    (4, n2, r1, "="),
                    (4, r3, r2, "="),
                    (5, n1, n2, "1"),
                    (5, r1, r3, "0"),
                    (5, r2, r4, "1"),
                ],
            ),
        )
    )

    junior_ch = Tournament(
        "standard-irish-junior-championship.trf",
        "Irish Junior Championship",
        "Dublin",
        d("2025-09-19"),
        d("2025-09-23"),
        dates(
            "2025-09-19", "2025-09-20", "2025-09-20", "2025-09-21", "2025-09-21", "2025-09-22", "2025-09-23"
        ),
        standard_tc,
        players=pick(rng, [p for p in juniors if p.federation == HOME], 28),
    )
    events.append(("standard", swiss(rng, junior_ch, half_byes=2)))

    rapidplay = Tournament(
        "rapid-dublin-rapidplay.trf",
        "Dublin Rapidplay",
        "Dublin",
        d("2025-09-27"),
        d("2025-09-27"),
        dates(*["2025-09-27"] * 6),
        "15 min + 10 s per move",
        players=pick(rng, rapid_pool, 40),
    )
    events.append(("rapid", swiss(rng, rapidplay, "rapid", half_byes=2, forfeits=1)))

    # October (period 2025-10, rated on the 2025-11-01 list): Patrick Doyle plays four 9-round Swisses
    # and a 3-round weekender, 39 games; the round robin with the 2650+ player.
    busy = s["busy"]
    week = (
        ("Kilkenny Congress", "Kilkenny", "2025-10-01"),
        ("Galway Bay Open", "Galway", "2025-10-08"),
        ("Limerick City Open", "Limerick", "2025-10-15"),
        ("Sligo Autumn Open", "Sligo", "2025-10-22"),
    )
    for name, city, first in week:
        start = d(first)
        days = [start + dt.timedelta(days=i) for i in (0, 1, 1, 2, 2, 3, 3, 4, 4)]
        t = Tournament(
            f"standard-{name.lower().replace(' ', '-')}.trf",
            name,
            city,
            start,
            days[-1],
            tuple(days),
            standard_tc,
            players=pick(rng, strong_enough, 32, also=[busy]),
        )
        events.append(("standard", swiss(rng, t, protected=[busy], half_byes=2, forfeits=1)))

    masters_players = [s[k] for k in ("gm", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "low")]
    masters = Tournament(
        "standard-irish-masters.trf",
        "Irish Masters",
        "Dublin",
        d("2025-10-04"),
        d("2025-10-12"),
        tuple(d("2025-10-04") + dt.timedelta(days=i) for i in range(9)),
        standard_tc,
        players=masters_players,
    )
    keys = {s[k].fide_id: k for k in ("gm", "low")}
    events.append(("standard", round_robin(rng, masters, {("gm", "low"): "1"}, keys)))

    newcomers2 = Tournament(
        "standard-bray-newcomers-weekend-ii.trf",
        "Bray Newcomers' Weekend II",
        "Bray",
        d("2025-10-18"),
        d("2025-10-19"),
        dates("2025-10-18", "2025-10-18", "2025-10-18", "2025-10-19", "2025-10-19"),
        standard_tc,
        players=[n1, n2, r5, r6, r7, r8],
    )
    # Again 2½/4 and 1½/4 against the rated players; Conor Lyons (r7) scores 1½ from his two rated games.
    events.append(
        (
            "standard",
            scripted(
                newcomers2,
                [
                    (1, r5, n1, "="),
                    (1, n2, r6, "0"),
                    (1, r7, r8, "1"),
                    (2, n1, r6, "1"),
                    (2, r7, n2, "1"),
                    (2, r8, r5, "="),
                    (3, r7, n1, "1"),
                    (3, n2, r8, "1"),
                    (3, r5, r6, "1"),
                    (4, n1, r8, "1"),
                    (4, r5, n2, "="),
                    (4, r6, r7, "="),
                    (5, n2, n1, "="),
                    (5, r6, r8, "1"),
                    (5, r5, r7, "0"),
                ],
            ),
        )
    )

    naas = Tournament(
        "standard-naas-weekender.trf",
        "Naas Weekender",
        "Naas",
        d("2025-10-27"),
        d("2025-10-28"),
        dates("2025-10-27", "2025-10-27", "2025-10-28"),
        standard_tc,
        players=pick(rng, strong_enough, 12, also=[busy]),
    )
    events.append(("standard", swiss(rng, naas, protected=[busy])))

    # November (period 2025-11, rated on the 2025-12-01 list). The Halloween Open starts in October and
    # ends in November: it is rated in 2025-11 with the ratings of the list in force at its start (October).
    halloween = Tournament(
        "standard-halloween-open.trf",
        "Halloween Open",
        "Dublin",
        d("2025-10-31"),
        d("2025-11-02"),
        dates("2025-10-31", "2025-11-01", "2025-11-01", "2025-11-02", "2025-11-02"),
        standard_tc,
        players=pick(rng, strong_enough, 36, also=[r7]),
    )
    events.append(("standard", swiss(rng, halloween, protected=[r7], half_byes=3, forfeits=1)))

    cork = Tournament(
        "standard-cork-congress.trf",
        "Cork Congress",
        "Cork",
        d("2025-11-14"),
        d("2025-11-16"),
        dates("2025-11-14", "2025-11-15", "2025-11-15", "2025-11-16", "2025-11-16"),
        standard_tc,
        players=pick(rng, generic, 44),
    )
    events.append(("standard", swiss(rng, cork, half_byes=4, forfeits=1, withdrawals=1)))

    seniors_ch = Tournament(
        "standard-irish-seniors-championship.trf",
        "Irish Seniors Championship",
        "Limerick",
        d("2025-11-19"),
        d("2025-11-23"),
        tuple(d("2025-11-19") + dt.timedelta(days=i) for i in (0, 1, 1, 2, 3, 3, 4)),
        standard_tc,
        players=pick(rng, [p for p in seniors if p.federation == HOME], 22),
    )
    events.append(("standard", swiss(rng, seniors_ch, half_byes=1)))

    galway_rapid = Tournament(
        "rapid-galway-rapidplay.trf",
        "Galway Rapidplay",
        "Galway",
        d("2025-11-08"),
        d("2025-11-08"),
        dates(*["2025-11-08"] * 7),
        "15 min + 10 s per move",
        players=pick(rng, rapid_pool, 34),
    )
    events.append(("rapid", swiss(rng, galway_rapid, "rapid", half_byes=1)))
    return events


def generate(folder: Path) -> list[Path]:
    """Write the lists and TRF files into `folder` (trf/ below it); returns the paths written."""
    rng = random.Random(SEED)
    players, special = make_players(rng)
    written: list[Path] = []
    for rating_type in ("standard", "rapid"):
        path = folder / f"{rating_type}-{LIST_DATE.isoformat()}.csv"
        path.write_text(list_csv(players, rating_type), encoding="utf-8")
        written.append(path)
    club = folder / f"club-{LIST_DATE.isoformat()}.csv"  # the Glicko-2 club list (club-glicko.toml)
    club.write_text(club_csv(players), encoding="utf-8")
    written.append(club)
    league = folder / f"league-{LIST_DATE.isoformat()}.csv"  # the Glicko league list (league-glicko.toml)
    league.write_text(club_csv(players, volatility=False), encoding="utf-8")
    written.append(league)
    (folder / "trf").mkdir(exist_ok=True)
    for rating_type, t in make_events(rng, players, special):
        path = folder / "trf" / t.file
        path.write_text(write_trf16(t.as_trf(rating_type)), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in generate(Path(__file__).resolve().parent):
        print(p)
