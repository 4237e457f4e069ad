"""A submission's check is stored as JSON (Submission.check_json) and shown from it: what is read back is
the check as made, every field with its own classes — a refused line as data, the register's differences,
the sex column not taken, the import's warnings."""

from __future__ import annotations

from ratingdb.errors import NAME_DIFFERS, SAME_ID, LineCandidate, OtherLine, UnresolvedLine
from ratingdb.services.matching import RegisterDifference, Resolution, UniformSex
from ratingdb.services.submissions import Check, Refusal


def test_a_stored_check_reads_back_as_it_was_made() -> None:
    differs = UnresolvedLine(
        "galway.trf", 12, 3, "Finnegan, Marc", "national 4191", NAME_DIFFERS, ("match", "new", "accept-name"),
        (LineCandidate("N4191", "Finnegan, Mark", "Finnegan, Mark (national 4191, born 1967, IRL)"),),
        detail="the names do not match (score 80, below 85)",
    )  # fmt: skip
    twice = UnresolvedLine(
        "galway.trf", 14, 5, "Ryan, Ann", "FIDE 2500123", SAME_ID, ("match", "drop"),
        conflict=OtherLine(13, 4, "Ryan, Anne"), drop=5,
    )  # fmt: skip
    made = Check(
        refusals=[
            Refusal(differs.as_options(), 12, 3, differs),
            Refusal(twice.as_options(), 14, 5, twice),
            Refusal("galway.trf line 2: the date is not a date", 2),
        ],
        event="'Galway Open': standard, period 2025-11; 34 players, 85 pairings",
        lines=[Resolution("galway.trf", 11, 2, "Doyle, Pat", "id", "FIDE 2500001, name 100")],
        new_players=["Nolan, Kate"],
        differences=[
            RegisterDifference(
                "galway.trf",
                11,
                2,
                "Doyle, Pat",
                "Doyle, Pat (FIDE 2500001)",
                "2500001",
                "federation",
                "IRL",
                "ENG",
            )
        ],
        uniform_sex=[UniformSex("galway.trf", "m", 34, 3, 1)],
        warnings=["'Galway Open' lasted 182 days"],
    )

    read = Check.from_json(made.to_json())

    assert read == made
    assert read.refusals[0].unresolved is not None
    assert read.refusals[0].unresolved.candidates[0].ident == "N4191"
    assert read.refusals[1].unresolved is not None and read.refusals[1].unresolved.conflict == OtherLine(
        13, 4, "Ryan, Anne"
    )
