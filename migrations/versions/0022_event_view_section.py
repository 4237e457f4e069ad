"""v_event shows the section of each event

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01

A congress is several events of one name, one per section (`import-trf --section Major`, 0020): in
v_event the four sections of "Bunratty 2011" were four rows alike but for their IDs. The view gains the
column `section`, last so that the columns before it keep their places: the section the event is shown
with, which is the current event_label's where `event edit` wrote one (at most one is current, 0020), else
the file's --section; NULL for an event of no section. Everything else in the view is as 0007 made it.
The same SQL on SQLite, PostgreSQL and MariaDB/MySQL.
"""

from __future__ import annotations

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_V_EVENT = """
    SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
           ev.rating_type, CASE WHEN ev.official THEN 1 ELSE 0 END AS official, ev.rounds, ev.period,
           ev.natural_period, CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
           (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
           ev.source_name, ev.version, ev.replaces{section}
    FROM event ev{label} WHERE ev.is_current = TRUE
"""
WITH_SECTION = _V_EVENT.format(
    section=",\n           CASE WHEN lb.id IS NULL THEN ev.section ELSE lb.section END AS section",
    label="\n    LEFT JOIN event_label lb ON lb.event_id = ev.id AND lb.is_current = TRUE",
)
AS_0007 = _V_EVENT.format(section="", label="")


def upgrade() -> None:
    op.execute("DROP VIEW v_event")
    op.execute(f"CREATE VIEW v_event AS {WITH_SECTION}")


def downgrade() -> None:
    op.execute("DROP VIEW v_event")
    op.execute(f"CREATE VIEW v_event AS {AS_0007}")
