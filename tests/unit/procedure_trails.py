"""Hand-made audit trails for the procedure auditor's tests: each round dealt as the section reads,
so that one changed record makes exactly one violation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from croupier.audit.record import GENESIS, AuditRecord


@dataclass
class Trail:
    """Records as the table writes them: ``seq`` through the trail, ``round_seq`` through a round."""

    game: str
    records: list[AuditRecord] = field(default_factory=list)
    round: int | None = None
    round_seq: int = 0

    def table(self, kind: str, **fields: Any) -> AuditRecord:
        return self._add(kind, None, dict(fields))

    def service(self, kind: str, number: int, **fields: Any) -> AuditRecord:
        """A record the table service writes about round ``number`` (``round_cut_off``), not one of
        the round's own: no ``game``, no ``round_seq``."""
        return self._add(kind, number, dict(fields))

    def start(self, number: int) -> Trail:
        self.round, self.round_seq = number, 0
        return self

    def add(self, kind: str, **fields: Any) -> AuditRecord:
        self.round_seq += 1
        return self._add(kind, self.round, {"game": self.game, "round_seq": self.round_seq, **fields})

    def _add(self, kind: str, round_: int | None, fields: dict[str, Any]) -> AuditRecord:
        prev = self.records[-1].hash if self.records else GENESIS
        record = AuditRecord.seal(
            len(self.records) + 1, "2026-12-01T00:00:00.000+00:00", kind, round_, fields, prev
        )
        self.records.append(record)
        return record

    def seq(self, kind: str, **match: Any) -> int:
        """The seq of the first record of ``kind`` whose fields include ``match``."""
        return next(
            r.seq
            for r in self.records
            if r.kind == kind and all(r.fields.get(k) == v for k, v in match.items())
        )

    def without(self, drop: Iterable[int]) -> list[AuditRecord]:
        gone = set(drop)
        return [record for record in self.records if record.seq not in gone]


def seat_card(
    trail: Trail, seat: int, card: str | None, *, hand: int | None = 0, face_up: bool = True
) -> None:
    place = f"seat {seat}" + ("" if hand is None else f" hand {hand}")
    trail.add(
        "card", card=card, seat=seat, hand=hand, place=place, face_up=face_up, commitment=None, source="shoe"
    )


def dealer_card(trail: Trail, card: str | None, commitment: str | None = None) -> None:
    trail.add(
        "card",
        card=card,
        seat=None,
        hand=None,
        place="dealer",
        face_up=card is not None,
        commitment=commitment,
        source="shoe",
    )


def blackjack_opening(trail: Trail, number: int = 1) -> Trail:
    """Round ``number`` of Free Bet Blackjack up to its first card: seats 1 and 2 wager, the deal
    starts, and at the first round the new dealer's burn (672a.7(c))."""
    t = trail.start(number)
    t.add("wager", seat=1, wager="blackjack", amount=1000)
    t.add("wager", seat=2, wager="blackjack", amount=1000)
    t.add("deal_started", dealer="D-1", seats="1,2")
    if number == 1:
        t.add("burn", clause="672a.7(c)", reason="new_dealer", dealer="D-1")
    return t


def blackjack_round(trail: Trail, number: int = 1, *, natural_pays: int = 1500) -> Trail:
    """Seats 1 and 2; seat 2 has Blackjack, paid when the dealer reaches it (672a.7(h)(1)); seat 1
    draws to 18 and beats the dealer's 17 (672a.7(o)(2))."""
    t = blackjack_opening(trail, number)
    seat_card(t, 1, "9h")
    seat_card(t, 2, "As")
    dealer_card(t, "7c")
    seat_card(t, 1, "7d")
    seat_card(t, 2, "Kd")
    dealer_card(t, None, commitment="c0ffee")
    t.add("decision", seat=1, hand=0, action="hit")
    seat_card(t, 1, "2c")
    t.add("decision", seat=1, hand=0, action="stand")
    t.add(
        "settlement",
        seat=2,
        hand=0,
        wager="blackjack",
        movement="pay",
        amount=natural_pays,
        clause="672a.7(h)(1)",
    )
    t.add("hole_revealed", card="Qs", commitment="c0ffee")
    t.add("dealer_total", total=17, soft=False)
    t.add("settlement", seat=1, hand=0, wager="blackjack", movement="pay", amount=1000, clause="672a.7(o)(2)")
    return t


def over_under_round(trail: Trail, number: int = 1, *, over_pays: int = 1000) -> Trail:
    """Seats 1 and 2: both elect, then seat 1's two cards and settlement (25: Over 23 wins), then
    seat 2's (9: Under 18 wins) (686a.7(f), (i), (j), (k))."""
    t = trail.start(number)
    t.add("wager", seat=1, wager="ante", amount=1000)
    t.add("wager", seat=2, wager="ante", amount=1000)
    t.add("deal_started", dealer="D-1", seats="1,2")
    if number == 1:
        t.add("burn", clause="686a.7(c)", reason="new_dealer", dealer="D-1")
    t.add("card", card="Kh", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("card", card="2c", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("decision", seat=1, choice="over_23", amount=1000)
    t.add("decision", seat=2, choice="under_18", amount=1000)
    t.add("card", card="Qs", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("card", card="5d", seat=1, place="seat 1", face_up=True, source="shoe")
    t.add("settlement", seat=1, wager="ante", movement="pay", amount=1000)
    t.add("settlement", seat=1, wager="over_23", movement="pay", amount=over_pays)
    t.add("card", card="3d", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("card", card="4h", seat=2, place="seat 2", face_up=True, source="shoe")
    t.add("settlement", seat=2, wager="ante", movement="pay", amount=1000)
    t.add("settlement", seat=2, wager="under_18", movement="pay", amount=1000)
    return t


def holdem_round(
    trail: Trail, number: int = 1, *, counted: int | None = 52, community: str = "hand"
) -> Trail:
    """Seats 1 and 2: stacks from the shoe, the stub out, five community cards from the hand, the
    stub counted to the rack (677a.10(b)-(e))."""
    t = trail.start(number)
    for seat in (1, 2):
        t.add("wager", seat=seat, wager="ante", amount=500)
        t.add("wager", seat=seat, wager="odds", amount=500)
    t.add("no_more_bets", seats="1,2", community_first=False)
    for place in ("seat 1", "seat 1", "seat 2", "seat 2", "dealer", "dealer"):
        t.add("card", card=None, commitment="c", place=place, face_up=False, source="shoe")
    t.add("stub_removed", cards=38, clause="677a.10(c)")  # what the shoe let out, as the game writes it
    for _ in range(5):
        t.add("card", card=None, commitment="c", place="community", face_up=False, source=community)
    t.add("stub", counted=counted, exposed=False, to_rack=True)
    t.add("settlement", seat=1, wager="ante", movement="push", amount=500)
    return t


def crazy_4_round(trail: Trail, number: int = 1, *, report: tuple[int, ...] = (1, 2)) -> Trail:
    """Seats 1 and 2 with Ante and Super Bonus, five cards each, one at a time (657a.9(b)); the
    hands of ``report`` reported, every wager settled on them."""
    t = trail.start(number)
    for seat in (1, 2):
        t.add("wager", seat=seat, wager="ante", amount=500)
        t.add("wager", seat=seat, wager="super_bonus", amount=500)
    t.add("shuffle", count=52, order_commitment="c")
    t.add("no_more_bets", seats="1,2")
    for order in range(15):
        place = (1, 2, "dealer")[order % 3]
        t.add("card", order=order + 1, place=place, face_up=False, source="hand")
    t.add("stub", cards=None, to="discard rack")
    t.add("decision", seat=1, decision="play", play=500)
    t.add("decision", seat=2, decision="play", play=500)
    hands = {1: "Qh Qs 4c 7d 9s", 2: "2c 3d 8h Jc Kd", "dealer": "Ac Kh 5s 6d 9c"}
    for place, cards in hands.items():
        if place == "dealer" or place in report:
            t.add("hand", place=place, cards=cards, known_by="shuffler order")
    t.add("settlement", seat=2, wager="ante", movement="collect", amount=500)
    t.add("settlement", seat=1, wager="ante", movement="pay", amount=500)
    return t


def placed_twice(trail: Trail, earlier: dict[str, int], clause: str) -> Trail:
    """``trail`` with seat 1's wagers placed twice: ``earlier`` first, then, the position's wagers
    placed again before the deal, each of them recorded withdrawn (citing ``clause``) as the games
    record it, and then the trail's own."""
    t = Trail(trail.game)
    for record in trail.records:
        fields = {k: v for k, v in record.fields.items() if k not in ("game", "round_seq")}
        if record.round is None:
            t.table(record.kind, **fields)
            continue
        if t.round != record.round:
            t.start(record.round)
        if record.kind == "wager" and fields.get("seat") == 1 and earlier:
            for name, amount in earlier.items():
                t.add("wager", seat=1, wager=name, amount=amount)
            for name, amount in earlier.items():
                t.add("wager_withdrawn", seat=1, wager=name, amount=amount, clause=clause)
            earlier = {}
        t.add(record.kind, **fields)
    return t
