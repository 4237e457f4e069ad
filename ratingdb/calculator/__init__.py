"""The calculators behind `ratingdb calc`: the rules composed into one player's calculation; no database.

Computing apart from explaining: `elo` and `glicko2` compute a calculation (every figure, nothing
rounded for show); `elo_text` and `glicko2_text` write one out, as the steps a player can check by hand
and as the figures for JSON. The modules import only ratingdb.rating, ratingdb.errors and each other;
this package module imports nothing, so `import ratingdb.calculator.elo` loads only what it needs.
"""
