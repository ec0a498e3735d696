"""Each regulated game's round procedure: a transitions machine per game, fed by the table's queue.

Each game package declares itself in its ``__init__.py`` (``GAME``, a games.registry.Game) and
exposes ``TITLE``, ``machine_definition()`` (for games.diagrams), ``CLAUSES`` and its clause module
(for games.conformance); games.registry finds them all.

Each game package holds the same files for the same jobs:

- ``clauses.py``: the rules the round cites; ``rules_config.py``: what the house configures
- ``inputs.py``: the messages the round is fed; ``records.py``: what it records, where its records need
  saying beyond games/common/records.py (Over/Under records only the common kinds: it has none)
- ``machine.py``: the round's one transitions machine; ``round.py``: the Round it runs, made of
  ``round_state.py`` (what the round holds: the typed base of the steps) and the steps:
- ``dealing.py``, ``playing.py``, ``closing.py``: the round's callbacks for the deal, the play and
  the end (settlement, the discard rack, a supervisor's ruling), mixed into the round
- ``irregularities.py``: what the round does or holds for; ``settlement.py``: what each wager gets
- ``positions.py``: what lies on a betting position (Crazy 4 Poker's: in settlement.py);
  ``stacked.py``: the devices stood in by a stack, for scenarios
- ``table_state.py``: what lasts from round to round, where the game's rules keep anything (Crazy 4
  Poker's stub count and deck, Heads Up Hold 'Em's stub count)
"""
