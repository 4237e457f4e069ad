"""SQL that MySQL and MariaDB need written their own way, for the migrations' MySQL branches.

What differs from SQLite and PostgreSQL, and how the migrations handle it:
- A trigger fires for one action (INSERT, UPDATE or DELETE), so a guard is one trigger per action.
- A trigger refuses with `SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '...'`; the message reaches the
  client as the error text, as RAISE does on the other two.
- TRUNCATE fires no trigger on MySQL: an immutable table is protected from it only by the foreign keys
  that point at it (and by not granting DROP). The migrations say so where it matters.
- DDL commits implicitly: a migration that fails half-way leaves what it had done. Keep each MySQL
  branch in an order where a rerun after fixing the cause is possible.

Migrations import these functions, so what a function emits must never change once a migration uses it:
add a new function instead.
"""

from __future__ import annotations

from sqlalchemy import Connection

# Names compare and sort as on SQLite and on PostgreSQL's C collation: by code point, accents and case
# significant ('Müller' is not 'Muller', 'de Vries' is not 'De Vries'), no trailing-space padding, so
# UNIQUE keys, lookups and ORDER BY name give the same answers on all three engines. MySQL's default
# (utf8mb4_general_ci / _0900_ai_ci) would make 'MÜLLER' equal 'muller'.
BYTE_ORDER_COLLATION = {"mariadb": "utf8mb4_nopad_bin", "mysql": "utf8mb4_0900_bin"}


def byte_order_collation(bind: Connection) -> str:
    """The byte-order utf8mb4 collation of this server (MariaDB and MySQL 8 name it differently)."""
    return BYTE_ORDER_COLLATION["mariadb" if getattr(bind.dialect, "is_mariadb", False) else "mysql"]


def refusal_trigger(name: str, action: str, table: str, message: str, condition: str | None = None) -> str:
    """CREATE TRIGGER refusing `action` ("INSERT", "UPDATE" or "DELETE") on `table` with `message`.

    `condition` (SQL over NEW/OLD) limits the refusal to rows it holds for; without one every row is
    refused. The message is a plain sentence: no quotes in it.
    """
    if "'" in message:
        raise ValueError("a trigger message cannot hold a quote")
    refuse = f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}'"
    body = refuse if condition is None else f"IF {condition} THEN {refuse}; END IF"
    return f"CREATE TRIGGER {name} BEFORE {action} ON {table} FOR EACH ROW BEGIN {body}; END"


def published_list_date(period: str) -> str:
    """SQL for the first day after the period (a 'YYYY-MM' expression): the date of the list it publishes."""
    return f"(CAST(CONCAT({period}, '-01') AS DATE) + INTERVAL 1 MONTH)"
