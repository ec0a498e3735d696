"""The Over/Under round as one transitions machine definition, shared by every round.

Building a Machine per round is slow and the procedure does not change with the rule set (the guards
read the round's own RuleSet), so one Machine serves every round: a round joins it when it is made
and leaves it when it completes. ``auto_transitions=False``: no ``to_<state>()`` backdoor. Guards
(``conditions``) check and may raise RuleViolation, refusing the input with its clause; ``before``
callbacks change the round; ``after`` callbacks only record. Callbacks receive the EventData
(``send_event=True``), whose first argument is the message from inputs.py.

The states a held round passes through (betting, settled, voided, held, complete) are named as in
Free Bet Blackjack, whose ``Hold`` this game shares. Where several transitions share a trigger and a
source, transitions tries them in the order listed: an irregular arrival is caught first.
"""

from __future__ import annotations

from games.common import machine_parts
from games.common.machine_parts import (
    BETTING,
    COMPLETE,
    HELD,
    SETTLED,
    VOIDED,
    dealer_change_transitions,
    message_of,
    opening_transitions,
    rack_transitions,
    refusal_transitions,
    resolution_transitions,
    shoe_arrival_transitions,
)
from vocabulary.machines import Spec

__all__ = [
    "BETTING",
    "CLEARING",
    "COMPLETE",
    "DEALING",
    "DECIDING",
    "DRAWING",
    "HELD",
    "SETTLED",
    "STATES",
    "STATE_NOTES",
    "VOIDED",
    "definition",
    "message_of",
    "shared_machine",
]

DEALING = "dealing"
DECIDING = "deciding"
DRAWING = "drawing"
CLEARING = "clearing"

STATES = [BETTING, DEALING, DECIDING, DRAWING, CLEARING, SETTLED, VOIDED, HELD, COMPLETE]
#: What each state means, for the diagram's legend.
STATE_NOTES = {
    BETTING: "Ante and Bonus Wagers are placed; the deal waits for a ready shoe (686a.7(a), (c), (d), (e))",
    DEALING: "one card face up to each Ante position, clockwise (686a.7(e))",
    DECIDING: "each player in turn, clockwise, elects Over 23, Under 18 or Surrender (686a.7(f)-(h))",
    DRAWING: "all have elected: two more cards face up to the next player, clockwise (686a.7(f), (i))",
    CLEARING: "that player is settled; the dealer puts the cards in the rack (686a.7(j)-(m))",
    SETTLED: "every player settled; the rack's count confirms the round (686a.7(n))",
    VOIDED: "a supervisor voided the round: unsettled wagers returned; cards to the discard rack",
    HELD: "an irregularity the section does not resolve: a supervisor rules CONTINUE or VOID",
    COMPLETE: "every card in the discard rack; the round is over",
}
#: States in which the round takes input in the ordinary course (not held, not complete).
ACTIVE = [state for state in STATES if state not in (HELD, COMPLETE)]
#: Where a supervisor's CONTINUE can take a held round.
RESUMABLE = [*ACTIVE, COMPLETE]
#: Requests refused outright, so that the refusal names its clause: trigger -> (states, guard).
REFUSALS = {
    "choose": ([BETTING, DEALING, DRAWING, CLEARING, SETTLED], "refuse_choice"),
    "clear_hand": ([BETTING, DEALING, DECIDING, DRAWING, SETTLED], "refuse_clear"),
}


def _transitions() -> list[Spec]:
    return [
        # 686a.7(e): wagers, then the deal once the shoe is ready (686a.7(a), (c), (d)).
        *opening_transitions(DEALING),
        # Cards out of the shoe: irregular ones first, then the cover card, then the card due.
        *shoe_arrival_transitions(ACTIVE),
        dict(
            trigger="card_arrives",
            source=DEALING,
            dest=DECIDING,
            conditions="completes_first_cards",
            before="place_card",
        ),
        dict(
            trigger="card_arrives",
            source=DRAWING,
            dest=CLEARING,
            conditions="completes_hand",
            before=["place_card", "settle_player"],
        ),
        dict(trigger="card_arrives", source=[DEALING, DRAWING], dest=None, before="place_card"),
        # 686a.7(f)-(h): every player's election, clockwise, before any additional card; the last
        # election opens the additional deal.
        dict(
            trigger="choose",
            source=DECIDING,
            dest=DRAWING,
            conditions=["choice_is_valid", "completes_elections"],
            before="apply_choice",
        ),
        dict(
            trigger="choose", source=DECIDING, dest=None, conditions="choice_is_valid", before="apply_choice"
        ),
        *refusal_transitions(REFUSALS),
        # 686a.7(i)-(j), player by player: the two cards settle the player (above); the cards go to
        # the rack; then the next player's two cards, or, after the last player, (n).
        dict(
            trigger="clear_hand",
            source=CLEARING,
            dest=DRAWING,
            conditions=["hand_is_current", "players_remain"],
            before="clear_player",
        ),
        dict(
            trigger="clear_hand",
            source=CLEARING,
            dest=SETTLED,
            conditions="hand_is_current",
            before="clear_player",
        ),
        # 686a.7(n): the rack's count for the whole round.
        *rack_transitions(
            "discard", wrong_count="discard_count_is_wrong", hold="hold_discard", record="record_pickup"
        ),
        # 686a.7(c): a new dealer burns a card before dealing any.
        *dealer_change_transitions([*ACTIVE, HELD]),
        *resolution_transitions(RESUMABLE),
    ]


def definition() -> Spec:
    """The keyword arguments of the round's Machine (shared with games.diagrams)."""
    return machine_parts.definition(STATES, _transitions())


shared_machine = machine_parts.shared_machine_of(definition)
