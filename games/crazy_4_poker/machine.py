"""The Crazy 4 Poker round (dealt from the hand) as one transitions machine definition, shared by
every round, as every game's is (games/common/machine_parts.py).

``auto_transitions=False``; guards (``conditions``) check and may raise RuleViolation with the
clause; ``before`` callbacks change the round; ``after_state_change`` only records. Where several
transitions share a trigger and a source they are tried in the order listed: the irregular case
first.
"""

from __future__ import annotations

from games.common import machine_parts
from games.common.machine_parts import (
    BETTING,
    COMPLETE,
    HELD,
    SETTLED,
    VOIDED,
    message_of,
    rack_transitions,
    resolution_transitions,
)
from vocabulary.machines import Spec

__all__ = ["definition", "message_of", "shared_machine"]

LOCKING = "locking"
COUNTING = "counting"
DEALING = "dealing"
STUB = "stub"
MISDEAL_CHECK = "misdeal_check"
DECISIONS = "decisions"
SHOWDOWN = "showdown"

STATES = [
    BETTING,
    LOCKING,
    COUNTING,
    DEALING,
    STUB,
    MISDEAL_CHECK,
    DECISIONS,
    SHOWDOWN,
    SETTLED,
    VOIDED,
    HELD,
    COMPLETE,
]
STATE_NOTES = {
    BETTING: "wagers placed; the shuffler reports the deck (657a.9(a)(1)); the deck hand chosen (a)(2)",
    LOCKING: "no more bets: waiting for the progressive system's lock and accepted count (657a.9(a)(3))",
    COUNTING: "the dealer's chip count is checked against the system's accepted count (657a.9(a)(3))",
    DEALING: "Six Card Bonus card, then one card at a time clockwise until each has five (657a.9(b))",
    STUB: "the stub goes to the discard rack (657a.9(c)), counted when due (d), (e)",
    MISDEAL_CHECK: "a wrong stub count: the dealer counts each hand's cards (657a.9(f))",
    DECISIONS: "each player plays 1x-3x the Ante or folds (published game rules)",
    SHOWDOWN: "the hands become known: the shuffler's order or the dealer's report (657a.9(a)(1))",
    SETTLED: "wagers settled by the configured pay tables; progressive awards output",
    VOIDED: "all hands void, all wagers returned (657a.9(f), or a supervisor's ruling)",
    HELD: "an irregularity the section does not resolve: a supervisor rules CONTINUE or VOID",
    COMPLETE: "every card on the layout in the discard rack; the round is over",
}
BEFORE_DEAL = [BETTING, LOCKING, COUNTING]
#: Where a supervisor's CONTINUE can take a held round (irregularities.py says which, per kind).
RESUMABLE = [DEALING, SHOWDOWN, COMPLETE]


def _two_ways(trigger: str, source: str, dest: str, *, irregular: Spec, regular: Spec) -> list[Spec]:
    """A trigger tried first as its irregular (or alternative) case, then as its ordinary one."""
    return [
        dict(trigger=trigger, source=source, **irregular),
        dict(trigger=trigger, source=source, dest=dest, **regular),
    ]


def _transitions() -> list[Spec]:
    t: list[Spec] = [
        dict(
            trigger="place_wagers",
            source=BETTING,
            dest=None,
            conditions="wagers_are_valid",
            before="accept_wagers",
        ),
        dict(
            trigger="shuffle_report",
            source=BETTING,
            dest=None,
            conditions="shuffle_is_good",
            before="note_shuffle",
        ),
        dict(
            trigger="choose_hand",
            source=[*BEFORE_DEAL, DEALING, STUB],
            dest=None,
            conditions="hand_is_kept",
            before="note_hand",
        ),
        *_two_ways(
            "no_more_bets",
            BETTING,
            DEALING,
            irregular=dict(
                dest=LOCKING, conditions=["deal_may_start", "progressive_offered"], before="close_betting"
            ),
            regular=dict(conditions="deal_may_start", before="close_betting"),
        ),
        *_two_ways(
            "progressive_locked",
            LOCKING,
            DEALING,
            irregular=dict(dest=COUNTING, conditions="chips_to_count", before="note_lock"),
            regular=dict(before="note_lock"),
        ),
        *_two_ways(
            "chip_count",
            COUNTING,
            DEALING,
            irregular=dict(dest=HELD, conditions="chips_mismatch", before="hold_chip_count"),
            regular=dict(before="note_chip_count"),
        ),
        dict(
            trigger="card_dealt",
            source=DEALING,
            dest=HELD,
            conditions=["deck_in_chosen_hand", "card_out_of_order"],
            before="hold_card",
        ),
        dict(
            trigger="card_dealt", source=DEALING, dest=STUB, conditions="completes_deal", before="place_card"
        ),
        dict(trigger="card_dealt", source=DEALING, dest=None, before="place_card"),
        dict(
            trigger="stub_to_rack",
            source=STUB,
            dest=DECISIONS,
            conditions="stub_count_not_due",
            before="stub_away",
        ),
        *_two_ways(
            "stub_count",
            STUB,
            DECISIONS,
            irregular=dict(dest=MISDEAL_CHECK, conditions="stub_count_is_wrong", before="note_wrong_count"),
            regular=dict(before="stub_counted_right"),
        ),
        dict(
            trigger="hand_counts",
            source=MISDEAL_CHECK,
            dest=VOIDED,
            conditions="counts_cover_hands",
            before="void_for_count",
        ),
    ]
    for trigger, guard in (("play", "play_is_valid"), ("fold", "fold_is_valid")):
        t += _two_ways(
            trigger,
            DECISIONS,
            DECISIONS,
            irregular=dict(dest=SHOWDOWN, conditions=[guard, "last_decision"], before="record_decision"),
            regular=dict(conditions=guard, before="record_decision"),
        )
    t += [
        dict(
            trigger="reveal_order",
            source=SHOWDOWN,
            dest=HELD,
            conditions=["order_opens", "card_twice"],
            before="hold_card_twice",
        ),
        dict(
            trigger="reveal_order",
            source=SHOWDOWN,
            dest=None,
            conditions="order_opens",
            before="reconstruct_hands",
        ),
        dict(
            trigger="report_hand",
            source=SHOWDOWN,
            dest=None,
            conditions="report_is_valid",
            before="accept_report",
        ),
        dict(
            trigger="settle",
            source=SHOWDOWN,
            dest=HELD,
            conditions=["dealer_hand_is_known", "hand_unreported"],
            before="hold_unreported",
        ),
        *_two_ways(
            "settle",
            SHOWDOWN,
            SETTLED,
            irregular=dict(
                dest=HELD, conditions=["dealer_hand_is_known", "raise_is_illegal"], before="hold_raise"
            ),
            regular=dict(conditions="dealer_hand_is_known", before="settle_wagers"),
        ),
        dict(trigger="award_paid", source=SETTLED, dest=None, before="record_award"),
        *rack_transitions(
            "discard", wrong_count="discard_count_is_wrong", hold="hold_discard", record="record_discard"
        ),
        *resolution_transitions(RESUMABLE),
    ]
    return t


def definition() -> Spec:
    """The keyword arguments of the round's Machine (shared with games.diagrams)."""
    return machine_parts.definition(STATES, _transitions())


shared_machine = machine_parts.shared_machine_of(definition)
