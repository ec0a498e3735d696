"""How often a game dealt from one deck counts its stub: at least once every so many rounds of
play, unless a counting shuffler counted the deck (657a.9(d) for Crazy 4 Poker, 677a.10(d) for
Heads Up Hold 'Em). A table keeps the rounds dealt since the last count; these say whether the next
round's count is due, what the count becomes once a round is over, and what to save when the
service stops.
"""

from __future__ import annotations


def due(rounds_since: int, every: int) -> bool:
    """Whether the stub of the round about to be dealt is counted: ``rounds_since`` rounds were
    dealt since the last count, and this one makes ``every`` of them."""
    return rounds_since + 1 >= every


def after(rounds_since: int, *, counted: bool) -> int:
    """The rounds since the last count once a round is over: none if its stub (or its deck, by a
    counting shuffler) was counted, else one more."""
    return 0 if counted else rounds_since + 1


def saved(rounds_since: int, *, in_play: bool) -> int:
    """The rounds since the last count, as a restart resumes them. A round in play counts as a
    round whose stub was not counted: if the service stops in it, the round is cut off and voided,
    but cards were dealt from the deck, and the next round must not pass the interval without a
    count."""
    return after(rounds_since, counted=False) if in_play else rounds_since
