"""The published website: a static site of lists, players, events and closes, built from the reports.

`publish.publish_site` is the entry point. Reads the database only through ratingdb.reports (so pages
follow the schema) and renders with Jinja2 templates; no CLI imports. Jinja2 is imported by the
modules below, never by `import ratingdb.site` alone.
"""
