"""What one web app holds between requests: its settings, its database and caches keyed by the data.

Every public page is a function of the public data alone, and every change to it writes a public change
(ratingdb.reports.live.data_version; submissions, sign-ins and desk views write none), so a page rendered
for one data version is served again until the next public change; published list versions never change
at all, so their lines are kept by list id.
No route code here.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from anyio import CapacityLimiter
from sqlalchemy.orm import Session
from sqlalchemy.util import await_
from sqlalchemy.util.concurrency import in_greenlet

from ratingdb.errors import ConfigError
from ratingdb.i18n import DEFAULT_LANGUAGE, LANGUAGES, check_language
from ratingdb.reports.list_query import RankedList
from ratingdb.reports.lists import ListColumns, ListLine, ListVersionLine, list_columns, list_lines
from ratingdb.reports.live import LiveList, live_list
from ratingdb.reports.systems import ListShown
from ratingdb.services.notices import NoticeSettings
from ratingdb.services.second_factor import check_requirement
from ratingdb.services.submissions import UploadLimits
from ratingdb.site.publish import Site, SiteOptions, new_site
from ratingdb.web.database import Database
from ratingdb.web.sending import Sender

K = TypeVar("K")
V = TypeVar("V")

DEFAULT_URL = "sqlite:///ratingdb.sqlite"


@dataclass(frozen=True)
class WebSettings:
    """How the app is configured: the same database URL as the CLI (RATINGDB_URL), a standby to read
    from (RATINGDB_READ_URL), the site's title and rating types, and the request limits."""

    url: str = DEFAULT_URL
    read_url: str | None = None
    title: str = "Rating lists"
    language: str = DEFAULT_LANGUAGE  # for a visitor whose browser asks for no language the site has
    rating_types: tuple[str, ...] = ()  # (): every type the database defines, resolved by create_app
    max_query_bytes: int = 2048  # a longer query string is refused (414)
    max_body_bytes: int = 16 * 1024  # the public side takes no uploads: a larger body is refused (413)
    # What a worker keeps between requests, bounded by size as well as by count (bench/RESULTS.md, issue
    # 28: a worker ≤ 200 MB): the rendered pages by their bytes (a national player's page is 10–90 KB;
    # 16 MB, for the histories kept too: each MB of pages held about 1.4 MB of a worker's memory, and
    # visitors to 20,000 players find few pages cached whatever the size — 6 % of random ones at 16 MB, 9 %
    # at 24), the published lists read whole by their lines (about 460 bytes a line in memory).
    cached_pages: int = 2000
    cached_page_bytes: int = 16 * 2**20
    cached_list_lines: int = 100_000
    # Every current list of the site's types in columns (ratingdb.reports.lists.ListColumns, about 13
    # bytes an entry): the players' histories, read from memory while the lists hold at most this many
    # entries in all, else by a query per page.
    cached_history_entries: int = 2_000_000
    # The signed-in side (ratingdb.web.desk): the largest tournament file taken, whether cookies are
    # marked Secure (sent over HTTPS only: turn off only for a test server on http://127.0.0.1), and the
    # key that signs the CSRF tokens (RATINGDB_SECRET; a random one per process when unset, so several
    # workers need it set: `serve --workers` sets one).
    max_upload_bytes: int = 2_000_000
    secure_cookies: bool = True
    secret: str | None = None
    # What one organiser may send (services.submissions.UploadLimits, issue 54): files an hour
    # (RATINGDB_UPLOADS_PER_HOUR), bytes kept not yet accepted (RATINGDB_UPLOAD_QUOTA_BYTES), and the days a
    # file refused by its check is kept (RATINGDB_REFUSED_DAYS).
    # Read from the environment when not given, so that every way of making the app (`serve`, with one
    # worker or several, `uvicorn ratingdb.web:app`) honours them.
    # `/metrics` for the supervisor (ratingdb.web.health): served only when allowed (`serve --metrics`,
    # RATINGDB_METRICS=1), else the address does not exist.
    metrics: bool = False
    # Who must have a second factor before using the desk (services.second_factor.REQUIREMENTS: none,
    # officer — officers and admins —, admin): `serve --require-2fa`, RATINGDB_REQUIRE_2FA.
    require_2fa: str = "none"
    upload_limits: UploadLimits = field(default_factory=lambda: upload_limits_from_environment())
    # Email notices (ratingdb.services.notices, ratingdb.web.sending): the SMTP server (RATINGDB_SMTP_URL,
    # none: notices wait in the queue, and `ratingdb notices send` may send them), the from-address
    # (RATINGDB_MAIL_FROM) and the site's public address its links start with (RATINGDB_PUBLIC_URL).
    smtp_url: str | None = None
    mail_from: str | None = None
    public_url: str | None = None
    notices_every: float = 30.0  # seconds between two looks at the queue when nothing wakes the sender

    @classmethod
    def from_environment(cls) -> WebSettings:
        types = os.environ.get("RATINGDB_TYPES")
        return cls(
            url=os.environ.get("RATINGDB_URL", DEFAULT_URL),
            read_url=os.environ.get("RATINGDB_READ_URL") or None,
            title=os.environ.get("RATINGDB_TITLE", "Rating lists"),
            language=check_language(os.environ.get("RATINGDB_LANG") or DEFAULT_LANGUAGE),
            rating_types=tuple(t.strip() for t in types.split(",") if t.strip()) if types else (),
            secret=os.environ.get("RATINGDB_SECRET") or None,
            secure_cookies=os.environ.get("RATINGDB_INSECURE_COOKIES", "") != "1",
            metrics=os.environ.get("RATINGDB_METRICS", "") == "1",
            smtp_url=os.environ.get("RATINGDB_SMTP_URL") or None,
            mail_from=os.environ.get("RATINGDB_MAIL_FROM") or None,
            public_url=os.environ.get("RATINGDB_PUBLIC_URL") or None,
            require_2fa=check_requirement(os.environ.get("RATINGDB_REQUIRE_2FA") or "none"),
        )


def upload_limits_from_environment() -> UploadLimits:
    """The upload limits RATINGDB_UPLOADS_PER_HOUR, RATINGDB_UPLOAD_QUOTA_BYTES and RATINGDB_REFUSED_DAYS
    give, each else its default (services.submissions.UploadLimits)."""
    return UploadLimits(
        per_hour=_whole("RATINGDB_UPLOADS_PER_HOUR", UploadLimits.per_hour),
        quota_bytes=_whole("RATINGDB_UPLOAD_QUOTA_BYTES", UploadLimits.quota_bytes),
        refused_days=_whole("RATINGDB_REFUSED_DAYS", UploadLimits.refused_days),
    )


def _whole(name: str, default: int) -> int:
    """A setting given as a whole number in the environment variable `name`, else `default`."""
    given = os.environ.get(name, "").strip()
    if not given:
        return default
    if not given.isdigit():
        raise ConfigError(f"{name} is '{given}': give a whole number (the default is {default})")
    return int(given)


def settled(value: V) -> V:
    """`value`, something the app has just made to keep while it serves (a site's index, a list's lines, a
    live list, the lists' columns), with Python's collector settled: one full collection, then everything
    alive set aside from the collector (gc.freeze; the frozen objects are still freed when no longer
    referenced, and the next settling collects them whole). Its passes over the oldest objects, which
    the requests set off every fifteen seconds or so under load, then skip what the app keeps: each was a
    pause of 60-100 ms (the served site's indexes), the slowest requests at 250 pages a second
    (bench/RESULTS.md, issue 28, "collector"). A pause of that length once each time something is made
    (at the first requests after a change of the data) instead."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return value


class LRU(Generic[K, V]):
    """A small thread-safe least-recently-used map: at most `size` entries and, with `weigh`, at most
    `budget` in their weights (the newest entry is kept whatever it weighs)."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None, budget: int = 0) -> None:
        self.size = size
        self.weigh = weigh
        self.budget = budget
        self.weight = 0
        self.items: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.Lock()
        self.making = threading.Lock()

    def get(self, key: K) -> V | None:
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        weigh = self.weigh
        with self.lock:
            old = self.items.pop(key, None)
            if weigh is not None:
                self.weight += weigh(value) - (0 if old is None else weigh(old))
            self.items[key] = value
            while len(self.items) > self.size or (
                weigh is not None and self.weight > self.budget and len(self.items) > 1
            ):
                _, dropped = self.items.popitem(last=False)
                if weigh is not None:
                    self.weight -= weigh(dropped)
        return value

    def made_once(self, key: K, make: Callable[[], V]) -> V:
        """The value for `key`, made by one thread while the others wait for it: for the values that take
        long to make (the site's index, a list's lines), which fifty visitors arriving together after a
        close would otherwise each make at once, every one of them slower for the others (bench/serve.py)."""
        found = self.get(key)
        if found is not None:
            return found
        with held(self.making):
            found = self.get(key)
            return found if found is not None else self.put(key, make())


# The live lists' types a page was made with while their recompute ran (AppState.live): set by `cached`
# around the making of a page, so that such a page is not kept. A context variable: each request (a thread
# of the pool, or a greenlet of the event loop) has its own.
STALE: ContextVar[list[str] | None] = ContextVar("ratingdb_stale_live", default=None)


def wait_for(event: threading.Event) -> None:
    """Wait until `event` is set; in a greenlet of the event loop by polling in the loop (as `held` waits
    for a lock), since blocking the loop's thread would stop the requests it serves."""
    if in_greenlet():
        while not event.is_set():
            await_(asyncio.sleep(0.005))
    else:
        event.wait()


@contextmanager
def held(lock: threading.Lock) -> Iterator[None]:
    """`lock`, held for the block. In a greenlet of the event loop (PostgreSQL's public routes,
    ratingdb.web.deps) a lock that another greenlet holds is waited for in the loop: blocking the loop's
    thread would also stop the greenlet that holds the lock, which waits for the loop to read its answer."""
    if not lock.acquire(blocking=False):
        if in_greenlet():
            while not lock.acquire(blocking=False):
                await_(asyncio.sleep(0.001))
        else:
            lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _page_bytes(page: Any) -> int:
    """What a cached page or download weighs: its bytes (anything else cached counts one byte)."""
    return len(page) if isinstance(page, bytes) else 1


@dataclass
class AppState:
    settings: WebSettings
    database: Database
    pages: LRU[tuple[Any, ...], Any] = field(init=False)
    lines: LRU[int, list[ListLine]] = field(init=False)
    rankings: LRU[tuple[int, bool], RankedList] = field(init=False)
    # How a version is shown: its system and figures (one small entry per published version).
    shown: dict[int, ListShown] = field(default_factory=dict)
    sites: LRU[tuple[int, str], Site] = field(default_factory=lambda: LRU(2 * len(LANGUAGES)))
    lives: LRU[tuple[int, str], LiveList] = field(default_factory=lambda: LRU(8))
    live_lock: threading.Lock = field(default_factory=threading.Lock)
    # The live lists made in the background (live, _recompute), per type: the newest made, the newest
    # data version asked for, the recompute running (set when done) and a failure for its waiters.
    latest_live: dict[str, LiveList] = field(default_factory=dict)
    live_wanted: dict[str, int] = field(default_factory=dict)
    live_running: dict[str, threading.Event] = field(default_factory=dict)
    live_failed: dict[str, Exception] = field(default_factory=dict)
    # The data version the latest request read: the next request's guess, checked by its first read
    # (ratingdb.web.deps.View).
    seen_version: int | None = None
    # The current lists' columns by list id (a list version never changes), replaced whole when the site's
    # lists change, under history_lock.
    history_columns: dict[int, ListColumns] = field(default_factory=dict)
    history_lock: threading.Lock = field(default_factory=threading.Lock)
    _public_threads: CapacityLimiter | None = field(default=None, init=False)
    # How email notices are sent (None: no SMTP server set, they wait in the queue) and the thread that
    # sends them while the app serves (ratingdb.web.sending; started and stopped by the app's lifespan).
    notices: NoticeSettings | None = None
    sender: Sender | None = None

    def wake_sender(self) -> None:
        """A request queued a notice and committed: the sender sends it now rather than at its next round."""
        if self.sender is not None:
            self.sender.wake()

    def __post_init__(self) -> None:
        settings = self.settings
        self.pages = LRU(settings.cached_pages, _page_bytes, settings.cached_page_bytes)
        self.lines = LRU(16, len, settings.cached_list_lines)
        self.rankings = LRU(16, len, settings.cached_list_lines)

    def public_threads(self) -> CapacityLimiter:
        """The threads the public routes run in (made in the event loop at the first request): as many as
        the reader engine has connections, its engine's `reader_threads` (ratingdb.engines)."""
        if self._public_threads is None:
            self._public_threads = CapacityLimiter(self.database.reader_backend.reader_threads)
        return self._public_threads

    def options(self, language: str) -> SiteOptions:
        return SiteOptions(
            title=self.settings.title, rating_types=self.settings.rating_types, language=language
        )

    def site(self, session: Session, version: int, language: str) -> Site:
        """The served site's index of lists and players for this data version, in `language`."""
        return self.site_of(lambda: session, version, language)

    def site_of(self, session: Callable[[], Session], version: int, language: str) -> Site:
        """`site`, the transaction that reads it given by `session` when it is made (a request whose site
        is made already reads nothing for it)."""
        found = self.sites.get((version, language))
        if found is not None:
            return found
        # The connection before the lock, the order in which every request takes them: a request holding
        # the lock while it waited for a connection, held by a request waiting for the lock, would wait for
        # ever on a pool of one (tests/site/test_served_threads.py).
        reading = session()
        return self.sites.made_once(
            (version, language), lambda: settled(new_site(reading, self.options(language), served=True))
        )

    def list_lines(self, session: Session, list_id: int) -> list[ListLine]:
        """Every line of a list version: a version never changes, so it is read once."""
        from ratingdb.schema.models import RatingList

        return self.lines.made_once(
            list_id, lambda: settled(list(list_lines(session, session.get_one(RatingList, list_id))))
        )

    def ranked(self, session: Session, list_id: int, *, as_shown: bool = True) -> RankedList:
        """A list version's lines ranked in the order its page shows them (ratingdb.site.publish.ranked_list;
        `as_shown` false: in the stored order, as the API pages them): made once per version."""
        from ratingdb.site.publish import ranked_list

        shown = self.list_shown(session, list_id) if as_shown else None
        return self.rankings.made_once(
            (list_id, as_shown), lambda: settled(ranked_list(self.list_lines(session, list_id), shown))
        )

    def list_shown(self, session: Session, list_id: int) -> ListShown:
        """How a list version is shown (ratingdb.reports.systems); read once, as its lines are."""
        from ratingdb.reports.systems import list_shown
        from ratingdb.schema.models import RatingList

        if list_id not in self.shown:
            self.shown[list_id] = list_shown(session, session.get_one(RatingList, list_id))
        return self.shown[list_id]

    def histories(
        self, session: Callable[[], Session], site: Site
    ) -> list[tuple[ListVersionLine, ListColumns]] | None:
        """The site's current lists with their columns, in the order of a player's history (by type and
        date), for the players' histories (reports.lists.history_in); None when they hold more entries
        than `cached_history_entries`. A list not read yet is read here, in the transaction `session`
        gives (after a close: the new one; at the first page: all of them, about a second for the national
        bench's 26)."""
        current = site.current
        if sum(lst.players for lst in current) > self.settings.cached_history_entries:
            return None
        columns = self.history_columns
        if any(lst.list_id not in columns for lst in current):
            reading = session()  # the connection before the lock (site_of says why)
            with held(self.history_lock):
                columns = self.history_columns
                if any(lst.list_id not in columns for lst in current):
                    read = {
                        lst.list_id: columns.get(lst.list_id) or list_columns(reading, lst.list_id)
                        for lst in current
                    }
                    self.history_columns = columns = settled(read)
        return [(lst, columns[lst.list_id]) for lst in current]

    def cached(self, key: tuple[Any, ...], make: Callable[[], V]) -> V:
        """The page of `key`, made by `make` if not kept; kept unless it was made with a previous live
        list (live, STALE): then the next visitor after the recompute gets the page made again."""
        found = self.pages.get(key)
        if found is not None:
            return found
        marks: list[str] = []
        token = STALE.set(marks)
        try:
            made = make()
        finally:
            STALE.reset(token)
        return made if marks else self.pages.put(key, made)

    def live(self, rating_type: str, version: int) -> LiveList:
        """The live list of a type for data version `version` (the request's). Computed on the primary in
        a transaction that is rolled back, in the background (issue 54): a request after a data change
        starts the one recompute of the type, if none runs, and is answered with the previous live list
        at once; the requests meanwhile get the same, and the next change waits for the recompute running
        (one at a time, at most one per change: changes that come while one runs are all in the next).
        Only the first live list of a type, with none before it, is waited for. A page made with a
        previous list is not kept (`cached` does not keep it: STALE)."""
        found = self.lives.get((version, rating_type))
        if found is not None:
            return found
        with held(self.live_lock):
            found = self.lives.get((version, rating_type))
            if found is not None:
                return found
            previous = self.latest_live.get(rating_type)
            if previous is not None and previous.as_of >= version:
                return previous  # a request whose version was read before the newest list was made
            self.live_wanted[rating_type] = max(self.live_wanted.get(rating_type, 0), version)
            running = self.live_running.get(rating_type)
            if running is None or running.is_set():
                self.live_failed.pop(rating_type, None)
                running = self.live_running[rating_type] = threading.Event()
                threading.Thread(
                    target=self._recompute,
                    args=(rating_type, running),
                    name=f"live-{rating_type}",
                    daemon=True,
                ).start()
        if previous is not None:
            marks = STALE.get()
            if marks is not None:
                marks.append(rating_type)
            return previous
        wait_for(running)
        found = self.latest_live.get(rating_type)
        if found is None:
            raise self.live_failed[rating_type]
        return found

    def _recompute(self, rating_type: str, done: threading.Event) -> None:
        """The live list of `rating_type` made again until it is as new as the newest version asked for;
        then `done` is set. A failure is kept for the requests waiting (`live` raises it) and the previous
        list dropped, so that the next request makes it again and reads the failure as its own."""
        try:
            while True:
                with self.live_lock:
                    wanted = self.live_wanted[rating_type]
                with self.database.live_session() as session:
                    made = live_list(session, rating_type)
                found = settled(made)  # the collector's pass with the transaction ended
                with self.live_lock:
                    self.lives.put((found.as_of, rating_type), found)
                    if found.as_of >= wanted:
                        self.lives.put((wanted, rating_type), found)
                    self.latest_live[rating_type] = found
                    if self.live_wanted[rating_type] <= found.as_of:
                        done.set()
                        return
        except Exception as error:  # every request waiting for it reads it (live)
            with self.live_lock:
                self.latest_live.pop(rating_type, None)
                self.live_failed[rating_type] = error
                done.set()

    def settle_live(self, timeout: float = 60.0) -> None:
        """Wait for the live lists being made (a test, or the app stopping)."""
        for running in list(self.live_running.values()):
            running.wait(timeout)
