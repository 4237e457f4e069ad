"""SQLAlchemy 2 typed models: players, events, games, lists, entries and the calculation record.

No rules here (they live in ratingdb.rating) and no services. The schema is created only by the
migrations in migrations/; `alembic check` in the tests keeps the two in step, and a test compares the
CHECK constraints (which Alembic does not compare) by name. The CHECKs on the federation's data come from
ratingdb.schema.checks, written for each engine when compiled (ratingdb.schema.types: the pieces whose SQL
each engine says; no engine is named here).

No `from __future__ import annotations` here: the declarative classes' `Mapped[...]` annotations are then
objects when each class is made, and SQLAlchemy does not evaluate some 250 strings again (about 15 %
of this module's import, which every command that opens the database pays).
"""

import datetime as dt
from typing import Annotated, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    func,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from ratingdb.schema import checks
from ratingdb.schema.types import CheckCondition, FileContent

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# standard, rapid, blitz, or a type a stored rule set defines (e.g. "national"); the commands check that
# the type is known, the database that it is a lowercase name (migration 0007).
RATING_TYPE_CHECK = "rating_type <> '' AND rating_type = lower(rating_type)"


def data_checks(table: str) -> tuple[CheckConstraint, ...]:
    """The CHECK constraints ratingdb.schema.checks states for `table` (named ck_<table>_<column>)."""
    prefix = f"ck_{table}_"
    return tuple(
        CheckConstraint(CheckCondition(c), name=c.name.removeprefix(prefix)) for c in checks.checks_of(table)
    )


# Repeated column types.
intpk = Annotated[int, mapped_column(Integer, primary_key=True)]
RatingType = Annotated[str, mapped_column(String(8))]
PeriodText = Annotated[str, mapped_column(String(7))]  # "YYYY-MM"
Hundredths = Annotated[int, mapped_column(Integer)]  # points × 100: exact, and the same on every engine


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Versioned:
    """Columns of a record that is never changed, only superseded (docs/versioning.md).

    `is_current` is TRUE or NULL, never FALSE: a plain UNIQUE over (natural key, is_current) then allows
    one current version and any number of withdrawn ones, on every engine.
    """

    version: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    is_current: Mapped[bool | None] = mapped_column(Boolean, default=True, server_default=true())
    created_by: Mapped[int | None] = mapped_column(ForeignKey("audit_log.id"))
    withdrawn_by: Mapped[int | None] = mapped_column(ForeignKey("audit_log.id"))


class Player(Base):
    """A registered player: identity and the current details (a copy of the current version's).

    Lookups by ID and the close read this one row; what a published list showed is read through
    `ListEntry.player_version_id`. `current_version_id` and `merged_into` have no foreign keys: a player
    and its versions refer to each other and are written together by ratingdb.services.players, and
    SQLite cannot add or drop such columns on a table every other table refers to without a rebuild.
    """

    __tablename__ = "player"

    id: Mapped[intpk]
    fide_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    national_id: Mapped[str | None] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    federation: Mapped[str | None] = mapped_column(String(3))
    sex: Mapped[str | None] = mapped_column(String(1))
    title: Mapped[str | None] = mapped_column(String(4))
    birth_year: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())
    deceased: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    name_key: Mapped[str] = mapped_column(String(120), index=True)  # ratingdb.names.name_key(name)
    current_version_id: Mapped[int] = mapped_column(Integer)
    merged_into: Mapped[int | None] = mapped_column(Integer)  # a duplicate's master record (player id)

    __table_args__ = (
        CheckConstraint("sex IN ('M', 'F')", name="sex"),
        *data_checks("player"),
        {"sqlite_autoincrement": True},
    )


class PlayerVersion(Versioned, Base):
    """One version of a player's details (docs/versioning.md): an edit withdraws it and adds the next."""

    __tablename__ = "player_version"

    id: Mapped[intpk]
    # The versions go with their player when an unreferenced player is removed (delete-event).
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(120))
    federation: Mapped[str | None] = mapped_column(String(3))
    sex: Mapped[str | None] = mapped_column(String(1))
    title: Mapped[str | None] = mapped_column(String(4))
    birth_year: Mapped[int | None] = mapped_column(Integer)
    fide_id: Mapped[int | None] = mapped_column(BigInteger)
    national_id: Mapped[str | None] = mapped_column(String(20))
    deceased: Mapped[bool] = mapped_column(Boolean)

    __table_args__ = (
        UniqueConstraint("player_id", "version", name="uq_player_version_player_version"),
        UniqueConstraint("player_id", "is_current", name="uq_player_version_player_current"),
        CheckConstraint("sex IN ('M', 'F')", name="sex"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        *data_checks("player_version"),
        {"sqlite_autoincrement": True},
    )


class PlayerNameToken(Base):
    """Search index of player names: one row per word of the current name (ratingdb.names.tokens), with
    the word's phonetic key (ratingdb.names.sound), so that words that sound alike are found together."""

    __tablename__ = "player_name_token"

    token: Mapped[str] = mapped_column(String(40), primary_key=True)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("player.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    sound: Mapped[str | None] = mapped_column(String(40))

    __table_args__ = (Index("ix_player_name_token_sound", "sound", "player_id"),)


class PlayerAlias(Versioned, Base):
    """Another spelling of a player's name that files use ("Smith, David J." for "Smith, David").

    Part of the player's versioned record: a row is never changed (only withdrawn), the audit row that
    made it says who added it, when and why (`--accept-name` of an import, `player edit --add-alias`, a
    merge keeping the duplicate's name). Matching compares a file's name with the name and every alias.
    """

    __tablename__ = "player_alias"

    id: Mapped[intpk]
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    name_key: Mapped[str] = mapped_column(String(120), index=True)  # ratingdb.names.name_key(name)

    __table_args__ = (
        UniqueConstraint("player_id", "name_key", "is_current", name="uq_player_alias_player_key_current"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        {"sqlite_autoincrement": True},
    )


class PlayerOldId(Base):
    """A national ID the player had before `ratingdb federation renumber` gave them a new one (issue 47).

    Kept so that the files written before still match: a line with the old number and the player's name
    is that player; with another name the number claims nobody (it may now be the federation's own
    number of someone else). Written once, by the audit row of the renumbering.
    """

    __tablename__ = "player_old_id"

    id: Mapped[intpk]
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"))
    national_id: Mapped[str] = mapped_column(String(20), index=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("audit_log.id"))

    __table_args__ = (UniqueConstraint("player_id", "national_id", name="uq_player_old_id_player_national"),)


class RatingList(Versioned, Base):
    """A published list of one rating type: sealed when written, afterwards only ever withdrawn."""

    __tablename__ = "rating_list"

    id: Mapped[intpk]
    rating_type: Mapped[RatingType]
    list_date: Mapped[dt.date] = mapped_column(Date)
    origin: Mapped[str] = mapped_column(String(10))  # imported | computed
    period: Mapped[str | None] = mapped_column(String(7))  # the period whose close computed it
    source: Mapped[str | None] = mapped_column(String(255))  # file name for imported lists
    rules: Mapped[str | None] = mapped_column(String(40))  # rule set of a computed list
    # False while the command that writes the list adds its rows; set once, in the same transaction.
    sealed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())

    entries: Mapped[list["ListEntry"]] = relationship(
        back_populates="rating_list", viewonly=True, primaryjoin="RatingList.id == foreign(ListEntry.list_id)"
    )

    __table_args__ = (
        UniqueConstraint("rating_type", "list_date", "is_current", name="uq_rating_list_current"),
        UniqueConstraint("rating_type", "list_date", "version", name="uq_rating_list_version"),
        CheckConstraint(RATING_TYPE_CHECK, name="rating_type"),
        CheckConstraint("origin IN ('imported', 'computed')", name="origin"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        *data_checks("rating_list"),
        {"sqlite_autoincrement": True},
    )


class ListEntry(Base):
    """One player on one list, with the rule state the next close needs (§8.3.3, §7.1.4, §7.2)."""

    __tablename__ = "list_entry"

    # No foreign keys (migration 0016): the guards keep these ids valid (docs, "The calculation
    # record's shape").
    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)
    # The player's details as published on this list (names and IDs are printed from this version).
    player_version_id: Mapped[int] = mapped_column(Integer)
    rating: Mapped[int | None] = mapped_column(Integer)  # NULL = unrated
    games: Mapped[int] = mapped_column(Integer, default=0)  # rated games in the period that made the list
    k: Mapped[int | None] = mapped_column(Integer)  # K for the next period (published base K)
    flag: Mapped[str | None] = mapped_column(String(2))  # i, w, wi or NULL
    change: Mapped[int | None] = mapped_column(Integer)
    # State that cannot be derived from the rating: kept on every entry so each list is self-contained.
    games_total: Mapped[int] = mapped_column(Integer, default=0)
    reached_2400: Mapped[bool] = mapped_column(Boolean, default=False)
    reached_2300: Mapped[bool] = mapped_column(Boolean, default=False)
    last_active: Mapped[str | None] = mapped_column(String(7))  # last period with a rated game
    pool_from: Mapped[str | None] = mapped_column(String(7))  # unrated pool counts periods from here

    rating_list: Mapped[RatingList] = relationship(
        back_populates="entries", viewonly=True, primaryjoin="RatingList.id == foreign(ListEntry.list_id)"
    )

    __table_args__ = (
        CheckConstraint("flag IN ('i', 'w', 'wi')", name="flag"),
        # The first N entries of a list by rating without sorting the list (reports.lists.list_lines).
        Index("ix_list_entry_list_rating", "list_id", "rating"),
        *data_checks("list_entry"),
    )


class Event(Versioned, Base):
    """A rated event (one imported tournament report file).

    A corrected file replaces it as a new version (a new id, `replaces` pointing back); the withdrawn
    version keeps its games, because withdrawn lists explain their ratings with them.
    """

    __tablename__ = "event"

    id: Mapped[intpk]
    name: Mapped[str] = mapped_column(String(200))
    city: Mapped[str | None] = mapped_column(String(100))
    federation: Mapped[str | None] = mapped_column(String(3))
    start_date: Mapped[dt.date] = mapped_column(Date)
    end_date: Mapped[dt.date] = mapped_column(Date)
    rating_type: Mapped[RatingType]
    official: Mapped[bool] = mapped_column(Boolean, default=False)
    time_control: Mapped[str | None] = mapped_column(String(100))
    rounds: Mapped[int] = mapped_column(Integer)
    period: Mapped[PeriodText] = mapped_column(index=True)  # the period that rates it
    natural_period: Mapped[PeriodText]  # by §7.1.3 from the end date; period > natural = late (§9.1)
    source_name: Mapped[str] = mapped_column(String(255))
    source_hash: Mapped[str] = mapped_column(String(64))  # one event per file and rating type
    replaces: Mapped[int | None] = mapped_column(ForeignKey("event.id"))  # the version this one corrects
    imported_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())
    # The section of a congress (import-trf --section "Major"): shown as "Bunratty 2011 — Major".
    section: Mapped[str | None] = mapped_column(String(100))
    # How the file was read (ratingdb.services.choices, JSON): replace-event reads a correction the same way.
    import_choices: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        UniqueConstraint("source_hash", "rating_type", name="uq_event_source_hash"),
        CheckConstraint(RATING_TYPE_CHECK, name="rating_type"),
        CheckConstraint("end_date >= start_date", name="dates"),
        CheckConstraint("period >= natural_period", name="period"),
        # As migration 0007 made them (the model had left them out until a test compared the CHECKs).
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        *data_checks("event"),
        {"sqlite_autoincrement": True},
    )


class EventLabel(Versioned, Base):
    """How an event is shown when `event edit` changed it: name, section and city, an audited version.

    The event row keeps what the file said (its period may be closed: the row cannot change); the current
    label, where there is one, is what every report, page and export shows (ratingdb.reports.titles).
    """

    __tablename__ = "event_label"

    id: Mapped[intpk]
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    section: Mapped[str | None] = mapped_column(String(100))
    city: Mapped[str | None] = mapped_column(String(100))

    __table_args__ = (
        UniqueConstraint("event_id", "is_current", name="uq_event_label_current"),
        UniqueConstraint("event_id", "version", name="uq_event_label_version"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        {"sqlite_autoincrement": True},
    )


class EventReview(Versioned, Base):
    """The officer's decision on an event after the integrity screen: rated or excluded, and why.

    An excluded event stays in the database and the close leaves it out (FIDE's right not to rate a
    tournament); `risk_level` is the screen's level when the decision was taken. Versioned like
    event_label: a changed decision withdraws the row before it (issue 50, migration 0027).
    """

    __tablename__ = "event_review"

    id: Mapped[intpk]
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(String(8))  # rate | exclude
    reason: Mapped[str] = mapped_column(Text)
    risk_level: Mapped[str] = mapped_column(String(6))  # none | low | medium | high

    __table_args__ = (
        UniqueConstraint("event_id", "is_current", name="uq_event_review_current"),
        UniqueConstraint("event_id", "version", name="uq_event_review_version"),
        CheckConstraint("decision IN ('rate', 'exclude')", name="decision"),
        CheckConstraint("risk_level IN ('none', 'low', 'medium', 'high')", name="risk_level"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        {"sqlite_autoincrement": True},
    )


class EventPlayer(Base):
    """A player's line in an event: starting rank, the rating and points the file showed."""

    __tablename__ = "event_player"

    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), primary_key=True)
    start_rank: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"), index=True)
    file_rating: Mapped[int | None] = mapped_column(Integer)  # informational: ratingdb rates from its lists
    points_x10: Mapped[int | None] = mapped_column(Integer)
    # What else the file said, kept so that `export-trf` writes it back (none of it is used for rating):
    final_rank: Mapped[int | None] = mapped_column(Integer)  # the 001 line's rank column (86–89)
    national_rating: Mapped[int | None] = mapped_column(Integer)  # its TRF26 national-rating line
    national_federation: Mapped[str | None] = mapped_column(String(3))  # the code opening that line
    # The club the federation column named, read as clubs (import-trf --federation-column, issue 47).
    club: Mapped[str | None] = mapped_column(String(10))

    __table_args__ = (
        UniqueConstraint("event_id", "player_id", name="uq_event_player_event_player"),
        *data_checks("event_player"),
    )


class FederationSetting(Base):
    """One setting of the federation the register serves, stored once (ratingdb.services.federation)."""

    __tablename__ = "federation_setting"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(100))


class EventRecord(Base):
    """A header record of the imported file, verbatim and in file order (012 name … 102 chief arbiter,
    112 deputies, 092 type, 132 round dates, TRF26 records): everything but the player lines.

    Kept so that `export-trf` writes the file's own header back; ratingdb reads what it rates from the
    parsed fields of event and game, never from here.
    """

    __tablename__ = "event_record"

    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1, 2, 3 … in the order of the file
    text: Mapped[str] = mapped_column(Text)  # the whole line, record code included

    __table_args__ = data_checks("event_record")


class Game(Base):
    """A pairing as recorded: TRF result codes kept, forfeits and byes included (black NULL for a bye)."""

    __tablename__ = "game"

    id: Mapped[intpk]
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    date: Mapped[dt.date | None] = mapped_column(Date)
    white_id: Mapped[int] = mapped_column(ForeignKey("player.id"), index=True)
    black_id: Mapped[int | None] = mapped_column(ForeignKey("player.id"), index=True)
    white_result: Mapped[str] = mapped_column(String(1))
    black_result: Mapped[str | None] = mapped_column(String(1))
    rated: Mapped[bool] = mapped_column(Boolean)  # played over the board (§5.1)
    colour_known: Mapped[bool] = mapped_column(Boolean, default=True)

    __table_args__ = data_checks("game")


class CalcPlayer(Base):
    """Calculation record, per player and published list: how the new entry was obtained."""

    __tablename__ = "calc_player"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)  # no foreign keys: migration 0016
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)
    method: Mapped[str] = mapped_column(String(10))  # change | initial | pool
    ro: Mapped[int | None] = mapped_column(Integer)  # rating on the list in force
    k_base: Mapped[int | None] = mapped_column(Integer)
    k: Mapped[int | None] = mapped_column(Integer)  # after the 700 rule
    n: Mapped[int] = mapped_column(Integer)
    score_x100: Mapped[Hundredths]
    sum_dr_x100: Mapped[int | None] = mapped_column(Integer)  # Σ(score − PD)
    k_sum_dr_x100: Mapped[int | None] = mapped_column(Integer)  # K × Σ(score − PD), unrounded
    change: Mapped[int | None] = mapped_column(Integer)
    opponent_sum: Mapped[int | None] = mapped_column(Integer)  # initial rating: Σ opponent ratings
    p_x100: Mapped[int | None] = mapped_column(Integer)
    dp: Mapped[int | None] = mapped_column(Integer)
    new_rating: Mapped[int | None] = mapped_column(Integer)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (CheckConstraint("method IN ('change', 'initial', 'pool')", name="method"),)


class CalcListEvent(Base):
    """Calculation record, per list and event: the list the event took its ratings from, and its note."""

    __tablename__ = "calc_list_event"

    list_id: Mapped[int] = mapped_column(ForeignKey("rating_list.id"), primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), primary_key=True, index=True)
    ratings_list_id: Mapped[int] = mapped_column(ForeignKey("rating_list.id"))
    note: Mapped[str | None] = mapped_column(Text)


class CalcGame(Base):
    """Calculation record, per player and game: the ratings used, D after the cap, PD and score.

    Keys: the primary key (every read is by list and player) only; the ids are ones the close read in its
    own transaction, and the guards keep them valid (migrations 0013 and 0016, docs).
    """

    __tablename__ = "calc_game"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(6))  # rated (changes a rating) | pool (toward an initial rating)
    opponent_id: Mapped[int] = mapped_column(Integer)
    own_rating: Mapped[int | None] = mapped_column(Integer)
    opponent_rating: Mapped[int] = mapped_column(Integer)
    d: Mapped[int | None] = mapped_column(Integer)  # after the 400-point rule
    pd_x100: Mapped[int | None] = mapped_column(Integer)
    score_x100: Mapped[Hundredths]

    __table_args__ = (CheckConstraint("kind IN ('rated', 'pool')", name="kind"),)


class Glicko2Entry(Base):
    """A Glicko-2 list's figures per player, beside its list_entry row (whose rating is these rounded to
    the whole point): rating and deviation in hundredths, volatility in millionths (ratingdb.rating.glicko2
    `published`). Sealed with the list like list_entry (migration 0019); no foreign keys, as 0016."""

    __tablename__ = "glicko2_entry"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rating_x100: Mapped[int] = mapped_column(Integer)
    deviation_x100: Mapped[int] = mapped_column(Integer)
    volatility_x1e6: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        CheckConstraint("deviation_x100 > 0", name="deviation"),
        CheckConstraint("volatility_x1e6 > 0", name="volatility"),
    )


class Glicko2CalcPlayer(Base):
    """Calculation record of a Glicko-2 close, per player (Glickman's steps 2–8), played or only widened.

    The figures before (as the list in force published them) and after (unrounded floats; the list rounds
    them), with μ, φ, v, Δ, σ′, φ* and the Illinois iterations; v and Δ are NULL for a period without games.
    """

    __tablename__ = "glicko2_calc_player"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)
    games: Mapped[int] = mapped_column(Integer)
    newcomer: Mapped[bool] = mapped_column(Boolean)  # not rated on the list in force: Step 1's values
    rating_x100: Mapped[int] = mapped_column(Integer)  # before the period
    deviation_x100: Mapped[int] = mapped_column(Integer)
    volatility_x1e6: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Double)
    phi: Mapped[float] = mapped_column(Double)
    v: Mapped[float | None] = mapped_column(Double)
    delta: Mapped[float | None] = mapped_column(Double)
    new_sigma: Mapped[float] = mapped_column(Double)
    phi_star: Mapped[float] = mapped_column(Double)
    phi_star_capped: Mapped[bool] = mapped_column(Boolean)
    new_phi: Mapped[float] = mapped_column(Double)
    new_mu: Mapped[float] = mapped_column(Double)
    iterations: Mapped[int] = mapped_column(Integer)
    note: Mapped[str | None] = mapped_column(Text)


class Glicko2CalcGame(Base):
    """Calculation record of a Glicko-2 close, per player and game: the opponent's rating and deviation
    before the period, g(φⱼ), E and the score."""

    __tablename__ = "glicko2_calc_game"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer)
    opponent_id: Mapped[int] = mapped_column(Integer)
    opponent_rating_x100: Mapped[int] = mapped_column(Integer)
    opponent_deviation_x100: Mapped[int] = mapped_column(Integer)
    g: Mapped[float] = mapped_column(Double)
    e: Mapped[float] = mapped_column(Double)
    score_x100: Mapped[Hundredths]


class GlickoEntry(Base):
    """A Glicko list's figures per player (Glickman's first system), beside its list_entry row (whose
    rating is this one rounded to the whole point): rating and deviation in hundredths. Sealed with the
    list like list_entry (migration 0027_systems); no foreign keys, as 0016."""

    __tablename__ = "glicko_entry"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rating_x100: Mapped[int] = mapped_column(Integer)
    deviation_x100: Mapped[int] = mapped_column(Integer)

    __table_args__ = (CheckConstraint("deviation_x100 > 0", name="deviation"),)


class GlickoCalcPlayer(Base):
    """Calculation record of a Glicko close, per player, played or only widened: the figures before (as
    the list in force published them, a newcomer's Step 1 values), Step 1's deviation at the onset (grown
    by c, at most the maximum), d² and Σ g(RDⱼ)(sⱼ − E) (NULL without games), the new rating and
    deviation unrounded (the list rounds them)."""

    __tablename__ = "glicko_calc_player"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)
    games: Mapped[int] = mapped_column(Integer)
    newcomer: Mapped[bool] = mapped_column(Boolean)
    rating_x100: Mapped[int] = mapped_column(Integer)  # before the period
    deviation_x100: Mapped[int] = mapped_column(Integer)
    onset_deviation: Mapped[float] = mapped_column(Double)
    grown_to_maximum: Mapped[bool] = mapped_column(Boolean)
    d2: Mapped[float | None] = mapped_column(Double)
    improvement: Mapped[float | None] = mapped_column(Double)
    new_rating: Mapped[float] = mapped_column(Double)
    new_deviation: Mapped[float] = mapped_column(Double)
    note: Mapped[str | None] = mapped_column(Text)


class GlickoCalcGame(Base):
    """Calculation record of a Glicko close, per player and game: the opponent's rating and deviation at
    the onset of the period, g(RDⱼ), E and the score."""

    __tablename__ = "glicko_calc_game"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer)
    opponent_id: Mapped[int] = mapped_column(Integer)
    opponent_rating_x100: Mapped[int] = mapped_column(Integer)
    opponent_deviation: Mapped[float] = mapped_column(Double)
    g: Mapped[float] = mapped_column(Double)
    e: Mapped[float] = mapped_column(Double)
    score_x100: Mapped[Hundredths]


class View(DeclarativeBase):
    """Views the migrations create, mapped for reading: outside Base.metadata, so nothing creates them
    from here and `alembic check` compares only tables."""

    metadata = MetaData()


class CalcEvent(View):
    """Calculation record, per player, list and event (FIDE's individual calculation page): a view over
    calc_game, calc_list_event and calc_player's K (migration 0013)."""

    __tablename__ = "calc_event"

    list_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ratings_list_id: Mapped[int] = mapped_column(Integer)  # the list the ratings came from
    ro: Mapped[int | None] = mapped_column(Integer)
    rc_x100: Mapped[int] = mapped_column(Integer)  # average opponent rating × 100, half away from zero
    n: Mapped[int] = mapped_column(Integer)
    score_x100: Mapped[Hundredths]
    sum_dr_x100: Mapped[int | None] = mapped_column(Integer)
    k: Mapped[int | None] = mapped_column(Integer)
    k_sum_dr_x100: Mapped[int | None] = mapped_column(Integer)
    note: Mapped[str | None] = mapped_column(Text)


def table(model: type[Base]) -> Table:
    """The Core table of a model, for bulk inserts that should be one executemany."""
    return cast(Table, model.__table__)


class AuditEntry(Base):
    """One explicit change (a correction, a withdrawal, a new version): what, why, who, with which command.

    Append-only; versioned rows point at the entry that created or withdrew them (docs/versioning.md).
    """

    __tablename__ = "audit_log"

    id: Mapped[intpk]
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())
    action: Mapped[str] = mapped_column(String(40))
    detail: Mapped[str] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    actor: Mapped[str | None] = mapped_column(String(100))
    command: Mapped[str | None] = mapped_column(Text)

    __table_args__ = ({"sqlite_autoincrement": True},)


class PublicChange(Base):
    """One change the public sees (an import, a close, a correction, a register or rule-set edit): the
    newest id is the served site's data version (migration 0026; ratingdb.services.versions.public_change).
    Submissions, sign-ins and accounts never write one, so they never make a public page be made again."""

    __tablename__ = "public_change"

    id: Mapped[intpk]
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())

    __table_args__ = ({"sqlite_autoincrement": True},)


class StoredRuleSet(Versioned, Base):
    """A federation's rule set as added with `ratingdb rules add`: the file's text kept verbatim, hashed.

    Never changed: re-adding an edited file writes version n + 1 and withdraws version n
    (docs/versioning.md). Lists computed under a version point at it through `list_rule_set`.
    """

    __tablename__ = "rule_set"

    id: Mapped[intpk]
    name: Mapped[str] = mapped_column(String(64))
    rating_type: Mapped[RatingType]
    effective_from: Mapped[PeriodText]
    effective_until: Mapped[str | None] = mapped_column(String(7))
    content: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    source: Mapped[str | None] = mapped_column(String(255))  # the file name it was added from
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())

    __table_args__ = (
        UniqueConstraint("name", "is_current", name="uq_rule_set_current"),
        UniqueConstraint("name", "version", name="uq_rule_set_version"),
        CheckConstraint(RATING_TYPE_CHECK, name="rating_type"),
        CheckConstraint("is_current IS NULL OR is_current = TRUE", name="is_current"),
        CheckConstraint("(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name="withdrawn"),
        *data_checks("rule_set"),
        {"sqlite_autoincrement": True},
    )


class ListRuleSet(Base):
    """The exact stored rule set (version) a computed list was closed under; written with the list."""

    __tablename__ = "list_rule_set"

    list_id: Mapped[int] = mapped_column(ForeignKey("rating_list.id"), primary_key=True)
    rule_set_id: Mapped[int] = mapped_column(ForeignKey("rule_set.id"), index=True)


# -- the served site's signed-in side (migration 0021; ratingdb.services.users, ratingdb.services.submissions)

WEB_ROLES = ("organiser", "officer", "admin")
SUBMISSION_STATUSES = ("submitted", "changes_requested", "accepted", "rejected", "withdrawn", "replaced")


class WebUser(Base):
    """A person who signs in to the served site: an organiser, an officer or an admin (not a database
    account: ratingdb.accounts is about those). Only an argon2 hash of the password is kept."""

    __tablename__ = "web_user"

    id: Mapped[intpk]
    username: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(12))
    password_hash: Mapped[str] = mapped_column(String(255))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    failed_logins: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # Refused until then after its failures (ratingdb.services.users: a delay that doubles, then ends).
    locked_until: Mapped[dt.datetime | None] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())
    # The second factor (migration 0027; ratingdb.services.second_factor): the TOTP secret (RFC 6238,
    # base32), set when enrolment begins and in force once a code has confirmed it (`totp_enrolled_at`);
    # the last time step a code was taken for, so that no code is taken twice.
    totp_secret: Mapped[str | None] = mapped_column(String(64))
    totp_enrolled_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (
        CheckConstraint("role IN ('organiser', 'officer', 'admin')", name="role"),
        CheckConstraint("username <> '' AND username = lower(username)", name="username"),
        {"sqlite_autoincrement": True},
    )


class WebSession(Base):
    """The server-side record of a signed-in browser: the SHA-256 of its cookie's token, never the token."""

    __tablename__ = "web_session"

    id: Mapped[intpk]
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("web_user.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    address: Mapped[str | None] = mapped_column(String(64))
    # Signed in by password, the second factor's code still to come (migration 0027): such a session
    # opens no page but the code's, and lives a few minutes (ratingdb.services.second_factor).
    awaiting_code: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class RecoveryCode(Base):
    """A one-time code that stands in for the second factor when the device is lost: only its SHA-256 is
    kept (the codes are random, 80 bits each: a slow hash would add nothing), and `used_at` once used."""

    __tablename__ = "web_recovery_code"

    id: Mapped[intpk]
    user_id: Mapped[int] = mapped_column(ForeignKey("web_user.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class LoginFailure(Base):
    """The failed sign-ins from one address in one window (ratingdb.services.users.ADDRESS_WINDOW): one
    row counted up in place, what the address's delay reads; old rows are pruned."""

    __tablename__ = "login_failure"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_start: Mapped[dt.datetime] = mapped_column(DateTime, primary_key=True, index=True)
    failures: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Submission(Base):
    """A tournament file an organiser sent: its bytes and their SHA-256, the check made when it came, its
    status and the officer's decision; `event_id` is the event it became when accepted."""

    __tablename__ = "submission"

    id: Mapped[intpk]
    organiser_id: Mapped[int] = mapped_column(ForeignKey("web_user.id"), index=True)
    rating_type: Mapped[RatingType]
    note: Mapped[str | None] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(String(255))
    content: Mapped[bytes] = mapped_column(FileContent())
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    size: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(20), index=True)
    check_ok: Mapped[bool] = mapped_column(Boolean)
    check_text: Mapped[str] = mapped_column(Text)
    officer_reason: Mapped[str | None] = mapped_column(Text)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("web_user.id"))
    decided_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("event.id", ondelete="SET NULL"))
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("submission.id"))
    choices: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())
    # The whole check made when the file came, as JSON (migration 0026): shown by every view of the
    # submission, run again only by the officer's "check again" (None: sent before 0026).
    check_json: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        CheckConstraint(
            "status IN ('submitted', 'changes_requested', 'accepted', 'rejected', 'withdrawn', 'replaced')",
            name="status",
        ),
        CheckConstraint(RATING_TYPE_CHECK, name="rating_type"),
        {"sqlite_autoincrement": True},
    )


class PendingUpload(Base):
    """A corrected file checked on the replace page, kept until the officer replaces the event with it
    (migration 0023; ratingdb.services.submissions): bound to their browser's session and deleted with it,
    named in the page by a random token whose SHA-256 is kept here, never the token."""

    __tablename__ = "pending_upload"

    id: Mapped[intpk]
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("web_session.id", ondelete="CASCADE"), index=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id", ondelete="CASCADE"))
    file_name: Mapped[str] = mapped_column(String(255))
    content: Mapped[bytes] = mapped_column(FileContent())
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, server_default=func.current_timestamp())


NOTICE_CHOICES = ("at_once", "daily", "never")  # when an officer or admin hears that files wait
NOTICE_KINDS = (
    "accepted", "changes_requested", "rejected",  # the organiser: the officer's decision
    "waiting", "digest",  # officers and admins: a file waits (at once), the files waiting (daily)
    "role", "password", "second_factor", "address",  # the account's owner: a change of their account
    "reset",  # the link of a password reset asked for (ratingdb.services.password_reset)
)  # fmt: skip
NOTICE_STATUSES = ("waiting", "sent", "failed")


class UserContact(Base):
    """Where and how an account hears from the site (migration 0027_notices; ratingdb.services.notices):
    its email address, the language of its notices, and for officers and admins whether a file waiting
    is told at once, in a daily digest or never. An account without a row has no address: nothing is
    sent to it. A table of its own beside web_user, so that the account's other columns stay the sign-in's."""

    __tablename__ = "web_user_contact"

    user_id: Mapped[int] = mapped_column(ForeignKey("web_user.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str] = mapped_column(String(254), index=True)  # lower-cased: looked up by a reset
    language: Mapped[str] = mapped_column(String(2))
    files_waiting: Mapped[str] = mapped_column(String(8), default="daily", server_default="daily")
    # The last day (UTC) whose digest was considered: taken by one sender (an UPDATE), so that of several
    # workers only one sends it.
    digest_on: Mapped[dt.date | None] = mapped_column(Date)

    __table_args__ = (
        CheckConstraint("email <> '' AND email = lower(email)", name="email"),
        CheckConstraint("language IN ('en', 'de', 'fr')", name="language"),
        CheckConstraint("files_waiting IN ('at_once', 'daily', 'never')", name="files_waiting"),
    )


class Notice(Base):
    """An email notice waiting to be sent, sent, or given up on (ratingdb.services.notices): the queue
    the server's background sender and `ratingdb notices send` work through, with retries.

    The address and language are those of the queue's moment (a notice that an address was changed goes
    to the old one); `details` is the notice's facts as JSON (a submission's number and name, the
    officer's words, a role), rendered into text when it is sent, with the site's public address. No
    secret is ever stored here: a reset's link is made when its notice is sent (its hash is kept in
    password_reset)."""

    __tablename__ = "notice"

    id: Mapped[intpk]
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_user.id", ondelete="SET NULL"), index=True)
    address: Mapped[str] = mapped_column(String(254))
    language: Mapped[str] = mapped_column(String(2))
    kind: Mapped[str] = mapped_column(String(20))
    details: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(8), default="waiting", server_default="waiting")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime)
    next_try_at: Mapped[dt.datetime] = mapped_column(DateTime)
    # Taken by a sender until then (an UPDATE that one of several workers wins); a sender that died
    # while sending leaves it to be taken again after this time.
    claimed_until: Mapped[dt.datetime | None] = mapped_column(DateTime)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    last_error: Mapped[str | None] = mapped_column(String(500))

    __table_args__ = (
        CheckConstraint("status IN ('waiting', 'sent', 'failed')", name="status"),
        CheckConstraint(
            "kind IN ('accepted', 'changes_requested', 'rejected', 'waiting', 'digest', 'role', 'password', "
            "'second_factor', 'address', 'reset')",
            name="kind",
        ),
        Index("ix_notice_status_next_try_at", "status", "next_try_at"),
        {"sqlite_autoincrement": True},
    )


class PasswordReset(Base):
    """A password reset asked for by email (ratingdb.services.password_reset): the SHA-256 of its link's
    token (made when the notice is sent, so the token itself is never stored), when it expires, and when
    it was used — once."""

    __tablename__ = "password_reset"

    id: Mapped[intpk]
    user_id: Mapped[int] = mapped_column(ForeignKey("web_user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    requested_at: Mapped[dt.datetime] = mapped_column(DateTime)
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    address: Mapped[str | None] = mapped_column(String(64))  # the address that asked (for the audit)

    __table_args__ = ({"sqlite_autoincrement": True},)
