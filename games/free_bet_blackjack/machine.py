"""The Free Bet Blackjack round as one transitions machine definition, shared by every round.

Building a Machine per round is slow, and the procedure does not change with the rule set (the
guards read the round's own RuleSet), so one Machine serves every round: a round joins it when it
is made and leaves it when it completes. ``auto_transitions=False``: no ``to_<state>()`` backdoor.
Guards (``conditions``) check and may raise RuleViolation, refusing the input with its clause;
``before`` callbacks change the round; ``after`` callbacks only record. Callbacks receive the
EventData (``send_event=True``), whose first argument is the message from inputs.py.

Where several transitions share a trigger and a source, transitions tries them in the order listed:
an irregular arrival is caught before a regular one, a missing card before an advance.
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
    decision_transitions,
    opening_transitions,
    rack_transitions,
    refusal_transitions,
    resolution_transitions,
    shoe_arrival_transitions,
)
from vocabulary.machines import Spec

DEALING = "dealing"
INSURANCE = "insurance"
PEEKING = "peeking"
DEALER_BLACKJACK = "dealer_blackjack"
PLAYER_TURNS = "player_turns"
DEALER_TURN = "dealer_turn"

STATES = [
    BETTING,
    DEALING,
    INSURANCE,
    PEEKING,
    DEALER_BLACKJACK,
    PLAYER_TURNS,
    DEALER_TURN,
    SETTLED,
    VOIDED,
    HELD,
    COMPLETE,
]
#: What each state means, for the diagram's legend.
STATE_NOTES = {
    BETTING: "wagers are placed; the deal waits for a ready shoe (672a.7(a), (c), (d), (e))",
    DEALING: "the initial deal, card by card (672a.7(e)(1)-(4))",
    INSURANCE: "the dealer shows an ace: insurance and even money (672a.7(f))",
    PEEKING: "waiting for the card reader's yes or no (672a.7(g))",
    DEALER_BLACKJACK: "the reader said Blackjack: no card is dealt; the hole card is turned up (672a.7(g))",
    PLAYER_TURNS: "clockwise: a Blackjack paid when reached, any other hand decides (672a.7(h)-(j))",
    DEALER_TURN: "the hole card is up; the dealer draws to 17 (672a.7(k)-(m))",
    SETTLED: "wagers settled in the designated order (672a.7(n)-(r)); cards to the discard rack (s)",
    VOIDED: "a supervisor voided the round: unsettled wagers returned; cards to the discard rack",
    HELD: "an irregularity the section does not resolve: a supervisor rules CONTINUE or VOID",
    COMPLETE: "every card in the discard rack; the round is over",
}
#: States in which the round takes input in the ordinary course (not held, not complete).
ACTIVE = [state for state in STATES if state not in (HELD, COMPLETE)]
#: States in which a card can be due from the shoe.
DEALING_STATES = [DEALING, PLAYER_TURNS, DEALER_TURN]
#: Where a supervisor's CONTINUE can take a held round.
RESUMABLE = [*ACTIVE, COMPLETE]
#: The dealer's steps forward; taken while a card is still due, each records a missing card.
ADVANCES = {
    DEALING: ["close_insurance", "peek_answer", "reveal_hole", "settle"],
    PLAYER_TURNS: ["reveal_hole", "settle"],
    DEALER_TURN: ["settle"],
}
DECISIONS = ["stand", "hit", "double_down", "split"]
#: States in which insurance is not (or no longer) offered: asking for it is refused with 672a.7(f).
NO_INSURANCE = [DEALING, PEEKING, DEALER_BLACKJACK, PLAYER_TURNS, DEALER_TURN]
#: Requests refused outright, so that the refusal names its clause: trigger -> (states, guard).
REFUSALS = {
    "insure": (NO_INSURANCE, "refuse_insurance"),
    "even_money": (NO_INSURANCE, "refuse_insurance"),
    "surrender": ([PLAYER_TURNS], "refuse_surrender"),
}


def _transitions() -> list[Spec]:
    t: list[Spec] = [
        # 672a.7(e): wagers, then the deal once the shoe is ready (672a.7(a), (c), (d)).
        *opening_transitions(DEALING),
        # Cards out of the shoe: irregular ones first, then the cover card, then the deal.
        *shoe_arrival_transitions(ACTIVE),
        dict(
            trigger="card_arrives",
            source=DEALING,
            dest=INSURANCE,
            conditions=["completes_deal", "dealer_shows_ace"],
            before="place_card",
        ),
        dict(
            trigger="card_arrives",
            source=DEALING,
            dest=PEEKING,
            conditions=["completes_deal", "dealer_shows_ten"],
            before="place_card",
        ),
        dict(
            trigger="card_arrives",
            source=DEALING,
            dest=PLAYER_TURNS,
            conditions="completes_deal",
            before=["place_card", "pay_blackjacks"],
        ),
        dict(trigger="card_arrives", source=DEALING_STATES, dest=None, before="place_card"),
    ]
    # A step forward while a card is due records a missing card; the round stays (the card is due).
    t += [
        dict(trigger=trigger, source=state, dest=None, conditions="card_is_due", after="record_missing_card")
        for state, triggers in ADVANCES.items()
        for trigger in triggers
    ]
    t += [
        # 672a.7(f): insurance and even money on an ace up card, then the peek (g).
        dict(
            trigger="insure",
            source=INSURANCE,
            dest=None,
            conditions="insurance_is_valid",
            before="accept_insurance",
        ),
        dict(
            trigger="even_money",
            source=INSURANCE,
            dest=None,
            conditions="even_money_is_valid",
            before="pay_even_money",
        ),
        *refusal_transitions(REFUSALS),
        dict(trigger="close_insurance", source=INSURANCE, dest=PEEKING),
        dict(
            trigger="peek_answer",
            source=PEEKING,
            dest=DEALER_BLACKJACK,
            conditions="reader_says_blackjack",
            before="note_peek",
        ),
        dict(
            trigger="peek_answer",
            source=PEEKING,
            dest=PLAYER_TURNS,
            before=["note_peek", "pay_blackjacks"],
        ),
        # 672a.7(h)-(j): the players' decisions; no surrender.
        *decision_transitions(DECISIONS, PLAYER_TURNS),
        # 672a.7(k): the hole card turned up, checked against its commitment and the reader.
        dict(
            trigger="reveal_hole",
            source=[PLAYER_TURNS, DEALER_BLACKJACK],
            dest=HELD,
            conditions=["decisions_are_done", "reveal_is_irregular"],
            before="hold_reveal",
        ),
        dict(
            trigger="reveal_hole",
            source=[PLAYER_TURNS, DEALER_BLACKJACK],
            dest=DEALER_TURN,
            conditions="decisions_are_done",
            before="turn_hole_card_up",
        ),
        # 672a.7(l)-(r): the dealer's draw, then settlement in the designated order.
        dict(trigger="settle", source=DEALER_TURN, dest=SETTLED, before="settle_wagers"),
        # 672a.7(s): the cards to the discard rack.
        *rack_transitions(
            "discard", wrong_count="discard_count_is_wrong", hold="hold_discard", record="record_pickup"
        ),
        # 672a.7(c): a new dealer burns a card before dealing any.
        *dealer_change_transitions([*ACTIVE, HELD]),
        *resolution_transitions(RESUMABLE),
    ]
    return t


def definition() -> Spec:
    """The keyword arguments of the round's Machine (shared with games.diagrams)."""
    return machine_parts.definition(STATES, _transitions())


shared_machine = machine_parts.shared_machine_of(definition)
