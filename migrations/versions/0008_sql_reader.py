"""A read-only role for `ratingdb sql` on PostgreSQL

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30

PostgreSQL only (SQLite and other engines: nothing to do). This migration:
- creates the role ratingdb_reader (NOLOGIN) unless it exists. Roles belong to the whole server and many
  databases share this one, so it is created idempotently (another database's migration may create it
  at the same moment) and never dropped;
- grants it USAGE on this schema and SELECT on its tables and views, and by ALTER DEFAULT PRIVILEGES on
  the tables and views later migrations create;
- creates ratingdb_read_only(statement text): a SECURITY DEFINER function owned by ratingdb_reader that
  runs one query. A query run through it has the reader's rights only, and PostgreSQL refuses SET ROLE
  and SET SESSION AUTHORIZATION inside a security-definer function, so the query cannot climb back to
  the connecting role (a plain SET LOCAL ROLE can be undone by `set_config('role', ...)` or a DO block).
  It becomes SECURITY DEFINER only after its owner is the reader, and EXECUTE is granted to the reader.
A migrating role that may not create roles or change owners skips this with a NOTICE; `ratingdb sql`
then refuses superusers and runs for other roles as themselves (README: Security).
Downgrade drops the function and revokes the grants in this database only; the role stays.
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

UPGRADE = r"""
DO $migration$
DECLARE
    schema_name text := current_schema();
    had_create boolean;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'ratingdb_reader') THEN
        BEGIN
            CREATE ROLE ratingdb_reader NOLOGIN;
        EXCEPTION
            -- Another database's migration created it meanwhile.
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'ratingdb_reader was not created (this role may not create roles): '
                    'ratingdb sql will refuse superusers and run other roles as themselves';
                RETURN;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO ratingdb_reader', schema_name);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO ratingdb_reader', schema_name);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO ratingdb_reader',
                   schema_name);
    BEGIN
        CREATE FUNCTION ratingdb_read_only(statement text) RETURNS SETOF record
            LANGUAGE plpgsql SET search_path FROM CURRENT
            AS $function$ BEGIN RETURN QUERY EXECUTE statement; END $function$;
        REVOKE ALL ON FUNCTION ratingdb_read_only(text) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION ratingdb_read_only(text) TO ratingdb_reader;
        -- A new owner needs CREATE on the schema; the reader has it only for this one statement.
        had_create := has_schema_privilege('ratingdb_reader', schema_name, 'CREATE');
        IF NOT had_create THEN
            EXECUTE format('GRANT CREATE ON SCHEMA %I TO ratingdb_reader', schema_name);
        END IF;
        ALTER FUNCTION ratingdb_read_only(text) OWNER TO ratingdb_reader;
        IF NOT had_create THEN
            EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM ratingdb_reader', schema_name);
        END IF;
        ALTER FUNCTION ratingdb_read_only(text) SECURITY DEFINER;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'ratingdb_read_only was not created (this role cannot make ratingdb_reader its owner): '
            'ratingdb sql will refuse superusers and run other roles as themselves';
    END;
END
$migration$
"""

DOWNGRADE = r"""
DO $migration$
DECLARE
    schema_name text := current_schema();
BEGIN
    DROP FUNCTION IF EXISTS ratingdb_read_only(text);
    IF EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'ratingdb_reader') THEN
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE SELECT ON TABLES FROM ratingdb_reader',
                       schema_name);
        EXECUTE format('REVOKE SELECT ON ALL TABLES IN SCHEMA %I FROM ratingdb_reader', schema_name);
        EXECUTE format('REVOKE USAGE ON SCHEMA %I FROM ratingdb_reader', schema_name);
    END IF;
END
$migration$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(UPGRADE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(DOWNGRADE)
