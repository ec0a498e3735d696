"""The round of the 677a Hold 'Em game as one transitions machine definition, shared by every round.

One Machine serves every round (building one per round is slow; the guards read the round's own
RuleSet): a round joins it when made and leaves it when complete. ``auto_transitions=False``.
Guards (``conditions``) check and may raise RuleViolation with their clause; ``before`` callbacks
change the round; ``after_state_change`` only records. Where transitions share a trigger and a
source, the first whose guards pass is taken: an irregular delivery is caught before a regular one.
"""

from __future__ import annotations

from games.common import machine_parts
from games.common.machine_parts import (
    BETTING,
    COMPLETE,
    HELD,
    SETTLED,
    VOIDED,
    decision_transitions,
    held_arrival_transitions,
    opening_transitions,
    rack_transitions,
    resolution_transitions,
)
from vocabulary.machines import Spec

DEALING = "dealing"
STUB_OUT = "stub_out"
COMMUNITY = "community"
STUB = "stub"
MISDEAL_CHECK = "misdeal_check"
PREFLOP = "preflop"
FLOP = "flop"
RIVER = "river"
SHOWDOWN = "showdown"

STATES = [
    BETTING,
    DEALING,
    STUB_OUT,
    COMMUNITY,
    STUB,
    MISDEAL_CHECK,
    PREFLOP,
    FLOP,
    RIVER,
    SHOWDOWN,
    SETTLED,
    VOIDED,
    HELD,
    COMPLETE,
]
STATE_NOTES = {
    BETTING: "Ante and Odds Wagers (and side wagers) are placed; 'no more bets' starts the deal (677a.10(a))",
    DEALING: "two-card stacks face down, clockwise, then the dealer; (g): community first (677a.10(b))",
    STUB_OUT: "every stack delivered: the remaining cards removed from the shoe into the hand (677a.10(c))",
    COMMUNITY: "the stub is out of the shoe: five community cards face down from the hand (677a.10(c))",
    STUB: "the stub to the discard rack unexposed, counted when due (677a.10(c)-(e))",
    MISDEAL_CHECK: "the count was wrong: the dealer determines whether the cards were misdealt (677a.10(f))",
    PREFLOP: "each player in turn Plays 3x or checks (published game rules)",
    FLOP: "three community cards up: Play 2x or check (published game rules)",
    RIVER: "all five up: Play 1x or fold (published game rules)",
    SHOWDOWN: "the dealer's and every live hand turned up (published game rules)",
    SETTLED: "wagers settled from the dealer's right; cards to the discard rack",
    VOIDED: "all hands void, all wagers returned (677a.10(f) or a supervisor); cards to the rack",
    HELD: "an irregularity the section does not resolve: a supervisor rules CONTINUE or VOID",
    COMPLETE: "every card of the round in the discard rack",
}
ACTIVE = [state for state in STATES if state not in (HELD, COMPLETE)]
STREETS = [PREFLOP, FLOP, RIVER]
RESUMABLE = [*ACTIVE, COMPLETE]
DELIVERIES = {"stack_delivered": DEALING, "community_dealt": COMMUNITY}


def _deliveries() -> list[Spec]:
    """Cards out of the shoe or the hand: while held set aside; irregular ones hold the round."""
    return [
        *(
            transition
            for trigger in DELIVERIES
            for transition in held_arrival_transitions(
                trigger, ACTIVE, irregular="delivery_is_irregular", hold="hold_delivery"
            )
        ),
        dict(
            trigger="stack_delivered",
            source=DEALING,
            dest=PREFLOP,
            conditions=["completes_deal", "community_is_down"],
            before="place_stack",
        ),
        dict(
            trigger="stack_delivered",
            source=DEALING,
            dest=STUB_OUT,
            conditions="completes_deal",
            before="place_stack",
        ),
        dict(trigger="stack_delivered", source=DEALING, dest=None, before="place_stack"),
        # 677a.10(e); docs/protocol.md §5.6: cards the shoe let out unrecorded, racked unseen.
        dict(trigger="unseen_to_rack", source=[DEALING, STUB_OUT, HELD], dest=None, before="rack_unseen"),
        # 677a.10(c): the remaining cards out of the shoe, then the community cards from the hand.
        dict(
            trigger="stub_removed",
            source=STUB_OUT,
            dest=COMMUNITY,
            conditions="stub_holds_the_community",
            before="take_stub",
        ),
        dict(
            trigger="community_dealt",
            source=COMMUNITY,
            dest=STUB,
            conditions=["is_top_of_stub", "completes_community"],
            before="place_community",
        ),
        dict(
            trigger="community_dealt",
            source=COMMUNITY,
            dest=None,
            conditions="is_top_of_stub",
            before="place_community",
        ),
    ]


def _transitions() -> list[Spec]:
    return [
        # 677a.10(a): wagers, then 'no more bets' starts the deal.
        *opening_transitions(DEALING, deal_trigger="no_more_bets"),
        *_deliveries(),
        # 677a.10(c)-(f): the stub, counted when due; a wrong count leads to the misdeal finding.
        dict(
            trigger="stub_to_rack",
            source=STUB,
            dest=MISDEAL_CHECK,
            conditions=["stub_count_is_given", "count_is_wrong"],
            before="record_wrong_count",
        ),
        dict(
            trigger="stub_to_rack",
            source=STUB,
            dest=PREFLOP,
            conditions="stub_count_is_given",
            before="place_stub",
        ),
        dict(
            trigger="misdeal_finding",
            source=MISDEAL_CHECK,
            dest=VOIDED,
            before="void_for_misdeal",
        ),
        # Published game rules (not PA text): the decisions, street by street, and the community cards
        # revealed between.
        *decision_transitions(("play", "check", "fold"), STREETS),
        dict(
            trigger="reveal_community",
            source=[PREFLOP, FLOP],
            dest=HELD,
            conditions=["community_may_turn_up", "community_mismatches"],
            before="hold_reveal",
        ),
        dict(
            trigger="reveal_community",
            source=PREFLOP,
            dest=FLOP,
            conditions="community_may_turn_up",
            before="turn_up_community",
        ),
        dict(
            trigger="reveal_community",
            source=FLOP,
            dest=RIVER,
            conditions="community_may_turn_up",
            before="turn_up_community",
        ),
        dict(
            trigger="reveal_hand",
            source=[RIVER, SHOWDOWN],
            dest=HELD,
            conditions=["hand_may_turn_up", "hand_mismatches"],
            before="hold_reveal",
        ),
        dict(
            trigger="reveal_hand",
            source=[RIVER, SHOWDOWN],
            dest=SHOWDOWN,
            conditions="hand_may_turn_up",
            before="turn_up_hand",
        ),
        dict(
            trigger="settle",
            source=[RIVER, SHOWDOWN],
            dest=SETTLED,
            conditions="hands_are_up",
            before="settle_wagers",
        ),
        *rack_transitions(
            "collect", wrong_count="collect_count_is_wrong", hold="hold_collect", record="record_pickup"
        ),
        *resolution_transitions(RESUMABLE),
    ]


def definition() -> Spec:
    """The keyword arguments of the round's Machine (shared with games.diagrams)."""
    return machine_parts.definition(STATES, _transitions())


shared_machine = machine_parts.shared_machine_of(definition)
