"""List bundles (issue 49): a published list with its inputs in one zip, and its recomputation from it.

Pure, as the rules and the file readers are: no database, no SQLAlchemy, no CLI. `archive` writes and
reads the zip (fixed timestamps, sorted members, the manifest's SHA-256 of every member), `inputs` reads
the members back into the rules' inputs, `systems/` recomputes a list by the rating system its manifest
names, `verify` compares the recomputation with the published list and its calculation record, and
`signing` signs and checks the manifest (Ed25519). docs/reference/bundle.md describes every member.
"""
