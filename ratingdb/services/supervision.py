"""What the volunteer's supervisor reads about a served site (`/metrics`, ratingdb.web.health): the
submissions waiting for an officer, the email notices by status, the last close of each rating type, the
database's size.

Read at scrape time, a handful of small queries on the session given; never per request.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ratingdb.engines.urls import backend_of
from ratingdb.schema.models import RatingList, Submission
from ratingdb.services.notices import counts


@dataclass(frozen=True)
class Gauges:
    waiting_submissions: int
    last_close: dict[str, dt.datetime]  # rating type -> when its newest computed list was written (UTC)
    database_bytes: int | None  # None where the engine cannot say cheaply
    notices: dict[str, int]  # the email notices waiting, sent and failed (ratingdb.services.notices)


def gauges(session: Session) -> Gauges:
    """The supervisor's gauges, read in `session` (which it does not change)."""
    waiting = session.scalar(
        select(func.count()).select_from(Submission).where(Submission.status == "submitted")
    )
    closes = session.execute(
        select(RatingList.rating_type, func.max(RatingList.created_at))
        .where(RatingList.origin == "computed", RatingList.is_current.is_(True))
        .group_by(RatingList.rating_type)
    ).all()
    connection = session.connection()
    size = backend_of(connection.engine.url).database_size(connection)
    return Gauges(
        waiting_submissions=int(waiting or 0),
        last_close={str(kind): at for kind, at in closes if at is not None},
        database_bytes=size,
        notices=counts(session),
    )
