"""croupier.audit.replay: each game's round, played from a stacked shoe and written to a real trail,
is rebuilt from the trail alone with the hands the round itself holds, in dealing order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.audit.adapter import record_round
from croupier.audit.record import AuditRecord
from croupier.audit.replay import ReplayError, RoundReplay, replay
from croupier.audit.writer import AuditTrail
from croupier.commands.replay import _json, render
from games.common.records import Record
from games.free_bet_blackjack.inputs import PlayerAction
from games.heads_up_holdem.stacked import arrange, start
from games.over_under.inputs import PlaceWager as OverUnderWager
from games.over_under.inputs import StartDeal
from tests.games import dealt, decide, finish
from tests.games.test_crazy_4_poker_clauses import finish as c4_finish
from tests.games.test_crazy_4_poker_clauses import open_table, to_decisions, wagered
from tests.games.test_heads_up_holdem_scenarios import CHECK, FOLD, PLAY, play_out
from tests.games.test_over_under_helpers import OVER, UNDER
from tests.games.test_over_under_helpers import READY as OU_READY
from tests.games.test_over_under_helpers import dealt as ou_dealt
from tests.games.test_over_under_helpers import finish as ou_finish
from tests.games.test_over_under_helpers import new_round as ou_new_round
from tests.games.test_over_under_helpers import play as ou_play
from tests.games.test_over_under_helpers import play_all as ou_play_all


def trail_of(tmp_path: Path, game: str, *rounds: Iterable[Record]) -> list[AuditRecord]:
    """The rounds written through the adapter to a real trail, and read back as the command reads."""
    with AuditTrail(tmp_path / "audit", "t1") as trail:
        trail.append("table_open", None, {"game": game})
        for records in rounds:
            record_round(trail, game, records)
    path = next((tmp_path / "audit").glob("*.jsonl"))
    return [AuditRecord.parse(line) for line in path.read_bytes().splitlines()]


def faces(hand: Any) -> list[str | None]:
    return [card.face for card in hand.cards]


def places(rebuilt: RoundReplay) -> dict[str, list[str | None]]:
    return {hand.place: faces(hand) for hand in rebuilt.hands}


def blackjack_round():
    """Seat 1 hits to 21, seat 2 splits its nines (free split) and stands on both hands."""
    round_, shoe = dealt(["Th 6c", "9s 9d"], "7h Kd", "5c 8h 2d")
    decide(round_, shoe, 1, PlayerAction.HIT)
    decide(round_, shoe, 2, PlayerAction.SPLIT, PlayerAction.STAND, PlayerAction.STAND)
    finish(round_, shoe)
    return round_


def test_free_bet_blackjack_hands_splits_and_hole_card_as_the_round_holds_them(tmp_path):
    round_ = blackjack_round()
    [rebuilt] = replay(trail_of(tmp_path, "free-bet-blackjack", round_.records))
    expected = {
        f"seat {seat} hand {hand.number}": [str(card) for card in hand.cards]
        for seat, position in round_.positions.items()
        for hand in position.hands
    }
    assert (
        places(rebuilt)
        == expected
        == {
            "seat 1 hand 0": ["Th", "6c", "5c"],
            "seat 2 hand 0": ["9s", "8h"],
            "seat 2 hand 1": ["9d", "2d"],
        }
    )
    assert faces(rebuilt.dealer) == [str(card) for card in round_.dealer_cards] == ["7h", "Kd"]
    hole = rebuilt.dealer.cards[1]
    assert hole.face_down and hole.revealed_seq == next(
        r.seq for r in round_.records if r.kind == "hole_revealed"
    )
    assert (rebuilt.game, rebuilt.dealers, rebuilt.outcome) == ("free-bet-blackjack", ["D-1"], "complete")
    assert [(w.fields["seat"], w.fields["amount"]) for w in rebuilt.wagers] == [(1, 1000), (2, 1000)]
    assert [(s.fields["seat"], s.fields["wager"], s.fields["movement"]) for s in rebuilt.settlements] == [
        (a.seat, a.wager.value, a.movement.value) for a in round_.actions
    ]
    assert [(p.place, p.card) for p in rebuilt.pickup] == [
        (r.fields["place"], r.fields["card"]) for r in round_.records if r.kind == "pickup"
    ]
    assert [d.fields["action"] for d in rebuilt.decisions] == ["hit", "split", "stand", "stand"]
    assert rebuilt.notes == []


def test_a_seat_wagered_twice_shows_its_second_wagers_and_the_withdrawn_ones_in_order(tmp_path):
    """686a.7(e): seat 1's Ante and Bonus placed again as an Ante alone: the replay's wagers (and so
    what a cut-off round's record names to return) are the second; the timeline shows each withdrawn."""
    round_, shoe = ou_new_round("Kc 9h 5s", {1: (1000, 500)})
    round_.handle(OverUnderWager(1, 2000))
    round_.handle(StartDeal(OU_READY))
    shoe.deal_all_due(round_)
    ou_play(round_, shoe, 1, OVER)
    [rebuilt] = replay(trail_of(tmp_path, "over-under", round_.records))
    assert [(w.fields["seat"], w.fields["wager"], w.fields["amount"]) for w in rebuilt.wagers] == [
        (1, "ante", 2000)
    ]
    text = render(rebuilt)
    assert "Wagers:\n  seat 1: ante 20.00\nIn order" in text
    assert '#4   wager_withdrawn seat 1: bonus 5.00 clause="686a.7(e)"' in text


def test_secrecy_the_hole_card_is_face_down_until_its_reveal_record(tmp_path):
    """Read top to bottom, the review shows the hole card's face only from the line that turns it up."""
    round_ = blackjack_round()
    [rebuilt] = replay(trail_of(tmp_path, "free-bet-blackjack", round_.records))
    text = render(rebuilt)
    reveal = text.index("turned up at dealer: Kd")
    assert "Kd" not in text[:reveal]
    assert "card to dealer from the shoe: face down" in text[:reveal]


def test_a_round_cut_before_the_reveal_keeps_the_hole_card_face_down(tmp_path):
    """A round still in play (its records up to the player's turns) is rebuilt without the face."""
    round_ = blackjack_round()
    upto = next(r.seq for r in round_.records if r.kind == "hole_revealed") - 1
    [rebuilt] = replay(trail_of(tmp_path, "free-bet-blackjack", round_.records[:upto]))
    hole = rebuilt.dealer.cards[1]
    assert hole.face is None and hole.commitment
    assert "Kd" not in render(rebuilt) and "Kd" not in str(rebuilt.as_json())
    assert any("never turned up" in note for note in rebuilt.notes)


def test_over_under_hands_and_pickup(tmp_path):
    round_, shoe = ou_dealt("Kc 2d 9h 5s 3c 4c", wagers={1: (1000, 100), 2: 500})
    ou_play_all(round_, shoe, {1: OVER, 2: UNDER})
    ou_finish(round_)
    [rebuilt] = replay(trail_of(tmp_path, "over-under", round_.records))
    assert places(rebuilt) == {
        f"seat {seat}": [str(card) for card in position.cards] for seat, position in round_.positions.items()
    }
    assert [d.fields["choice"] for d in rebuilt.decisions] == ["over_23", "under_18"]
    assert [p.card for p in rebuilt.pickup] == ["Kc", "9h", "5s", "2d", "3c", "4c"]
    assert rebuilt.dealers == ["D-1"] and rebuilt.dealer is None and rebuilt.notes == []


def test_heads_up_holdem_stacks_community_and_a_folded_hand_left_face_down(tmp_path):
    """The stacks from the shoe, the stub out of it before the community cards dealt from the hand
    (677a.10(c)), each card's source in the replay; a folded hand never turned up."""
    shown, folded = (
        start(arrange(["Ah 9h"], "Kc 7d", "2h 5h Jh 3s 8c"), {1: 1000}),
        start(arrange(["2c 7s"], "Kc 7d", "2h 5h Jh 3s 8c"), {1: 1000}, number=2),
    )
    play_out(*shown, {1: [(PLAY, 3)]})
    play_out(*folded, {1: [(CHECK, 0), (CHECK, 0), (FOLD, 0)]})
    one, two = replay(trail_of(tmp_path, "heads-up-holdem", shown[0].records, folded[0].records))
    round_ = shown[0]
    assert places(one) == {"seat 1": [str(card) for card in round_.positions[1].faces]}
    assert faces(one.dealer) == [str(card) for card in round_.dealer_faces]
    assert faces(one.community) == [str(card) for card in round_.community_faces]
    assert all(card.face_down for card in one.community.cards)
    assert {card.source for card in one.community.cards} == {"hand"}, "677a.10(c): dealt from the hand"
    assert {card.source for card in [*one.hands[0].cards, *one.dealer.cards]} == {"shoe"}
    removed = next(step for step in one.events if step.kind == "stub_removed")
    assert removed.seq < one.community.cards[0].seq and removed.fields["clause"] == "677a.10(c)"
    assert "card to community from the hand: face down" in render(one)
    assert places(two) == {"seat 1": [None, None]}, "a folded hand is never turned up"
    assert not re.search(r"\b(2c|7s)\b", render(two)), "no face of the folded hand, even in hex"
    assert any("never turned up" in note for note in two.notes)


def test_crazy_4_poker_hands_from_the_shuffler_order_and_no_card_by_card_pickup(tmp_path):
    table, shuffler = open_table()
    round_ = wagered(table, shuffler)
    to_decisions(round_, shuffler)
    c4_finish(round_, shuffler)
    [rebuilt] = replay(trail_of(tmp_path, "crazy-4-poker", round_.records))
    assert places(rebuilt) == {
        f"seat {place}": [str(card) for card in cards]
        for place, cards in round_.hands.items()
        if place != "dealer"
    }
    assert faces(rebuilt.dealer) == [str(card) for card in round_.hands["dealer"]]
    assert rebuilt.pickup == [] and any("pickup order is not recorded" in n for n in rebuilt.notes)
    assert any("dealer is not named" in note for note in rebuilt.notes)


def test_a_round_not_in_the_trail_names_the_rounds_present(tmp_path):
    records = trail_of(tmp_path, "free-bet-blackjack", blackjack_round().records)
    assert [r.round for r in replay(records, 1)] == [1]
    with pytest.raises(ReplayError, match=r"round 4 is not in the trail \(rounds present: 1\)"):
        replay(records, 4)


def test_672a_7_c_the_burns_before_a_round_are_shown_with_it(tmp_path):
    """672a.7(c): the ``burn`` records the table wrote between rounds (no round of their own) are
    replayed with the round they came before: the batch's and a new dealer's before round 1, none
    before round 2; no face of a burn card appears."""
    burn = {"clause": "672a.7(c)", "dealer": "D-2", "batch": "red", "remaining": 310}
    with AuditTrail(tmp_path / "audit", "t1") as trail:
        trail.append("table_open", None, {"game": "free-bet-blackjack"})
        trail.append("burn", None, {**burn, "reason": "batch", "dispensed": 1})
        trail.append("burn", None, {**burn, "reason": "new_dealer", "dispensed": 2})
        record_round(trail, "free-bet-blackjack", blackjack_round().records)
        record_round(trail, "free-bet-blackjack", [replace(r, round=2) for r in blackjack_round().records])
    path = next((tmp_path / "audit").glob("*.jsonl"))
    first, second = replay(AuditRecord.parse(line) for line in path.read_bytes().splitlines())
    assert [(b.fields["reason"], b.audit_seq) for b in first.burns] == [("batch", 3), ("new_dealer", 4)]
    assert second.burns == []
    shown = render(first)
    assert shown.index("Burned before the round:") < shown.index("Wagers:")
    assert 'reason="new_dealer"' in shown


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=6,
    )
)
def test_a_field_is_printed_as_its_json(value: Any) -> None:
    """``croupier replay`` prints each field as JSON; the direct writing of plain numbers and texts
    (for speed) gives exactly ``json.dumps``'s text, escapes and all."""
    assert _json(value) == json.dumps(value, ensure_ascii=False)
