"""The player register: register, change, find, merge and remove players; every change of details versioned.

Takes a Session, never commits. A player's details live in immutable `player_version` rows; the
`player` row holds identity and a copy of the current version (lookups by ID read one row). Writes go
through the bulk driver because list imports register or update players by the hundred thousand.
Names are compared by ratingdb.names. No CLI, formats or report imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, and_, delete, exists, func, intersect, or_, select, tuple_, update
from sqlalchemy import text as sql
from sqlalchemy.orm import Session, aliased

from ratingdb import engines
from ratingdb.errors import ConfigError, DuplicatePlayer, PeriodAlreadyClosed, UnknownPlayer
from ratingdb.names import (
    SIMILAR,
    WORD_MATCH,
    NameScorer,
    Scored,
    key_of,
    matches_query,
    name_key,
    prefix_range,
    sound,
    tokens,
)
from ratingdb.rating import Period
from ratingdb.rating.titles import higher_title
from ratingdb.schema.models import (
    AuditEntry,
    CalcPlayer,
    Event,
    EventPlayer,
    Game,
    ListEntry,
    Player,
    PlayerAlias,
    PlayerNameToken,
    PlayerOldId,
    PlayerVersion,
    RatingList,
)
from ratingdb.services.bulk import Driver
from ratingdb.services.lists import is_closed
from ratingdb.services.versions import record_change

# A federation setting: the first national ID given to a player registered without any ID.
NATIONAL_ID_START = 1
# At most this many players sharing a word with a name are scored for similarity (common first names).
SIMILAR_CANDIDATES = 5_000
# `player find` reads the name-token index in pages of this many entries.
FIND_PAGE = 500
# `player duplicates` compares all pairs of a (federation, birth year) block up to this size, and each
# name with its next DUPLICATE_WINDOW names in key order in bigger blocks.
DUPLICATE_BLOCK = 3_000
DUPLICATE_WINDOW = 20


class Details(NamedTuple):
    """A player's versioned details, in the column order of `player_version` (and of `player`)."""

    name: str
    federation: str | None = None
    sex: str | None = None
    title: str | None = None
    birth_year: int | None = None
    fide_id: int | None = None
    national_id: str | None = None
    deceased: bool = False


DETAIL_COLUMNS = Details._fields
PLAYER_COLUMNS = ("id", *DETAIL_COLUMNS, "name_key", "current_version_id")
VERSION_COLUMNS = ("id", "player_id", "version", *DETAIL_COLUMNS, "created_by", "is_current")
TOKEN_COLUMNS = ("token", "player_id", "sound")


class Registered(NamedTuple):
    player_id: int
    version_id: int


def details_of(player: Player) -> Details:
    return Details(*(getattr(player, c) for c in DETAIL_COLUMNS))


def register_players(driver: Driver, details: Sequence[Details], audit_id: int) -> list[Registered]:
    """Register new players, each with version 1 of its details, made by the audit row `audit_id`."""
    if not details:
        return []
    player_ids = driver.reserve_ids("player", len(details))
    version_ids = driver.reserve_ids("player_version", len(details))
    words = [tokens(d.name) for d in details]
    driver.queue(
        "player",
        PLAYER_COLUMNS,
        [
            (pid, *d, key_of(w), vid)
            for pid, vid, d, w in zip(player_ids, version_ids, details, words, strict=True)
        ],
    )
    driver.queue(
        "player_version",
        VERSION_COLUMNS,
        [
            (vid, pid, 1, *d, audit_id, True)
            for pid, vid, d in zip(player_ids, version_ids, details, strict=True)
        ],
    )
    # In key order: the index B-tree then takes them page by page (a fifth faster on SQLite at 2 M rows).
    driver.queue(
        "player_name_token",
        TOKEN_COLUMNS,
        sorted((t, pid, sound(t)) for pid, w in zip(player_ids, words, strict=True) for t in set(w)),
    )
    return [Registered(p, v) for p, v in zip(player_ids, version_ids, strict=True)]


def change_players(driver: Driver, changes: Sequence[tuple[int, Details]], audit_id: int) -> dict[int, int]:
    """Give each player a new version with the new details; returns player id → new version id.

    The current version is withdrawn (never changed otherwise), the next one added, and the player row's
    copy of the details updated. The search tokens follow a changed name.
    """
    if not changes:
        return {}
    current: dict[int, tuple[int, int, str]] = {}  # player → (version id, version number, name)
    ids = [pid for pid, _ in changes]
    for chunk in _chunks(ids, 500):
        among, values = driver.among("p.id", chunk)
        for pid, vid, number, name in driver.rows(
            "SELECT p.id, v.id, v.version, p.name FROM player p JOIN player_version v "
            f"ON v.id = p.current_version_id WHERE {among}",
            values,
        ):
            current[pid] = (vid, number, name)
    version_ids = driver.reserve_ids("player_version", len(changes))
    driver.execute_many(
        "UPDATE player_version SET is_current = NULL, withdrawn_by = ? WHERE id = ?",
        [(audit_id, current[pid][0]) for pid in ids],
    )
    driver.write(
        "player_version",
        VERSION_COLUMNS,
        [
            (vid, pid, current[pid][1] + 1, *d, audit_id, True)
            for vid, (pid, d) in zip(version_ids, changes, strict=True)
        ],
    )
    assignments = ", ".join(f"{c} = ?" for c in (*DETAIL_COLUMNS, "name_key", "current_version_id"))
    driver.execute_many(
        f"UPDATE player SET {assignments} WHERE id = ?",
        [(*d, name_key(d.name), vid, pid) for vid, (pid, d) in zip(version_ids, changes, strict=True)],
    )
    renamed = [(pid, d.name) for pid, d in changes if d.name != current[pid][2]]
    if renamed:
        driver.execute_many(
            "DELETE FROM player_name_token WHERE player_id = ?", [(pid,) for pid, _ in renamed]
        )
        _write_tokens(driver, renamed)
    return {pid: vid for vid, (pid, _) in zip(version_ids, changes, strict=True)}


def _write_tokens(driver: Driver, names: Iterable[tuple[int, str]]) -> None:
    driver.write(
        "player_name_token",
        TOKEN_COLUMNS,
        sorted((token, pid, sound(token)) for pid, name in names for token in set(tokens(name))),
    )


def next_national_ids(driver: Driver, count: int, start: int = NATIONAL_ID_START) -> list[str]:
    """`count` free numeric national IDs: after the highest numeric one registered, at least `start`."""
    if count == 0:
        return []
    first = max(start, highest_national_id(driver) + 1)
    return [str(n) for n in range(first, first + count)]


def highest_national_id(driver: Driver) -> int:
    """The highest numeric national ID registered (0 if none), held until the transaction ends where the
    engine needs it held (serialise_numbering), so that two imports at once do not hand out the same
    numbers: the second waits for the first."""
    driver.engine.serialise_numbering(driver.rows, "ratingdb-national-ids")
    highest = driver.rows(driver.engine.highest_number("player", "national_id"))[0][0]
    return int(highest or 0)


def numeric_national_id(national_id: str) -> int | None:
    """The number a national ID is, as `highest_national_id` counts them (1 to 18 digits 0-9), else None."""
    if 0 < len(national_id) <= 18 and national_id.isascii() and national_id.isdigit():
        return int(national_id)
    return None


def _chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# -- lookups ---------------------------------------------------------------------------------------------


def find_by_id(session: Session, ident: str) -> Player:
    """A player by FIDE ID, else national ID, else an old national ID renumbered away; a merged
    duplicate's IDs give the player it was merged into.

    `fide:123` and `national:123` name the kind, for a number that is one player's FIDE ID and another's
    national ID (`player_ident` writes them so).
    """
    text = ident.strip()
    kind, colon, rest = text.partition(":")
    kinds: tuple[str, ...] = ("fide", "national")
    if colon and kind.lower() in kinds:
        kinds, text = (kind.lower(),), rest.strip()
    found = None
    if "fide" in kinds and text.isascii() and text.isdigit() and len(text) <= 18:
        found = session.scalars(select(Player).where(Player.fide_id == int(text))).one_or_none()
    if found is None and "national" in kinds:
        found = session.scalars(select(Player).where(Player.national_id == text)).one_or_none()
    if found is None and "national" in kinds:  # a number renumbered away (`federation renumber`)
        found = session.scalars(
            select(Player)
            .join(PlayerOldId, PlayerOldId.player_id == Player.id)
            .where(PlayerOldId.national_id == text)
            .order_by(PlayerOldId.id.desc())
            .limit(1)
        ).first()
    if found is None:
        raise UnknownPlayer(
            f"no player has FIDE ID or national ID '{ident}': `ratingdb player find NAME` searches by name"
        )
    return kept(session, found)


def player_ident(session: Session, player: Player) -> str:
    """How a command line names `player` unmistakably: its FIDE ID, else its national ID — written
    `national:N` when N is also another player's FIDE ID (find_by_id would find that one first)."""
    if player.fide_id:
        return str(player.fide_id)
    national = player.national_id or ""
    if national.isascii() and national.isdigit() and len(national) <= 18:
        other = session.scalar(select(Player.id).where(Player.fide_id == int(national)))
        if other is not None and other != player.id:
            return f"national:{national}"
    return national


def kept(session: Session, player: Player) -> Player:
    """The player a merged duplicate points to (itself when not merged)."""
    seen = {player.id}
    while player.merged_into is not None:
        nxt = session.get(Player, player.merged_into)
        if nxt is None or nxt.id in seen:  # pragma: no cover - merge refuses cycles
            break
        seen.add(nxt.id)
        player = nxt
    return player


def versions(session: Session, player_id: int) -> list[tuple[PlayerVersion, AuditEntry]]:
    """Every version of a player's details with the audit row that made it, oldest first."""
    return [
        (v, a)
        for v, a in session.execute(
            select(PlayerVersion, AuditEntry)
            .join(AuditEntry, AuditEntry.id == PlayerVersion.created_by)
            .where(PlayerVersion.player_id == player_id)
            .order_by(PlayerVersion.version)
        )
    ]


def find_players(
    session: Session,
    text: str,
    *,
    federation: str | None = None,
    born: int | None = None,
    limit: int = 50,
) -> list[Player]:
    """Players whose FIDE ID or national ID is `text`, or whose name has a word starting with each word
    of `text` (case, accents, punctuation and word order ignored); merged duplicates left out.

    At most `limit` players, sorted by name. Fast on a million players: the longest query word is looked
    up in the name-token index (a range scan read in index order), and only those players are checked
    for the other words; with more than `limit` matches, those whose matching word comes first are shown.
    """
    query_tokens = tokens(text)
    if not query_tokens:
        raise ConfigError(f"'{text}' has no letters or digits to search for: give part of a name or an ID")
    fed = federation.strip().upper() if federation else None
    found: dict[int, str] = {}  # player id → name key
    stripped = text.strip()
    by_id = select(Player.id, Player.name_key)
    if stripped.isascii() and stripped.isdigit() and len(stripped) <= 18:
        found.update((pid, key) for pid, key in session.execute(by_id.where(Player.fide_id == int(stripped))))
    found.update((pid, key) for pid, key in session.execute(by_id.where(Player.national_id == stripped)))
    # Walk the name-token index from the longest query word in index order, a page at a time, until
    # `limit` players match: a one- or two-letter word touches only the pages it needs, not every match.
    longest = max(query_tokens, key=len)
    low, high = prefix_range(longest)
    after: tuple[str, int] | None = None
    while len(found) < limit:
        page = select(PlayerNameToken.token, PlayerNameToken.player_id).where(
            PlayerNameToken.token >= low, PlayerNameToken.token < high
        )
        if after is not None:
            page = page.where(tuple_(PlayerNameToken.token, PlayerNameToken.player_id) > tuple_(*after))
        rows = session.execute(
            page.order_by(PlayerNameToken.token, PlayerNameToken.player_id).limit(FIND_PAGE)
        ).all()
        if not rows:
            break
        after = (rows[-1][0], rows[-1][1])
        candidates = select(Player.id, Player.name_key).where(
            Player.id.in_([pid for _, pid in rows]), Player.merged_into.is_(None)
        )
        if fed is not None:
            candidates = candidates.where(Player.federation == fed)
        if born is not None:
            candidates = candidates.where(Player.birth_year == born)
        keys: dict[int, str] = {pid: key for pid, key in session.execute(candidates)}
        for _, pid in rows:  # in index order
            key = keys.get(pid)
            if key is not None and pid not in found and matches_query(query_tokens, key.split()):
                found[pid] = key
        if len(rows) < FIND_PAGE:
            break
    ids = list(found)[:limit]
    players = {p.id: kept(session, p) for p in session.scalars(select(Player).where(Player.id.in_(ids)))}
    chosen: dict[int, Player] = {}
    for pid in ids:
        p = players[pid]
        if (fed is None or p.federation == fed) and (born is None or p.birth_year == born):
            chosen.setdefault(p.id, p)
    return sorted(chosen.values(), key=lambda p: (p.name_key, p.id))


class FoundPlayer(NamedTuple):
    """A player `search_players` found: how well the name (or ID) matches the text, 0–100, and how many
    of the text's words it matches (all of them for an ID)."""

    player: Player
    score: float
    why: str  # "FIDE ID", "national ID", "name", "alias '…'"
    matched: int = 1


# `player find`: a search word finds the registered words that share its first SEARCH_PREFIX letters (an
# index range, read distinct) and that ratingdb.names.NameScorer finds like it, and the words with its
# phonetic key or a given-name variant's (the index on `sound`) …
SEARCH_PREFIX = 3
# … and at most this many players are scored for a search: those matching every word (or, for one word,
# those of the words it starts), then PARTIAL_CANDIDATES × the results asked for of those matching some.
SEARCH_CANDIDATES = 2_000
PARTIAL_CANDIDATES = 4


def search_players(
    session: Session,
    text: str,
    *,
    federation: str | None = None,
    born: int | None = None,
    limit: int = 50,
) -> list[FoundPlayer]:
    """Players by FIDE ID or national ID, or by name as people write it, best first: those matching more
    of the text's words first (at least half of them), then by score (ratingdb.names.NameScorer:
    prefixes, transliterations, given-name variants, sound-alikes, typos and initials; the mean over the
    text's words of each one's best against a word of the name). A player's aliases (the other spellings
    on record) are names too: found through one, the player's `why` names it.

    Fast on a million players: for each word of the text the distinct registered words sharing its first
    three letters are read by skipping through the name-token index (one seek per distinct word), and the
    words that sound like it by the index on their phonetic key; the players having such a word for every
    word of the text are read by one intersection, and only when they are fewer than `limit` the players
    matching some of the words. A misspelling within the first three letters that does not sound alike is
    not found (search by ID, or by another word of the name).
    """
    words = tokens(text)
    if not words:
        raise ConfigError(f"'{text}' has no letters or digits to search for: give part of a name or an ID")
    fed = federation.strip().upper() if federation else None
    everything = len(words)
    found: dict[int, FoundPlayer] = {}
    stripped = text.strip()
    by_id: list[tuple[Any, str]] = []
    if stripped.isascii() and stripped.isdigit() and len(stripped) <= 18:
        by_id.append((Player.fide_id == int(stripped), "FIDE ID"))
    by_id.append((Player.national_id == stripped, "national ID"))
    for condition, why in by_id:
        for p in session.scalars(select(Player).where(condition)):
            k = kept(session, p)
            found.setdefault(k.id, FoundPlayer(k, 100.0, why, everything))
    scorer = NameScorer(words)
    # Shown: the players matching at least half of the text's words ("ruane kieran": either; "o briain
    # cathal": two of the three, not every name with a word starting with "o").
    enough = (everything + 1) // 2
    keys, sure = _candidates(session, scorer, fed, born, limit)
    scored: dict[int, tuple[Scored, str, str]] = {}  # player id → (score, name key, found by)
    for i, (pid, key) in enumerate(keys.items()):
        if pid in found:
            continue
        # A one-word search scores 100 for a player with a word it starts: those need no scoring (the
        # token index holds the words of the name key; change_players keeps it so).
        score = Scored(100.0, 1) if i < sure else scorer(key)
        if score.matched >= enough:
            scored[pid] = (score, key, "name")
    # Other spellings on record (`--accept-name`, `player edit --add-alias`, merges, edited names) are
    # searched too, scored the same way; the better of name and alias.
    for pid, alias, key, own in _alias_candidates(session, scorer, fed, born):
        score = scorer(key)
        if pid in found or score.matched < enough:
            continue
        before = scored.get(pid)
        if before is None or (score.matched, score.score) > (before[0].matched, before[0].score):
            scored[pid] = (score, own, f"alias '{alias}'")
    ranked = sorted(scored.items(), key=lambda it: (-it[1][0].matched, -it[1][0].score, it[1][1], it[0]))
    best = ranked[:limit]
    players = {
        p.id: p for p in session.scalars(select(Player).where(Player.id.in_([pid for pid, _ in best])))
    }
    for pid, (score, _, why) in best:
        found[pid] = FoundPlayer(players[pid], score.score, why, score.matched)
    chosen = [
        f
        for f in found.values()
        if (fed is None or f.player.federation == fed) and (born is None or f.player.birth_year == born)
    ]
    chosen.sort(key=lambda f: (-f.matched, -f.score, f.player.name_key, f.player.id))
    return chosen[:limit]


def _candidates(
    session: Session, scorer: NameScorer, federation: str | None, born: int | None, limit: int
) -> tuple[dict[int, str], int]:
    """Player id → name key of the players a search scores (at most SEARCH_CANDIDATES, not merged, of the
    federation and birth year asked), and how many of the first ones surely score 100 (a one-word search:
    the players with a word it starts)."""
    exact: list[list[str]] = []  # per word of the search: the registered words it starts
    alike: list[Any] = []  # per word: the condition finding the players with a word like it
    for i, word in enumerate(scorer.words):
        similar = _similar_words(session, word)
        exact.append(sorted(t for t, score in similar.items() if score == 100.0))
        parts = []
        if similar:
            parts.append(PlayerNameToken.token.in_(sorted(similar)))
        sounds = sorted(scorer.sounds(i))
        if sounds:
            parts.append(PlayerNameToken.sound.in_(sounds))
        alike.append(or_(*parts) if parts else None)

    def players(condition: Any) -> Any:
        query = (
            select(PlayerNameToken.player_id)
            .join(Player, Player.id == PlayerNameToken.player_id)
            .where(condition, Player.merged_into.is_(None))
        )
        if federation is not None:
            query = query.where(Player.federation == federation)
        if born is not None:
            query = query.where(Player.birth_year == born)
        return query

    ids: dict[int, None] = {}

    def add(query: Any, most: int = SEARCH_CANDIDATES) -> None:
        if len(ids) < most:
            ids.update((pid, None) for pid in session.scalars(query.limit(most - len(ids))))

    sure = 0
    if len(scorer.words) == 1:
        if exact[0]:  # the players of exactly spelt words first, then of those alike
            add(players(PlayerNameToken.token.in_(exact[0])))
            sure = len(ids)
    elif all(condition is not None for condition in alike):
        # Those matching every word, found by the database however common each word is ("Sean Murphy"):
        # the intersection of the words' index rows first, then the players (not merged, of the federation
        # and birth year asked) among the few it leaves. Joining each word's rows to the players before
        # intersecting read a player row for every row of the index (thousands for a first name): most of
        # a two-word search on a million players (bench/RESULTS.md, issue 47).
        every = intersect(*(select(PlayerNameToken.player_id).where(condition) for condition in alike))
        query = select(Player.id).where(Player.id.in_(every), Player.merged_into.is_(None))
        if federation is not None:
            query = query.where(Player.federation == federation)
        if born is not None:
            query = query.where(Player.birth_year == born)
        add(query)
    if len(ids) < limit:
        # Then those matching some of the words, the longer words (rarer) first, those of the words they
        # start first: enough to fill the page several times over (they rank after those found so far).
        most = len(ids) + PARTIAL_CANDIDATES * limit
        for i in sorted(range(len(alike)), key=lambda i: -len(scorer.words[i])):
            if exact[i]:
                add(players(PlayerNameToken.token.in_(exact[i])), most)
            if alike[i] is not None:
                add(players(alike[i]).distinct(), most)
    keys: dict[int, str] = {}
    chosen = list(ids)
    for start in range(0, len(chosen), 1_000):
        chunk = chosen[start : start + 1_000]
        keys.update(
            (pid, key)
            for pid, key in session.execute(select(Player.id, Player.name_key).where(Player.id.in_(chunk)))
        )
    return {pid: keys[pid] for pid in chosen if pid in keys}, sure


def _alias_candidates(
    session: Session, scorer: NameScorer, federation: str | None, born: int | None
) -> list[tuple[int, str, str, str]]:
    """(player id, alias, alias key, player's name key) of the current aliases, of players not merged,
    with a word that shares its first SEARCH_PREFIX letters with a query word and matches one (a word
    score of at least WORD_MATCH: NameScorer.word_scores, remembered per word).

    Two reads: the keys of the aliases with such a prefix (one pass over the alias table: aliases are
    few, a hundredth of a register), then the rest of the few whose words match. On a million players
    the first keeps about a tenth of the aliases for a two-word search and the words keep one in
    twenty of those; reading and scoring them all was a third of the search (bench/RESULTS.md, issue 47)."""
    words = scorer.words
    starts = sorted({w[:SEARCH_PREFIX] for w in words})
    like = or_(
        *(
            condition
            for start in starts
            for condition in (
                PlayerAlias.name_key.like(f"{start}%"),
                PlayerAlias.name_key.like(f"% {start}%"),
            )
        )
    )
    prefixed = session.execute(
        select(PlayerAlias.id, PlayerAlias.name_key)
        .where(PlayerAlias.is_current.is_(True), like)
        .order_by(PlayerAlias.player_id, PlayerAlias.id)
    ).all()
    # A name matches no query word unless one of its words does (NameScorer.__call__), but for the
    # initials of a short query word ("dj" for "d j odonoghue"), which match letters, not words.
    initials = any(2 <= len(w) <= 3 and w.isalpha() for w in words)
    wanted = [
        alias_id
        for alias_id, key in prefixed
        if initials or any(max(scorer.word_scores(w)) >= WORD_MATCH for w in key.split())
    ]
    found: list[tuple[int, str, str, str]] = []
    for start in range(0, len(wanted), 1_000):
        query = (
            select(PlayerAlias.player_id, PlayerAlias.name, PlayerAlias.name_key, Player.name_key)
            .join(Player, Player.id == PlayerAlias.player_id)
            .where(PlayerAlias.id.in_(wanted[start : start + 1_000]), Player.merged_into.is_(None))
            .order_by(PlayerAlias.player_id, PlayerAlias.id)
        )
        if federation is not None:
            query = query.where(Player.federation == federation)
        if born is not None:
            query = query.where(Player.birth_year == born)
        found.extend((pid, name, key, own) for pid, name, key, own in session.execute(query))
    return found[:SEARCH_CANDIDATES]


def _similar_words(session: Session, word: str) -> dict[str, float]:
    """Registered name words sharing the first SEARCH_PREFIX letters of `word` that are spelt like it
    (NameScorer.spelt_alike), with their scores (100: `word` starts them)."""
    prefix = word[:SEARCH_PREFIX]
    low, high = prefix_range(prefix)
    # Distinct words of the range, one index seek each (a loose index scan, as a recursive query):
    # the index holds a row per player and word, the range a few thousand distinct words at most.
    engines.of(session).allow_deep_recursion(session)
    distinct = sql(
        "WITH RECURSIVE w(token) AS ("
        " SELECT MIN(token) FROM player_name_token WHERE token >= :low AND token < :high"
        " UNION ALL"
        " SELECT (SELECT MIN(t.token) FROM player_name_token t WHERE t.token > w.token AND t.token < :high)"
        " FROM w WHERE w.token IS NOT NULL"
        ") SELECT token FROM w WHERE token IS NOT NULL"
    )
    score = NameScorer((word,)).spelt_alike
    found: dict[str, float] = {}
    for (token,) in session.execute(distinct, {"low": low, "high": high}):
        alike = score(0, token)
        if alike >= WORD_MATCH:
            found[token] = alike
    return found


def count_players(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Player)) or 0


def describe(player: Player | Details | Any) -> str:
    """ "Name (FIDE 123, national 45, born 2010, IRL)": how a player is named in messages."""
    parts = []
    if player.fide_id:
        parts.append(f"FIDE {player.fide_id}")
    if player.national_id:
        parts.append(f"national {player.national_id}")
    if player.birth_year:
        parts.append(f"born {player.birth_year}")
    if player.federation:
        parts.append(player.federation)
    return f"{player.name} ({', '.join(parts) or 'no ID'})"


def similar_players(
    session: Session, name: str, *, exclude: Iterable[int] = (), limit: int = 5, cutoff: float = SIMILAR
) -> list[Player]:
    """Registered players whose names are like `name` (possible duplicates: the hint after a player is
    registered), most alike first.

    Candidates share a word with the name or its phonetic key (the token index); each is scored by the
    search's scorer (ratingdb.names.NameScorer) both ways — the name's words against the candidate's and
    the candidate's against the name's, the lower counting — so "Kowalenko, Ivan" is like "Kovalenko,
    Ivan" but "Kelly, A." is not like every "Kelly, Aoife".
    """
    words = sorted(set(tokens(name)), key=len, reverse=True)
    if not words:
        return []
    skip = set(exclude)
    scorer = NameScorer(words)
    sounds = sorted({key for i in range(len(words)) for key in scorer.sounds(i)})
    condition: ColumnElement[bool] = PlayerNameToken.token.in_(words)
    if sounds:
        condition = or_(condition, PlayerNameToken.sound.in_(sounds))
    ids = session.scalars(
        select(PlayerNameToken.player_id)
        .join(Player, Player.id == PlayerNameToken.player_id)
        .where(condition, Player.merged_into.is_(None))
        .distinct()
        .limit(SIMILAR_CANDIDATES)
    ).all()
    key = name_key(name)
    alike: list[tuple[float, str, int]] = []
    for chunk in _chunks([pid for pid in ids if pid not in skip], 1_000):
        for pid, other in session.execute(select(Player.id, Player.name_key).where(Player.id.in_(chunk))):
            forward = scorer(other).score
            if forward >= cutoff:
                score = min(forward, NameScorer(other.split())(key).score)
                if score >= cutoff:
                    alike.append((score, other, pid))
    alike.sort(key=lambda a: (-a[0], a[1], a[2]))
    chosen = [pid for _, _, pid in alike[:limit]]
    players = {p.id: p for p in session.scalars(select(Player).where(Player.id.in_(chosen)))}
    return [players[pid] for pid in chosen]


def remove_unreferenced_players(
    session: Session, player_ids: Sequence[int], *, registered_by: str
) -> list[str]:
    """Remove those of `player_ids` that nothing refers to any more and that an action `registered_by`
    (such as "import-trf") registered; returns how each removed player is described.

    Nothing refers to a player who has no list entry, no event line, no game, no calculation record and
    no duplicate merged into it. Their versions and search tokens go with them.
    """
    if not player_ids:
        return []
    p = Player.__table__.c
    dup = Player.__table__.alias("dup")
    referenced = or_(
        *(
            exists().where(column == p.id)
            for column in (
                ListEntry.player_id,
                EventPlayer.player_id,
                Game.white_id,
                Game.black_id,
                CalcPlayer.player_id,
            )
        ),
        exists().where(dup.c.merged_into == p.id),
    )
    first = (
        select(AuditEntry.action)
        .join(PlayerVersion, PlayerVersion.created_by == AuditEntry.id)
        .where(PlayerVersion.player_id == p.id, PlayerVersion.version == 1)
    )
    doomed = list(
        session.scalars(
            select(Player)
            .where(Player.id.in_(player_ids), ~referenced, first.scalar_subquery() == registered_by)
            .order_by(Player.id)
        )
    )
    if not doomed:
        return []
    ids = [d.id for d in doomed]
    described = [describe(d) for d in doomed]
    # Their versions and search tokens go with them (ON DELETE CASCADE; the version guard allows it).
    session.execute(delete(Player).where(Player.id.in_(ids)))
    return described


def register_player(session: Session, details: Details, audit_id: int) -> Player:
    """Register one player (version 1 of `details`) and return it."""
    driver = Driver(session)
    try:
        (registered,) = register_players(driver, [details], audit_id)
    finally:
        driver.restore()
    return session.get_one(Player, registered.player_id)


# -- aliases --------------------------------------------------------------------------------------------


def aliases_of(session: Session, player_ids: Iterable[int]) -> dict[int, list[str]]:
    """Player id → the other spellings of its name on record (current aliases), oldest first."""
    ids = sorted(set(player_ids))
    found: dict[int, list[str]] = {}
    for chunk in _chunks(ids, 10_000):
        for pid, name in session.execute(
            select(PlayerAlias.player_id, PlayerAlias.name)
            .where(engines.of(session).one_of(PlayerAlias.player_id, chunk), PlayerAlias.is_current.is_(True))
            .order_by(PlayerAlias.player_id, PlayerAlias.id)
        ):
            found.setdefault(pid, []).append(name)
    return found


def players_by_alias(session: Session, keys: Sequence[str]) -> dict[str, list[int]]:
    """Name key → ids of the players (not merged) with a current alias of that key."""
    found: dict[str, list[int]] = {}
    for start in range(0, len(keys), 10_000):
        chunk = list(keys[start : start + 10_000])
        for key, pid in session.execute(
            select(PlayerAlias.name_key, PlayerAlias.player_id)
            .join(Player, Player.id == PlayerAlias.player_id)
            .where(
                engines.of(session).one_of(PlayerAlias.name_key, chunk),
                PlayerAlias.is_current.is_(True),
                Player.merged_into.is_(None),
            )
            .order_by(PlayerAlias.player_id)
        ):
            found.setdefault(key, []).append(pid)
    return found


def alias_history(session: Session, player_id: int) -> list[tuple[PlayerAlias, AuditEntry]]:
    """The player's aliases with the audit row that recorded each (who, when, why), oldest first."""
    return [
        (a, e)
        for a, e in session.execute(
            select(PlayerAlias, AuditEntry)
            .join(AuditEntry, AuditEntry.id == PlayerAlias.created_by)
            .where(PlayerAlias.player_id == player_id, PlayerAlias.is_current.is_(True))
            .order_by(PlayerAlias.id)
        )
    ]


def add_alias(session: Session, player: Player, name: str, audit_id: int) -> bool:
    """Record `name` as another spelling of `player`'s name; False when the name or an alias has its key
    already (nothing to record)."""
    clean = " ".join(name.split())
    key = name_key(clean)
    if not key:
        raise ConfigError(f"the alias '{name}' has no letters or digits")
    if key == player.name_key or key in {
        name_key(a) for a in aliases_of(session, [player.id]).get(player.id, [])
    }:
        return False
    session.add(PlayerAlias(player_id=player.id, name=clean, name_key=key, created_by=audit_id))
    session.flush()
    return True


def add_alias_by_hand(session: Session, player: Player, name: str, reason: str) -> bool:
    """`player edit --add-alias`: record another spelling, audited with the officer's reason."""
    if player.merged_into is not None:
        raise DuplicatePlayer(
            f"player {describe(player)} was merged into player {player.merged_into}: edit that player"
        )
    audit_id = record_change(
        session, "player-alias", f"player {player.id} {player.name}: alias '{name}' added", reason=reason
    ).id
    return add_alias(session, player, name, audit_id)


# -- the register's commands -----------------------------------------------------------------------------


def _refuse_taken(session: Session, details: Details, player_id: int | None) -> None:
    for column, what in (("fide_id", "FIDE ID"), ("national_id", "national ID")):
        value = getattr(details, column)
        if value is None:
            continue
        holder = session.scalars(select(Player).where(getattr(Player, column) == value)).one_or_none()
        if holder is not None and holder.id != player_id:
            raise DuplicatePlayer(
                f"{what} {value} belongs to {describe(holder)} already: if that is the same person, "
                f"`ratingdb player merge` the two instead"
            )


def add_player(session: Session, details: Details, *, start: int = NATIONAL_ID_START) -> Player:
    """Register a player by hand; without any ID it gets the next free national ID."""
    _refuse_taken(session, details, None)
    driver = Driver(session)
    try:
        if details.fide_id is None and details.national_id is None:
            details = details._replace(national_id=next_national_ids(driver, 1, start)[0])
        audit_id = record_change(session, "player-add", f"registered {describe(details)} by hand").id
        (registered,) = register_players(driver, [details], audit_id)
    finally:
        driver.restore()
    return session.get_one(Player, registered.player_id)


def edit_player(
    session: Session, player: Player, changes: dict[str, Any], reason: str
) -> tuple[Details, Details]:
    """Give `player` a new version of its details with `changes`; returns (before, after).

    Lists published before keep showing the earlier version; the next close uses the new details (a
    corrected birth year changes K from the next list on). A name changed (other than in accents, case,
    punctuation or word order) keeps the old one as an alias.
    """
    if player.merged_into is not None:
        raise DuplicatePlayer(
            f"player {describe(player)} was merged into player {player.merged_into}: edit that player"
        )
    before = details_of(player)
    after = before._replace(**changes)
    if after == before:
        raise ConfigError(f"nothing to change: {describe(player)} already has these details")
    if not after.name.strip():
        raise ConfigError("a player's name cannot be empty")
    _refuse_taken(session, after, player.id)
    what = ", ".join(
        f"{c} {getattr(before, c)!r} → {getattr(after, c)!r}"
        for c in DETAIL_COLUMNS
        if getattr(before, c) != getattr(after, c)
    )
    audit_id = record_change(
        session, "player-edit", f"player {player.id} {before.name}: {what}", reason=reason
    ).id
    driver = Driver(session)
    try:
        change_players(driver, [(player.id, after)], audit_id)
    finally:
        driver.restore()
    session.expire(player)
    if name_key(after.name) != name_key(before.name):
        # The name it had stays a spelling of the player's: the next file that spells it so (FIDE's list
        # after a national spelling was chosen, say) is matched without a question.
        add_alias(session, player, before.name, audit_id)
    return before, after


_TAKEN = {"title": "title", "birth_year": "birth year", "fide_id": "FIDE ID"}


@dataclass(frozen=True)
class Merged:
    """What one merge did: who into whom (as described before it), the events re-pointed, the details the
    player kept took from the duplicate (detail, value: the higher title, a birth year or FIDE ID it
    lacked), and the spellings recorded as its aliases (the duplicate's name and aliases)."""

    duplicate_id: int
    duplicate: str
    keep_id: int
    keep: str
    events: int
    taken: list[tuple[str, object]]  # (column of Details, value)
    aliases: list[str]
    reason: str

    @property
    def detail(self) -> str:
        """The merge in one line of English (the audit's detail)."""
        took = ", ".join(f"{_TAKEN[column]} {value}" for column, value in self.taken)
        return (
            f"merged player {self.duplicate_id} {self.duplicate} into player {self.keep_id} {self.keep}; "
            f"{self.events} event(s) re-pointed"
            + (f"; took {took}" if took else "")
            + "".join(f"; alias '{a}' kept" for a in self.aliases)
            + f"; reason: {self.reason}"
        )


def merge_players(session: Session, duplicate: Player, keep: Player, reason: str) -> Merged:
    """Merge `duplicate` into `keep`: its events of open periods are re-pointed to `keep`, its IDs resolve
    to `keep` from now on. Refused when both played in one event, when the duplicate has games in a
    closed period (those explain a published list), or when it is on a list `keep` is not on.

    What is known of the person is kept: `keep` takes the higher of the two titles, and the duplicate's
    birth year and FIDE ID when it has none (a new version of its details; the FIDE ID moves, so the
    duplicate's version loses it); the duplicate's name and aliases become aliases of `keep`.
    """
    if duplicate.id == keep.id:
        raise ConfigError(f"{describe(keep)} cannot be merged into itself")
    for p in (duplicate, keep):
        if p.merged_into is not None:
            raise DuplicatePlayer(f"{describe(p)} was merged into player {p.merged_into} already")
    other = aliased(EventPlayer)
    both = session.scalars(
        select(Event)
        .join(EventPlayer, EventPlayer.event_id == Event.id)
        .where(EventPlayer.player_id == duplicate.id)
        .where(Event.id.in_(select(other.event_id).where(other.player_id == keep.id)))
        .order_by(Event.id)
    ).all()
    if both:
        names = ", ".join(f"{e.id} '{e.name}'" for e in both)
        raise DuplicatePlayer(
            f"{describe(duplicate)} and {describe(keep)} both played in event {names}: two players of one "
            "event are two people, so they are not merged"
        )
    events = session.scalars(
        select(Event)
        .join(EventPlayer, EventPlayer.event_id == Event.id)
        .where(EventPlayer.player_id == duplicate.id)
        .order_by(Event.id)
    ).all()
    closed = [e for e in events if is_closed(session, e.rating_type, Period.parse(e.period))]
    if closed:
        names = ", ".join(f"{e.id} '{e.name}' ({e.rating_type} {e.period})" for e in closed)
        raise PeriodAlreadyClosed(
            f"{describe(duplicate)} has games in closed periods (event {names}): their list is published "
            "and explained by those games; reopen the period first (issue of corrections), then merge"
        )
    kept_entry = aliased(ListEntry)
    on_lists = session.execute(
        select(RatingList.rating_type, RatingList.list_date)
        .join(ListEntry, ListEntry.list_id == RatingList.id)
        .outerjoin(kept_entry, and_(kept_entry.list_id == RatingList.id, kept_entry.player_id == keep.id))
        .where(ListEntry.player_id == duplicate.id, kept_entry.player_id.is_(None))
        .order_by(RatingList.list_date.desc())
    ).first()
    if on_lists is not None:
        raise DuplicatePlayer(
            f"{describe(duplicate)} is on the {on_lists[0]} list dated {on_lists[1].isoformat()} and "
            f"{describe(keep)} is not: keep the listed one (`ratingdb player merge "
            f"{player_ident(session, keep)} {player_ident(session, duplicate)}`)"
        )
    ids = [e.id for e in events]
    if ids:
        session.execute(
            update(EventPlayer)
            .where(EventPlayer.event_id.in_(ids), EventPlayer.player_id == duplicate.id)
            .values(player_id=keep.id)
        )
        for column in (Game.white_id, Game.black_id):
            session.execute(
                update(Game).where(Game.event_id.in_(ids), column == duplicate.id).values({column: keep.id})
            )
    before, gone = details_of(keep), details_of(duplicate)
    after = before._replace(title=higher_title(before.title, gone.title))
    if after.birth_year is None and gone.birth_year is not None:
        after = after._replace(birth_year=gone.birth_year)
    if after.fide_id is None and gone.fide_id is not None:
        after = after._replace(fide_id=gone.fide_id)
    taken: list[tuple[str, object]] = [
        (column, getattr(after, column))
        for column in ("title", "birth_year", "fide_id")
        if getattr(after, column) != getattr(before, column)
    ]
    spellings = [duplicate.name, *aliases_of(session, [duplicate.id]).get(duplicate.id, [])]
    known = {keep.name_key, *(name_key(a) for a in aliases_of(session, [keep.id]).get(keep.id, []))}
    new_spellings = []  # those add_alias records (a key not known yet), in order
    for spelling in spellings:
        if name_key(spelling) not in known:
            known.add(name_key(spelling))
            new_spellings.append(spelling)
    merged = Merged(
        duplicate.id, describe(duplicate), keep.id, describe(keep), len(ids), taken, new_spellings, reason
    )
    audit = record_change(session, "player-merge", merged.detail, reason=reason)
    if after != before:
        # The duplicate gives its FIDE ID up first: a FIDE ID belongs to one player row.
        changes = [(keep.id, after)]
        if after.fide_id != before.fide_id:
            changes.insert(0, (duplicate.id, gone._replace(fide_id=None)))
        driver = Driver(session)
        try:
            change_players(driver, changes, audit.id)
        finally:
            driver.restore()
        session.expire_all()
    # The duplicate's name and aliases stay known as spellings of the player kept: files that use them
    # are matched to it.
    for spelling in spellings:
        add_alias(session, keep, spelling, audit.id)
    session.execute(update(Player).where(Player.id == duplicate.id).values(merged_into=keep.id))
    session.expire_all()
    return merged


@dataclass(frozen=True)
class LikelyDuplicate:
    """Two registrations that may be one person; `keep` is the one a merge should keep (on more lists;
    else the one with a FIDE ID; else the older), `duplicate` the other."""

    keep: Player
    duplicate: Player
    why: str
    keep_lists: int = 0
    duplicate_lists: int = 0

    @property
    def first(self) -> Player:
        return self.keep

    @property
    def second(self) -> Player:
        return self.duplicate


def _directed(session: Session, pairs: list[LikelyDuplicate]) -> list[LikelyDuplicate]:
    """Each pair with the player to keep first: the one on more lists (then with a FIDE ID, then older)."""
    ids = sorted({p.id for d in pairs for p in (d.keep, d.duplicate)})
    lists: dict[int, int] = {}
    for chunk in _chunks(ids, 10_000):
        lists.update(
            (pid, n)
            for pid, n in session.execute(
                select(ListEntry.player_id, func.count(func.distinct(ListEntry.list_id)))
                .where(ListEntry.player_id.in_(chunk))
                .group_by(ListEntry.player_id)
            )
        )
    directed = []
    for d in pairs:
        a, b = d.keep, d.duplicate
        if a.id == b.id:  # pragma: no cover - the pairs are of two rows; never one player with itself
            continue
        rank_a = (lists.get(a.id, 0), a.fide_id is not None, -a.id)
        rank_b = (lists.get(b.id, 0), b.fide_id is not None, -b.id)
        keep, dup = (a, b) if rank_a >= rank_b else (b, a)
        directed.append(LikelyDuplicate(keep, dup, d.why, lists.get(keep.id, 0), lists.get(dup.id, 0)))
    return directed


def likely_duplicates(session: Session, *, limit: int = 200) -> list[LikelyDuplicate]:
    """Pairs of registered players that may be one person: the same normalised name and birth year, or
    very similar names (rapidfuzz) in the same federation and birth year.

    Compared within (federation, birth year) blocks: a person's duplicate agrees on both, and the blocks
    keep the comparisons few even on a million players.
    """
    from rapidfuzz import fuzz, process

    found: list[LikelyDuplicate] = []
    seen: set[tuple[int, int]] = set()
    same = session.execute(
        select(Player.name_key, Player.birth_year)
        .where(Player.merged_into.is_(None))
        .group_by(Player.name_key, Player.birth_year)
        .having(func.count() > 1)
        .order_by(Player.name_key, Player.birth_year)
    ).all()
    for key, born in same:
        group = list(
            session.scalars(
                select(Player)
                .where(
                    Player.name_key == key,
                    Player.birth_year.is_(None) if born is None else Player.birth_year == born,
                )
                .where(Player.merged_into.is_(None))
                .order_by(Player.id)
            )
        )
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                seen.add((a.id, b.id))
                found.append(LikelyDuplicate(a, b, "same name and birth year"))
    blocks: dict[tuple[str | None, int | None], list[tuple[int, str]]] = {}
    for pid, key, fed, born in session.execute(
        select(Player.id, Player.name_key, Player.federation, Player.birth_year)
        .where(Player.merged_into.is_(None), Player.federation.is_not(None))
        .order_by(Player.id)
    ):
        blocks.setdefault((fed, born), []).append((pid, key))
    pairs: list[tuple[int, int, float]] = []
    for members in blocks.values():
        if len(members) < 2:
            continue
        if len(members) > DUPLICATE_BLOCK:
            # Too many for all pairs (a matrix of n²): compare each name with its neighbours in key order.
            members.sort(key=lambda m: m[1])
            for i, (a_id, a_key) in enumerate(members):
                for b_id, b_key in members[i + 1 : i + 1 + DUPLICATE_WINDOW]:
                    score = fuzz.token_sort_ratio(a_key, b_key, score_cutoff=SIMILAR)
                    if score and a_key != b_key:
                        pairs.append((min(a_id, b_id), max(a_id, b_id), float(score)))
            continue
        keys = [k for _, k in members]
        scores = process.cdist(keys, keys, scorer=fuzz.token_sort_ratio, score_cutoff=SIMILAR)
        for i, j in zip(*scores.nonzero(), strict=True):
            if i < j and keys[i] != keys[j]:
                pairs.append((members[i][0], members[j][0], float(scores[i, j])))
    pairs.sort(key=lambda x: (-x[2], x[0], x[1]))
    for a_id, b_id, score in pairs:
        if (a_id, b_id) not in seen:
            a, b = session.get_one(Player, a_id), session.get_one(Player, b_id)
            found.append(
                LikelyDuplicate(a, b, f"similar names ({score:.0f}%), same federation and birth year")
            )
    return _directed(session, found[:limit])


def club_of(session: Session, player_id: int) -> tuple[str, str] | None:
    """The player's club in the register: (club, event name) of the latest current event whose line names
    one (a file read with --federation-column clubs or mixed); None if no file named one. A club is not a
    federation: it is kept with each event line, never in the player's versioned details (issue 47)."""
    row = session.execute(
        select(EventPlayer.club, Event.name)
        .join(Event, Event.id == EventPlayer.event_id)
        .where(EventPlayer.player_id == player_id, EventPlayer.club.is_not(None), Event.is_current.is_(True))
        .order_by(Event.end_date.desc(), Event.id.desc())
        .limit(1)
    ).first()
    return None if row is None else (str(row[0]), str(row[1]))
