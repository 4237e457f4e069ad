"""The schema as the code states it: models.py (typed models), checks.py (CHECKs), guards.py (triggers).

Above the rules and the readers (checks.py takes its numbers from ratingdb.formats.limits), below the
engines and the services. The migrations never import this package: each carries the SQL it ran.
This module imports nothing, so `import ratingdb.schema.guards` does not load SQLAlchemy's models.
"""
