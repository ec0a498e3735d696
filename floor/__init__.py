"""``croupier floor``: the floor service that hears every table of a property on the broker,
counts each message once, keeps its state in SQLite or PostgreSQL, witnesses every table's trail
heads and serves the floor view (docs/floor.md; decision 0036)."""
