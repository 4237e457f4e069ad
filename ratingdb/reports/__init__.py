"""Read-only reports over published lists and the calculation record; never re-rate, never commit."""
