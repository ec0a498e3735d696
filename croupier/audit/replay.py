"""Rebuilding a round from its audit records, for review (58 Pa. Code 672a.7(s), 686a.7(n)).

The regulations require the cards be picked up in an order that lets each hand be reconstructed;
this module does the reconstruction from the trail alone, so a surveillance or review person sees
what the table saw: who dealt, the wagers, each hand's cards in dealing order, the decisions, the
settlement, irregularities and rulings, and the pickup order. It is pure (records in, a typed
structure out) so the command, the API or a test can use it without files or a terminal.

The burn cards the table burned before a round (``burn`` records, between rounds and so in no
round: 672a.7(c), 686a.7(c)) are shown with the round they preceded, so a reviewer sees each batch's
burn and each new dealer's before the first card they came before.

Secrecy carries over from the trail: a card dealt face down has no face in its own record, only a
commitment, and the replay takes its face only from the record that turned it up (``hole_revealed``,
``revealed``, or a Crazy 4 Poker ``hand``), noting which record that was. A card never turned up
(a folded hand, a round still in play) stays face down in the replay too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from croupier.audit.record import AuditRecord

#: Kinds that are a ruling or an irregularity: reviewers read these first.
IRREGULAR = ("irregularity", "set_aside", "resolution", "misdeal")
#: Kinds shown only in the JSON's ``states``, not in the readable timeline: they repeat what the
#: other records already say (the round moved on because a card arrived, a decision was made...).
QUIET = ("state",)
DEALER, COMMUNITY = "dealer", "community"
#: The table's record of a burn card (croupier.tables.shoe_table.BURN_RECORD), between rounds.
BURN = "burn"


@dataclass
class ReplayCard:
    """One card on the layout. ``face`` is None while it is face down (and for good if it never was
    turned up); ``revealed_seq`` is the round record that gave its face, None if dealt face up."""

    order: int  # position in the round's dealing order, from 1
    seq: int  # the round record (round_seq) that placed it
    face: str | None
    face_down: bool
    commitment: str | None
    revealed_seq: int | None
    clause: str | None
    source: str | None = None  # "shoe" or "hand": where the card was dealt from, when the record says

    def shown(self) -> str:
        if self.face is None:
            return "face down" + (f" ({self.commitment[:12]}…)" if self.commitment else "")
        if self.face_down:
            return f"{self.face} (dealt face down, turned up at #{self.revealed_seq})"
        return self.face


@dataclass
class ReplayHand:
    """The cards at one place (a seat's hand, the dealer, the community cards), in dealing order;
    a split moves a card to a new hand, as on the layout."""

    place: str
    seat: int | None
    hand: int | None
    cards: list[ReplayCard] = field(default_factory=list)


@dataclass
class Step:
    """One round record as the replay keeps it: its number within the round, its audit ``seq``,
    its kind and its fields (``game`` and ``round_seq`` taken out)."""

    seq: int
    audit_seq: int
    at: str
    kind: str
    fields: dict[str, Any]  # Any: a record's JSON fields


@dataclass
class Pickup:
    order: int
    place: str
    card: str | None  # None for a card picked up still face down
    commitment: str | None
    seq: int


@dataclass
class RoundReplay:
    """Everything the trail says about one round, rebuilt."""

    round: int
    game: str
    dealers: list[str]
    first_audit_seq: int
    last_audit_seq: int
    outcome: str | None  # the last state the round reached (complete, voided, held, ...)
    wagers: list[Step]  # those in play when betting closed: each ``wager`` not withdrawn after it
    hands: list[ReplayHand]  # the players' hands (and any other place, e.g. the six-card area)
    dealer: ReplayHand | None
    community: ReplayHand | None
    decisions: list[Step]
    settlements: list[Step]
    irregularities: list[Step]  # irregularities, set-asides, misdeal findings and rulings
    pickup: list[Pickup]
    events: list[Step]  # the other steps: peeks, totals, stubs, shuffles, burns, hands shown...
    timeline: list[Step]  # every record but state changes, in order
    states: list[Step]
    notes: list[str]  # what the records do not let the replay reconstruct
    burns: list[Step] = field(default_factory=list)  # burned before the round, since the one before

    def as_json(self) -> dict[str, Any]:  # Any: a record's JSON fields
        return asdict(self)


class ReplayError(Exception):
    """A round asked for is not in the records; the message names the rounds that are."""


def round_records(records: Iterable[AuditRecord]) -> list[list[AuditRecord]]:
    """The records of each round, in trail order. A round's records carry ``game`` and ``round_seq``
    (croupier.audit.adapter); a round number seen again from ``round_seq`` 1 (a table restarted
    its count) is a separate round."""
    rounds: list[list[AuditRecord]] = []
    current: dict[int, list[AuditRecord]] = {}
    for record in records:
        if record.round is None or "round_seq" not in record.fields or "game" not in record.fields:
            continue
        group = current.get(record.round)
        if group is None or record.fields["round_seq"] <= group[-1].fields["round_seq"]:
            group = current[record.round] = []
            rounds.append(group)
        group.append(record)
    return rounds


def replay(records: Iterable[AuditRecord], round_number: int | None = None) -> list[RoundReplay]:
    """Each round in ``records`` (only ``round_number``'s if given), rebuilt; ReplayError if that
    round is not there."""
    records = list(records)
    groups = round_records(records)
    chosen = [group for group in groups if round_number is None or group[0].round == round_number]
    if round_number is not None and not chosen:
        present = sorted({number for group in groups if (number := group[0].round) is not None})
        listed = ", ".join(map(str, present)) if present else "none"
        raise ReplayError(f"round {round_number} is not in the trail (rounds present: {listed})")
    burns = [record for record in records if record.kind == BURN and record.round is None]
    rebuilt = []
    for group in chosen:
        before = max((g[-1].seq for g in groups if g[-1].seq < group[0].seq), default=0)
        round_ = _Builder(group).build()
        round_.burns = [_table_step(b) for b in burns if before < b.seq < group[0].seq]
        rebuilt.append(round_)
    return rebuilt


def _table_step(record: AuditRecord) -> Step:
    """A record of the table's own, between rounds: no number within a round (``seq`` 0)."""
    return Step(0, record.seq, record.at, record.kind, dict(record.fields))


def _place(fields: Mapping[str, Any]) -> tuple[str, int | None, int | None]:  # Any: a record's JSON fields
    """A card's place as text, with its seat and hand number. Crazy 4 Poker names a seat's place by
    its number alone; Free Bet Blackjack's and Over/Under's records name the seat too."""
    place, seat, hand = fields.get("place"), fields.get("seat"), fields.get("hand")
    if isinstance(place, int) and not isinstance(place, bool):
        seat, place = place, f"seat {place}"
    text = str(place)
    if seat is None and text.startswith("seat "):
        number = text.split()[1]
        seat = int(number) if number.isdigit() else None
    return text, seat if isinstance(seat, int) else None, hand if isinstance(hand, int) else None


class _Builder:
    def __init__(self, records: list[AuditRecord]) -> None:
        self.records = records
        self.places: dict[str, ReplayHand] = {}
        self.by_commitment: dict[str, ReplayCard] = {}
        self.dealt = 0
        self.notes: list[str] = []

    def build(self) -> RoundReplay:
        first = self.records[0]
        steps = [self._step(record) for record in self.records]
        dealers: list[str] = []
        outcome = None
        buckets: dict[str, list[Step]] = {"wager": [], "decision": [], "settlement": [], "irregular": []}
        events: list[Step] = []
        pickup: list[Pickup] = []
        discard_only = False
        for step in steps:
            kind, f = step.kind, step.fields
            dealer = f.get("dealer") if kind in ("deal_started", "dealer_change") else None
            if isinstance(dealer, str) and dealer not in dealers:
                dealers.append(dealer)
            if kind == "state":
                outcome = f.get("dest")
            elif kind == "card":
                self._card(step)
            elif kind == "decision":
                buckets["decision"].append(step)
                if f.get("action") == "split":
                    self._split(step)
            elif kind in ("hole_revealed", "revealed"):
                self._reveal(step)
                events.append(step)
            elif kind == "pickup":
                pickup.append(
                    Pickup(
                        f.get("order", len(pickup) + 1),
                        str(f.get("place")),
                        f.get("card"),
                        f.get("commitment"),
                        step.seq,
                    )
                )
            elif kind in ("wager", "settlement"):
                buckets[kind].append(step)
            elif kind == "wager_withdrawn":  # placed again before the deal: the earlier one is not in play
                taken_back = (f.get("seat"), f.get("wager"))
                buckets["wager"] = [
                    w for w in buckets["wager"] if (w.fields.get("seat"), w.fields.get("wager")) != taken_back
                ]
                events.append(step)
            elif kind in IRREGULAR:
                buckets["irregular"].append(step)
            else:
                if kind == "hand" and isinstance(f.get("cards"), str):
                    self._known_hand(step)
                discard_only = discard_only or kind == "discard"
                events.append(step)
        if not dealers:
            self.notes.append("the dealer is not named in this round's records")
        if not pickup and discard_only:
            self.notes.append(
                "the pickup order is not recorded card by card (only a discard of the layout's cards)"
            )
        hidden = [
            f"{hand.place} card {card.order}"
            for hand in self.places.values()
            for card in hand.cards
            if card.face is None
        ]
        if hidden:
            self.notes.append("never turned up, so shown face down: " + ", ".join(hidden))
        self._check_pickup(pickup)
        others = [hand for place, hand in self.places.items() if place not in (DEALER, COMMUNITY)]
        return RoundReplay(
            round=first.round or 0,
            game=str(first.fields["game"]),
            dealers=dealers,
            first_audit_seq=first.seq,
            last_audit_seq=self.records[-1].seq,
            outcome=outcome,
            wagers=buckets["wager"],
            hands=others,
            dealer=self.places.get(DEALER),
            community=self.places.get(COMMUNITY),
            decisions=buckets["decision"],
            settlements=buckets["settlement"],
            irregularities=buckets["irregular"],
            pickup=pickup,
            events=events,
            timeline=[step for step in steps if step.kind not in QUIET],
            states=[step for step in steps if step.kind in QUIET],
            notes=self.notes,
        )

    @staticmethod
    def _step(record: AuditRecord) -> Step:
        fields = {k: v for k, v in record.fields.items() if k not in ("game", "round_seq")}
        return Step(record.fields["round_seq"], record.seq, record.at, record.kind, fields)

    def _hand(self, place: str, seat: int | None, hand: int | None) -> ReplayHand:
        if place not in self.places:
            self.places[place] = ReplayHand(place, seat, hand)
        return self.places[place]

    def _card(self, step: Step) -> None:
        f = step.fields
        place, seat, hand = _place(f)
        face_down = f.get("face_up") is False
        self.dealt += 1
        card = ReplayCard(
            order=self.dealt,
            seq=step.seq,
            face=None if face_down else f.get("card"),
            face_down=face_down,
            commitment=f.get("commitment"),
            revealed_seq=None,
            clause=f.get("clause"),
            source=f.get("source"),
        )
        if card.commitment:
            self.by_commitment[card.commitment] = card
        self._hand(place, seat, hand).cards.append(card)

    def _split(self, step: Step) -> None:
        """A split moves the hand's second card to a new hand of the same seat (672a.7)."""
        f = step.fields
        seat, number, new, moved = f.get("seat"), f.get("hand"), f.get("new_hand"), f.get("moved")
        source = self.places.get(f"seat {seat} hand {number}")
        card = next((c for c in reversed(source.cards) if c.face == moved), None) if source else None
        if card is None or source is None or new is None:
            self.notes.append(f"#{step.seq}: split of seat {seat} hand {number}: the card moved is not found")
            return
        source.cards.remove(card)
        self._hand(f"seat {seat} hand {new}", seat, new).cards.append(card)

    def _reveal(self, step: Step) -> None:
        f = step.fields
        card = self.by_commitment.get(str(f.get("commitment")))
        if card is None:
            self.notes.append(
                f"#{step.seq}: a card turned up ({f.get('card')}) opens no card dealt face down"
            )
            return
        card.face, card.revealed_seq = f.get("card"), step.seq

    def _known_hand(self, step: Step) -> None:
        """Crazy 4 Poker records no commitment per card: a hand's faces are known all at once, in
        the order the ``hand`` record lists them (the deal order when known from the shuffler's
        order; the dealer's reporting order otherwise)."""
        f = step.fields
        place, _, _ = _place(f)
        hand = self.places.get(place)
        faces = str(f["cards"]).split()
        if hand is None or any(card.face is not None for card in hand.cards):
            return  # a Hold'em best-five, or cards already known: nothing to fill in
        if len(faces) != len(hand.cards):
            self.notes.append(f"#{step.seq}: {place} shown with {len(faces)} cards, dealt {len(hand.cards)}")
            return
        for card, face in zip(hand.cards, faces, strict=True):
            card.face, card.revealed_seq = face, step.seq
        if f.get("known_by") != "shuffler order":
            self.notes.append(
                f"{place}: faces in the order reported ({f.get('known_by')}), not dealing order"
            )

    def _check_pickup(self, pickup: list[Pickup]) -> None:
        """The pickup must let each hand be rebuilt: every card picked up from a place was dealt
        there (by face, or by commitment while face down)."""
        for item in pickup:
            hand = self.places.get(item.place)
            cards = hand.cards if hand else []
            if not any(
                (item.card is not None and card.face == item.card)
                or (item.commitment is not None and card.commitment == item.commitment)
                for card in cards
            ):
                self.notes.append(
                    f"pickup {item.order}: {item.card or 'a face-down card'} from {item.place} "
                    "was not dealt there"
                )
