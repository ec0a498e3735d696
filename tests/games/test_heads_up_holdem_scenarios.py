"""Whole rounds from stacked decks, one for each path: the dealer opens or not, a win, a tie, a
bad beat, a fold, the 3x/2x/1x Plays, the side wagers, the community cards first (677a.10(g)),
and the misdeal paths of 677a.10(f)."""

from __future__ import annotations

from games.common.messages import Resolution, SupervisorResolve
from games.heads_up_holdem import Round, RuleSet, clauses
from games.heads_up_holdem.inputs import (
    Choice,
    Collect,
    MisdealFinding,
    NoMoreBets,
    PlaceWager,
    PlayerDecision,
    Settle,
    StubToRack,
)
from games.heads_up_holdem.machine import COMPLETE, HELD, VOIDED
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.stacked import COMMUNITY_FIRST, READY, StackedDeck, arrange, start
from vocabulary.cards import Card
from vocabulary.operators import Operator, Role

PLAY, CHECK, FOLD = Choice.PLAY, Choice.CHECK, Choice.FOLD


def play_out(round_, shoe: StackedDeck, decisions: dict[int, list[tuple[Choice, int]]]) -> None:
    """Each seat's decisions street by street, the reveals between, the showdown and the rack."""
    queues = {seat: list(choices) for seat, choices in decisions.items()}
    for street in range(3):
        while (seat := round_.to_act) is not None:
            choice, multiple = queues[seat].pop(0)
            round_.handle(PlayerDecision(seat, choice, multiple))
        if street < 2:
            shoe.reveal_community(round_)
    live = [seat for seat, position in round_.positions.items() if position.live]
    if live:
        shoe.reveal_hand(round_, None)
    for seat in live:
        shoe.reveal_hand(round_, seat)
    round_.handle(Settle())
    round_.handle(Collect(len(round_.pickup_order())))
    assert round_.state == COMPLETE


def settled(round_) -> dict[tuple[int, str], tuple[str, int]]:
    return {(a.seat, a.wager.value): (a.movement.value, a.amount) for a in round_.actions}


def test_dealer_does_not_open_the_ante_pushes_and_a_flush_pays_3_to_2_on_the_odds():
    round_, shoe = start(arrange(["Ah 9h"], "Kc 7d", "2h 5h Jh 3s 8c"), {1: 1000})
    play_out(round_, shoe, {1: [(PLAY, 3)]})
    assert settled(round_) == {
        (1, "ante"): ("push", 1000),  # published game rules: K-high dealer does not open
        (1, "play"): ("pay", 3000),
        (1, "odds"): ("pay", 1500),
    }


def test_dealer_opens_a_pair_wins_ante_and_play_and_the_odds_push():
    round_, shoe = start(arrange(["Ks Kd"], "Qc Qd", "2h 5h 9c 3s 8c"), {1: 1000})
    play_out(round_, shoe, {1: [(CHECK, 0), (PLAY, 2)]})
    assert settled(round_) == {
        (1, "ante"): ("pay", 1000),
        (1, "play"): ("pay", 2000),
        (1, "odds"): ("push", 1000),
    }


def test_bad_beat_a_losing_straight_is_paid_on_the_odds():
    round_, shoe = start(arrange(["9c Td"], "Ah 4h", "Jh Qs Kh 2h 3c"), {1: 1000})
    play_out(round_, shoe, {1: [(CHECK, 0), (CHECK, 0), (PLAY, 1)]})
    assert settled(round_) == {
        (1, "ante"): ("collect", 1000),
        (1, "play"): ("collect", 1000),
        (1, "odds"): ("pay", 1000),  # straight 1 to 1 on the losing-Odds table
    }
    assert round_.net(1) == -1000


def test_royal_flush_pays_500_to_1_and_a_tie_pushes_everything():
    round_, shoe = start(arrange(["As Ks", "2d 3d"], "7c 7h", "Qs Js Ts 7d 2c"), {1: 100, 2: 100})
    play_out(round_, shoe, {1: [(PLAY, 3)], 2: [(CHECK, 0), (CHECK, 0), (FOLD, 0)]})
    assert settled(round_)[(1, "odds")] == ("pay", 50000)
    assert settled(round_)[(2, "ante")] == ("collect", 100)

    round_, shoe = start(arrange(["2c 3d"], "2h 3s", "As Ks Qd Jc 9h"), {1: 100})
    play_out(round_, shoe, {1: [(CHECK, 0), (CHECK, 0), (PLAY, 1)]})
    assert {movement for movement, _ in settled(round_).values()} == {"push"}


def test_odd_cents_of_3_to_2_round_as_configured():
    deck = arrange(["Ah 9h"], "Kc 7d", "2h 5h Jh 3s 8c")
    for rounding, paid in (("down", 499), ("up", 500)):
        round_, shoe = start(deck, {1: 333}, rules=RuleSet.example(odd_cent_rounding=rounding))
        play_out(round_, shoe, {1: [(PLAY, 3)]})
        assert settled(round_)[(1, "odds")] == ("pay", paid)


def test_trips_plus_and_pocket_bonus_pay_by_their_configured_tables():
    rules = RuleSet.example(
        trips_plus_pay_table={"three_of_a_kind": "3:1", "flush": "7:1"},
        pocket_bonus_pay_table={"aces": "30:1", "ace_king": "15:1"},
    )
    round_, shoe = start(
        arrange(["As Ad", "Ac Kd"], "2c 3c", "Ah 9d 7s 5c Th"),
        {1: (100, 50, 10), 2: (100, 50, 10)},
        rules=rules,
    )
    play_out(round_, shoe, {1: [(PLAY, 3)], 2: [(PLAY, 3)]})
    moves = settled(round_)
    assert moves[(1, "trips_plus")] == ("pay", 150) and moves[(1, "pocket_bonus")] == ("pay", 300)
    assert moves[(2, "trips_plus")] == ("collect", 50) and moves[(2, "pocket_bonus")] == ("pay", 150)


def test_pocket_bonus_aces_against_dealer_aces_pays_the_pay_table_line_for_it():
    """The Pocket Bonus (its clause: games.heads_up_holdem.clauses.POCKET_BONUS; its pay table:
    the table's ``pocket_bonus_pay_table``): the player's pocket aces against the dealer's pocket
    aces are paid by the ``aces_against_dealer_aces`` line; a table without that line pays them as
    ``aces``; aces against any other dealer hand are paid as ``aces``."""
    both = {"aces_against_dealer_aces": "1000:1", "aces": "30:1"}
    for table, dealer, paid in (
        (both, "Ac Ah", 10000),
        ({"aces": "30:1"}, "Ac Ah", 300),
        (both, "Kc Kh", 300),
    ):
        rules = RuleSet.from_mapping({"pocket_bonus_pay_table": table})
        deck = arrange(["As Ad"], dealer, "2c 7d 9s Jh 4c")
        round_, shoe = start(deck, {1: (100, 0, 10)}, rules=rules)
        play_out(round_, shoe, {1: [(PLAY, 3)]})
        assert settled(round_)[(1, "pocket_bonus")] == ("pay", paid), (table, dealer)
        (action,) = [a for a in round_.actions if a.wager.value == "pocket_bonus"]
        assert action.rule is clauses.POCKET_BONUS


def test_fold_forfeits_every_wager_and_the_cards_stay_face_down():
    round_, shoe = start(arrange(["7c 2d", "Ah Ad"], "Kc Qd", "3s 8h 9d Jc 4s"), {1: 500, 2: 500})
    play_out(round_, shoe, {1: [(CHECK, 0), (CHECK, 0), (FOLD, 0)], 2: [(PLAY, 3)]})
    assert round_.net(1) == -1000 and round_.net(2) > 0
    assert [p.card for p in round_.pickup[:2]] == [None, None]  # seat 1's folded cards, by commitment
    assert not {"7c", "2d"} & {str(v) for r in round_.records for v in r.fields.values()}


def test_community_cards_first_from_an_auto_reshuffling_shoe_plays_a_whole_round():
    deck = arrange(["Ah 9h"], "Kc 7d", "2h 5h Jh 3s 8c", community_first=True)
    round_, shoe = start(deck, {1: 1000}, deck=COMMUNITY_FIRST)
    play_out(round_, shoe, {1: [(PLAY, 3)]})
    assert settled(round_)[(1, "odds")] == ("pay", 1500)
    assert round_.log.of(RecordKind.STUB) == [] and len(round_.pickup) == 9


def test_a_deck_short_of_a_card_is_found_by_the_stub_count_voided_and_removed():
    """677a.10(d)-(f): the fifth round's count finds 51 cards; not a misdeal, so the hands are void,
    the wagers returned and the deck removed."""
    deck = arrange(["Ah 9h"], "Kc 7d", "2h 5h Jh 3s 8c")[:-1]  # one card missing from the deck
    shoe = StackedDeck(deck)
    round_ = Round(2, rules=RuleSet.example(), verify=shoe.verify, rounds_since_stub_count=4)
    round_.handle(PlaceWager(1, 1000, 1000))
    round_.handle(NoMoreBets(READY))
    shoe.deliver(round_)
    round_.handle(StubToRack(len(shoe)))
    round_.handle(MisdealFinding(misdealt=False, cards_in_deck=51))
    assert round_.state == VOIDED and round_.deck_removed and round_.net(1) == 0
    round_.handle(Collect(9))
    assert round_.state == COMPLETE


def test_a_joker_turned_up_with_the_flop_holds_the_round_until_a_supervisor_voids_it():
    """603a.15: the game is dealt without jokers. Sealed stacks cannot show one, so the
    round holds when it is turned up (no evaluation of a hand with a joker), and a supervisor's
    VOID returns every wager and removes the deck from the table (677a.10(f), as
    docs/conformance.md reads it)."""
    faces = arrange(["Ks Kd"], "Qc Qd", "2h 5h 9c 3s 8c")
    faces[4] = Card.parse("Xr")  # the first community card: the deck still holds 52 cards
    round_, shoe = start(faces, {1: 1000})
    round_.handle(PlayerDecision(1, CHECK, 0))
    shoe.reveal_community(round_)
    assert round_.state == HELD and round_.hold.kind.code == "joker"
    round_.handle(SupervisorResolve(Operator("S-1", Role.SUPERVISOR), Resolution.VOID))
    assert round_.state == VOIDED
    assert round_.net(1) == 0
    assert round_.deck_removed
