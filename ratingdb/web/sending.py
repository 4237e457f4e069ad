"""The served site's background sender of email notices: one thread per worker that sends what is due
(ratingdb.services.notices.send_due), woken by a request that queued a notice, else every `every` seconds.

Requests never send mail themselves: they write the notice in their own transaction and wake this thread
after the commit, so a slow or absent mail server slows no page. Of several workers' senders, each notice
is taken by one (send_due takes it by an UPDATE). A failure of the sender itself (the database gone for a
moment) is logged and tried again at the next round; it never stops the server.
"""

from __future__ import annotations

import logging
import threading

from ratingdb.db import UnitOfWork
from ratingdb.services.notices import NoticeSettings, send_due

log = logging.getLogger("ratingdb.web")


class Sender:
    """The thread that sends the notices of one app while it serves (`start` and `stop` in its lifespan)."""

    def __init__(self, work: UnitOfWork, settings: NoticeSettings, every: float) -> None:
        self.work = work
        self.settings = settings
        self.every = every
        self._woken = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="ratingdb-notices", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Send now (a notice was just queued and committed)."""
        self._woken.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the notice being sent, if any (at most `timeout` seconds)."""
        self._stopping.set()
        self._woken.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._woken.clear()
            try:
                report = send_due(self.work, self.settings)
                if report.retried or report.failed:
                    log.warning(
                        "email notices: %d sent, %d to try again later, %d failed: %s",
                        report.sent,
                        report.retried,
                        report.failed,
                        report.last_error,
                    )
            except Exception:
                log.exception("email notices: the sender failed; it tries again at its next round")
            self._woken.wait(self.every)
