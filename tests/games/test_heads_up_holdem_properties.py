"""Random decks, random tables, random legal decisions: whole rounds of the 677a Hold 'Em game.

For every round: every card that left the shoe reaches the discard rack once and, with the stub,
makes the 52 cards of the deck (677a.10(c), (e)); no face-down card's face is in a record or a log
line before it is turned up, and a folded hand's never is; and every wager is settled as an
independent reference settlement, written here from the published game rules with the reference evaluator of
test_poker_hands, settles it.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from games.heads_up_holdem import RuleSet
from games.heads_up_holdem.inputs import Choice
from games.heads_up_holdem.records import RecordKind
from games.heads_up_holdem.stacked import COMMUNITY_FIRST, READY, start
from tests.games.test_heads_up_holdem_scenarios import play_out
from tests.games.test_poker_hands import reference_value
from vocabulary.cards import standard_deck

STRAIGHT, PAIR = 4, 1
ODDS = {9: (500, 1), 8: (50, 1), 7: (10, 1), 6: (3, 1), 5: (3, 2), 4: (1, 1)}
TRIPS = {3: (3, 1), 5: (7, 1), 9: (50, 1)}
SIDE_RULES = {
    "trips_plus_pay_table": {"three_of_a_kind": "3:1", "flush": "7:1", "royal_flush": "50:1"},
    "pocket_bonus_pay_table": {"aces": "30:1", "tens_to_twos": "3:1"},
}


def reference(seat_cards, dealer, board, ante, play, trips, pocket, folded) -> dict[str, int]:
    """What each wager nets the player, from the rule text: a fold loses everything; the Ante
    pushes unless the dealer has a pair or better, else 1 to 1; Play 1 to 1; Odds by the table on a
    win (push below a straight), push on a tie, the same table on a loss with a straight or better,
    otherwise lost; Trips Plus and Pocket Bonus by their tables, otherwise lost."""
    if folded:
        return {"ante": -ante, "odds": -ante, "trips_plus": -trips, "pocket_bonus": -pocket}
    mine, theirs = reference_value([*seat_cards, *board]), reference_value([*dealer, *board])
    sign = (mine > theirs) - (mine < theirs)
    result = {"ante": sign * ante if theirs[0] >= PAIR else 0, "play": sign * play}
    win, stake = ODDS.get(mine[0], (0, 1))
    result["odds"] = {
        1: ante * win // stake,
        0: 0,
        -1: ante * win // stake if mine[0] >= STRAIGHT else -ante,
    }[sign]
    t_win, t_stake = TRIPS.get(mine[0], (None, 1))
    result["trips_plus"] = trips * t_win // t_stake if t_win else -trips
    high = sorted(14 if c.rank == 1 else c.rank for c in seat_cards)
    pair = high[0] == high[1]
    pocket_pays = 30 if pair and high[0] == 14 else 3 if pair and high[0] <= 10 else None
    result["pocket_bonus"] = pocket * pocket_pays if pocket_pays else -pocket
    return result


# each plan as the seat's decisions street by street: a Play at 3x, 2x or 1x, or a fold at the river
DECISIONS = {
    "3x": [(Choice.PLAY, 3)],
    "2x": [(Choice.CHECK, 0), (Choice.PLAY, 2)],
    "1x": [(Choice.CHECK, 0), (Choice.CHECK, 0), (Choice.PLAY, 1)],
    "fold": [(Choice.CHECK, 0), (Choice.CHECK, 0), (Choice.FOLD, 0)],
}


@st.composite
def tables(draw):
    deck = draw(st.permutations(standard_deck()))
    seats = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True))
    wagers = {
        seat: (draw(st.integers(1, 50)) * 5, draw(st.sampled_from([0, 50])), draw(st.sampled_from([0, 20])))
        for seat in seats
    }
    plans = {seat: draw(st.sampled_from(["3x", "2x", "1x", "fold"])) for seat in seats}
    return deck, wagers, plans, draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(tables())
def test_random_rounds_conserve_cards_keep_secrets_and_settle_as_the_reference(table):
    deck, wagers, plans, community_first = table
    report = COMMUNITY_FIRST if community_first else READY
    with capture_logs() as logs:
        round_, shoe = start(deck, wagers, rules=RuleSet.example(**SIDE_RULES), deck=report)
        sealed_at = len(round_.records)
        play_out(round_, shoe, {seat: DECISIONS[plan] for seat, plan in plans.items()})

    # cards conserved: what left the shoe is what reached the rack, and with the stub makes 52
    dealt = Counter(map(str, shoe.dealt))
    by_commitment = {}
    for position in round_.positions.values():
        for item in position.stack:
            by_commitment[item.commitment.hex()] = str(shoe.shoe.turn_up(item))
    for item in [*round_.dealer_stack, *round_.community]:
        by_commitment[item.commitment.hex()] = str(shoe.shoe.turn_up(item))
    racked = Counter(p.card or by_commitment[p.commitment] for p in round_.pickup)
    assert racked == dealt and len(round_.pickup) + len(shoe) == 52

    # secrecy: no face before the record that turns it up; a folded hand's never
    first_seen = {}
    for record in round_.records:
        for value in record.fields.values():
            for word in str(value).split():
                first_seen.setdefault(word, record)
    for face in dealt:
        record = first_seen.get(face)
        if record is not None:
            assert record.seq > sealed_at and record.kind in (RecordKind.REVEALED,), (face, record)
    folded_faces = {
        str(shoe.shoe.turn_up(item))
        for s in wagers
        if plans[s] == "fold"
        for item in round_.positions[s].stack
    }
    assert not folded_faces & set(first_seen)
    logged = {word for entry in logs[:sealed_at] for value in entry.values() for word in str(value).split()}
    assert not logged & set(dealt)

    # settlement equals the reference
    board = list(round_.community_faces)
    dealer = list(round_.dealer_faces)
    for seat, (ante, trips, pocket) in wagers.items():
        position = round_.positions[seat]
        cards = [shoe.shoe.turn_up(item) for item in position.stack]
        expected = reference(cards, dealer, board, ante, position.stakes.play, trips, pocket, position.folded)
        actual = Counter()
        for action in round_.actions:
            if action.seat == seat:
                actual[action.wager.value] += action.net
        assert {k: v for k, v in actual.items()} == {k: v for k, v in expected.items() if k in actual}, seat
        assert sum(actual.values()) == sum(expected.values())
