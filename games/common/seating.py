"""The two orders of the seats around a table, used by all four games.

Position 1 is the player farthest to the dealer's left ("first base"). Deals and players' turns run
clockwise from there, so in ascending order; settlement and the pickup run from the player farthest
to the dealer's right, counterclockwise, so in descending order.
"""

from __future__ import annotations

from collections.abc import Iterable


def clockwise(seats: Iterable[int]) -> list[int]:
    """From the player farthest to the dealer's left (e.g. 672a.7(e), (h))."""
    return sorted(seats)


def counterclockwise(seats: Iterable[int]) -> list[int]:
    """From the player farthest to the dealer's right (e.g. 672a.7(r))."""
    return sorted(seats, reverse=True)
