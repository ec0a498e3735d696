"""Each regulated game's round procedure: a transitions machine per game, fed by the table's queue.

``GAMES`` maps a game id to its package. Each package exposes ``GAME_ID``, ``TITLE``,
``machine_definition()`` (for games.diagrams), ``CLAUSES`` and its clause module (for
games.conformance); they are imported only when asked for.
"""

GAMES: dict[str, str] = {
    "free-bet-blackjack": "games.free_bet_blackjack",
    "heads-up-holdem": "games.heads_up_holdem",
    "crazy-4-poker": "games.crazy_4_poker",
    "over-under": "games.over_under",
}
