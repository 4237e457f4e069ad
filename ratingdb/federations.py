"""FIDE's federation codes, as data: what a player's federation may be (a code here, or nothing).

Source: FIDE's table of member federations, ratings.fide.com/top_federations.phtml, as read into
lichess-org/lila (modules/fide/src/main/Federation.scala); checked against it on 2026-12-07. FIDE adds a
code when a federation joins; add it here with the date. Codes that are also Irish club codes in the
ICU's files (BRA Brazil, CHA Chad, PHI Philippines) are why a file's federation column is never guessed
(ratingdb.services.matching, docs/guide/matching.md). No imports from the package.
"""

from __future__ import annotations

from typing import Final

AS_OF: Final = "2026-12-07"
SOURCE: Final = "ratings.fide.com/top_federations.phtml (via lichess-org/lila modules/fide Federation.scala)"

FIDE_FEDERATIONS: Final = frozenset(
    """
    AFG AHO ALB ALG AND ANG ANT ARG ARM ARU AUS AUT AZE BAH BAN BAR BDI BEL BER BHU BIH BIZ BLR BOL BOT
    BRA BRN BRU BUL BUR CAF CAM CAN CAY CHA CHI CHN CIV CMR COD COL COM CPV CRC CRO CUB CYP CZE DEN DJI
    DMA DOM ECU EGY ENG ERI ESA ESP EST ETH FAI FID FIJ FIN FRA GAB GAM GCI GEO GEQ GER GHA GRE GRN GUA
    GUM GUY HAI HKG HON HUN INA IND IOM IRI IRL IRQ ISL ISR ISV ITA IVB JAM JCI JOR JPN KAZ KEN KGZ KOR
    KOS KSA KUW LAO LAT LBA LBN LBR LCA LES LIE LTU LUX MAC MAD MAR MAS MAW MDA MDV MEX MGL MKD MLI MLT
    MNC MNE MOZ MRI MTN MYA NAM NCA NED NEP NGR NIG NOR NRU NZL OMA PAK PAN PAR PER PHI PLE PLW PNG POL
    POR PUR QAT ROU RSA RUS RWA SCO SEN SEY SGP SKN SLE SLO SMR SOL SOM SRB SRI SSD STP SUD SUI SUR SVK
    SWE SWZ SYR TAN THA TJK TKM TLS TGA TOG TPE TTO TUN TUR UAE UGA UKR URU USA UZB VAN VEN VIE VIN WLS
    YEM ZAM ZIM
    """.split()
)


def is_fide_federation(code: str | None) -> bool:
    """Whether `code` (as a file or a person writes it: any case, spaces around) is a FIDE federation."""
    return code is not None and code.strip().upper() in FIDE_FEDERATIONS
