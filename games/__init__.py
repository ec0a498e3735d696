"""Each regulated game's round procedure: a transitions machine per game, fed by the table's queue.

Each game package declares itself in its ``__init__.py`` (``GAME``, a games.registry.Game) and
exposes ``TITLE``, ``machine_definition()`` (for games.diagrams), ``CLAUSES`` and its clause module
(for games.conformance); games.registry finds them all.
"""
