"""The search index stores each name word's phonetic key: words that sound alike are found by one look-up

Revision ID: 0026_search
Revises: 0026_register
Create Date: 2026-12-07

`player find`, the site's search box and the API's search find names as people write them (issue 47):
"Kowalenko" finds "Kovalenko", "ruane kieran" finds "Ruane, Ciaran". A word spelt another way from its
first letters on is not in the index range of the search word's first letters, so each row of
`player_name_token` now also holds the word's phonetic key (`sound`: NYSIIS, from jellyfish, of the word
with its transliteration pairs written one way), indexed with the player, and a search reads the players
whose word has the search word's key. The rows already there are given their key here, with the key as
ratingdb.names.sound computed it when this migration was written (copied below: a migration is history).
"""

from __future__ import annotations

import re

import jellyfish
import sqlalchemy as sa
from alembic import op

revision = "0026_search"
down_revision = "0026_register"
branch_labels = None
depends_on = None

BATCH = 5_000
TOKEN_LENGTH = 40
_FOLDS = (
    ("tsch", "h"), ("sch", "s"), ("tch", "h"), ("sh", "s"), ("sz", "s"), ("cz", "c"), ("kh", "h"),
    ("ch", "h"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("ks", "x"), ("cs", "x"),
    ("wa", "va"), ("we", "ve"), ("wi", "vi"), ("wo", "vo"), ("wu", "vu"), ("wy", "vy"), ("w", ""),
    ("j", "i"), ("y", "i"), ("ou", "u"),
)  # fmt: skip
_FOLD = re.compile("|".join(a for a, _ in _FOLDS))
_FOLD_AS = dict(_FOLDS)
_DOUBLED = re.compile(r"(.)\1+")


def _sound(word: str) -> str:
    folded = _DOUBLED.sub(r"\1", _FOLD.sub(lambda m: _FOLD_AS[m.group(0)], word))
    if not folded.isascii() or not folded.isalpha():
        return word[:TOKEN_LENGTH]
    return str(jellyfish.nysiis(folded))[:TOKEN_LENGTH]


def upgrade() -> None:
    op.add_column("player_name_token", sa.Column("sound", sa.String(40), nullable=True))
    bind = op.get_bind()
    last = ""
    while True:  # each distinct word once, in index order
        words = bind.execute(
            sa.text(
                "SELECT DISTINCT token FROM player_name_token WHERE token > :last ORDER BY token LIMIT :n"
            ),
            {"last": last, "n": BATCH},
        ).scalars().all()  # fmt: skip
        if not words:
            break
        bind.execute(
            sa.text("UPDATE player_name_token SET sound = :sound WHERE token = :token"),
            [{"sound": _sound(w), "token": w} for w in words],
        )
        last = words[-1]
    op.create_index(op.f("ix_player_name_token_sound"), "player_name_token", ["sound", "player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_player_name_token_sound"), "player_name_token")
    with op.batch_alter_table("player_name_token") as batch_op:
        batch_op.drop_column("sound")
