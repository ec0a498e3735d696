"""58 Pa. Code § 672a.7, Free Bet Blackjack, as the auditor reads it: the order of a round as data,
the dealer's draw, and the Blackjack and Push 22 Wagers settled again from the recorded cards.

The round: every wager before the deal (e); the deal (e)(1)-(4) clockwise, the dealer's second card
face down; on a dealer Blackjack no more cards (g); otherwise player by player, clockwise (h): a
Blackjack paid when the dealer reaches it (h)(1), or the player's decisions, each card after the
decision it carries out (i); no draw on 21 (j)(1); the hole card turned up after every player (k);
the dealer draws to 17 (l) unless (m); then the settlement (n)-(q).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from croupier.audit.procedure import shoe
from croupier.audit.procedure.engine import (
    Before,
    Check,
    Round,
    Rules,
    Step,
    Table,
    Violation,
    betting,
    betting_named,
    expect_places,
)
from croupier.audit.procedure.hands import blackjack_total, faces, is_blackjack
from croupier.audit.procedure.pay import owed

SECTION = "672a.7"
#: 672a.11(a) as the layout states it: Blackjack pays 3 to 2, other winning hands 1 to 1.
BLACKJACK_ODDS, EVEN = "3:2", "1:1"
DRAWS = ("hit", "double_down", "split")

CHECKS: tuple[Check, ...] = (
    *shoe.checks(SECTION),
    Check(f"{SECTION}(e)", "every Blackjack and Push 22 Wager before the first card"),
    Check(
        f"{SECTION}(e)",
        "the deal: a card face up to each Blackjack position clockwise, one face up to the dealer, a "
        "second to each position, a second face down to the dealer, before any other card",
    ),
    Check(f"{SECTION}(e)(4)", "the dealer's second card dealt face down (recorded by its commitment)"),
    Check(
        f"{SECTION}(f)",
        "a Blackjack paid under the dealer's ace before the hole card is looked at: even money, 1 to 1",
    ),
    Check(f"{SECTION}(g)", "on a dealer Blackjack no additional card is dealt"),
    Check(f"{SECTION}(h)", "the players taken clockwise: no record for a seat after a later seat's"),
    Check(
        f"{SECTION}(h)(1)",
        "a player's Blackjack paid at 3 to 2 when the dealer reaches that seat, before the next player",
        "\"the dealer shall start with the player farthest to the dealer's left and continue around "
        "the table in a clockwise direction and if the player: (1) Has Blackjack, the dealer shall "
        "announce and pay the Blackjack\": the payment is the dealer's step at that seat, so it comes "
        "before the next player's decisions, not with the settlement after (n).",
    ),
    Check(f"{SECTION}(i)", "each additional card to a player follows a decision that calls for it"),
    Check(f"{SECTION}(j)(1)", "no draw on a hard or soft 21"),
    Check(f"{SECTION}(k)", "the hole card turned up after every player's decisions and cards"),
    Check(f"{SECTION}(l)", "the dealer draws below 17 and stands on 17 to 21"),
    Check(f"{SECTION}(n)", "Push 22 Wagers paid on a dealer 22 at the table's pay table, else collected"),
    Check(f"{SECTION}(o)", "a Blackjack Wager paid 1 to 1 when the player beats the dealer without busting"),
    Check(f"{SECTION}(p)", "a Blackjack Wager returned on a tie or a dealer 22"),
    Check(f"{SECTION}(q)", "a Blackjack Wager collected when the player busts or the dealer is higher"),
)


class _Layout:
    """The round's cards: the deal (e), the hands by seat and hand number (a split moves a card to a
    new hand), the dealer's cards with the hole card once turned up."""

    def __init__(self, round_: Round) -> None:
        self.seats = round_.wagered("blackjack")
        cards = round_.kind("card")
        self.deal = cards[: 2 * len(self.seats) + 2]
        self.deal_seqs = {card.seq for card in self.deal}
        self.hands: dict[tuple[int, int], list[str]] = {}
        self.dealer: list[str] = []
        for step in round_.steps:
            if step.kind == "card":
                if step.place == "dealer":
                    self.dealer.append(str(step.get("card") if step.get("face_up") is not False else "?"))
                elif step.seat is not None:
                    self.hands.setdefault((step.seat, int(step.get("hand") or 0)), []).append(
                        str(step.get("card"))
                    )
            elif step.kind == "hole_revealed" and "?" in self.dealer:
                self.dealer[self.dealer.index("?")] = str(step.get("card"))
            elif step.kind == "decision" and step.get("action") == "split":
                self._split(step)

    def _split(self, step: Step) -> None:
        seat, hand, new, moved = step.seat, step.get("hand"), step.get("new_hand"), step.get("moved")
        cards = self.hands.get((seat or 0, int(hand or 0)), [])
        if moved in cards and isinstance(new, int):
            cards.remove(moved)
            self.hands.setdefault((seat or 0, new), []).append(str(moved))

    def natural(self, seat: int) -> bool:
        cards = [c.get("card") for c in self.deal if c.seat == seat]
        return len(cards) == 2 and None not in cards and is_blackjack(faces(cards))

    @property
    def dealer_known(self) -> bool:
        return bool(self.dealer) and "?" not in self.dealer

    def dealer_total(self) -> int:
        return blackjack_total(faces(self.dealer))[0]


def _order() -> tuple[Before, ...]:
    return (
        Before(
            f"{SECTION}(e)",
            "every Blackjack and Push 22 Wager before the first card",
            lambda s: betting(s) and s.get("wager") in ("blackjack", "push22"),
            lambda s: s.kind == "card",
            betting_named,
            lambda s: f"the card to {s.place}",
        ),
        Before(
            f"{SECTION}(k)",
            "the hole card turned up after every player's decisions and cards",
            lambda s: s.kind == "decision" or (s.kind == "card" and s.seat is not None),
            lambda s: s.kind == "hole_revealed",
            lambda s: f"{s.place}'s {s.kind}",
            "the hole card turned up",
        ),
    )


def judge(round_: Round, table: Table) -> Iterator[Violation]:
    layout = _Layout(round_)
    yield from shoe.judge(SECTION, round_, table)
    for rule in _order():
        yield from rule.judge(round_)
    places = [f"seat {s}" for s in layout.seats]
    expected = [*places, "dealer", *places, "dealer"]
    yield from expect_places(round_, layout.deal, expected, f"{SECTION}(e)", "the deal")
    if len(layout.deal) == len(expected) and layout.deal[-1].get("face_up") is not False:
        yield Violation(
            round_.number,
            layout.deal[-1].seq,
            f"{SECTION}(e)(4)",
            "the dealer's second card face down",
            "it was dealt face up",
        )
    dealer_blackjack = layout.dealer_known and is_blackjack(faces(layout.dealer[:2]))
    if dealer_blackjack:
        extra = [c for c in round_.kind("card") if c.seq not in layout.deal_seqs]
        if extra:
            yield Violation(
                round_.number,
                extra[0].seq,
                f"{SECTION}(g)",
                "no additional card on a dealer Blackjack",
                f"a card to {extra[0].place}",
            )
    else:
        yield from _players(round_, layout)
        yield from _dealer_draws(round_, layout)
    yield from _settled(round_, layout, table.rules, dealer_blackjack)


def _players(round_: Round, layout: _Layout) -> Iterator[Violation]:
    """(h)-(j): clockwise; a Blackjack paid at its seat; each card after a decision calling for it."""
    hole = next((s.seq for s in round_.kind("hole_revealed")), None)
    peek = next((s.seq for s in round_.kind("peek")), 0)  # insurance and even money come before, (f)
    naturals = [seat for seat in layout.seats if layout.natural(seat)]
    reached: Step | None = None
    calls: dict[tuple[int, int], Step] = {}  # each hand's decision still to be carried out by a card
    for step in round_.steps:
        if hole is not None and step.seq > hole:
            break
        paying = step.kind == "settlement" and step.seat in naturals and step.get("wager") == "blackjack"
        if (
            step.seq in layout.deal_seqs
            or step.seq < peek
            or step.seat is None
            or not (paying or step.kind in ("decision", "card"))
        ):
            continue
        unpaid = [n for n in naturals if n < step.seat and not _paid(round_, n, before=step.seq)]
        if unpaid and (reached is None or (reached.seat or 0) <= unpaid[0]):
            yield _found(
                round_,
                step,
                "(h)(1)",
                f"seat {unpaid[0]}'s Blackjack paid when the dealer reached it",
                f"{step.place}'s {step.kind} came first",
            )
            return
        if reached is not None and step.seat < (reached.seat or 0):
            early = reached.kind == "settlement"
            yield _found(
                round_,
                step,
                "(h)(1)" if early else "(h)",
                f"seat {reached.seat}'s Blackjack paid only when the dealer reached it"
                if early
                else "the players taken clockwise",
                f"{step.place}'s {step.kind} came after seat {reached.seat}'s {reached.kind}",
            )
            return
        reached = step
        key = (step.seat, int(step.get("hand") or 0))
        if step.kind == "decision":
            yield from _may_draw(round_, step, key)
            calls[key] = step
            if step.get("action") == "split" and isinstance(step.get("new_hand"), int):
                calls[(step.seat, step.get("new_hand"))] = step
        elif step.kind == "card":
            call = calls.pop(key, None)
            if call is None or call.get("action") not in DRAWS:
                yield _found(
                    round_,
                    step,
                    "(i)",
                    "an additional card only to carry out a decision",
                    f"a card to {step.place} with no decision calling for it",
                )
                return
    for seat in naturals:
        if hole is not None and not _paid(round_, seat, before=hole):
            yield Violation(
                round_.number,
                hole,
                f"{SECTION}(h)(1)",
                f"seat {seat}'s Blackjack paid when the dealer reached it",
                "the hole card was turned up first",
            )
            return


def _found(round_: Round, step: Step, clause: str, expected: str, found: str) -> Violation:
    return Violation(round_.number, step.seq, SECTION + clause, expected, found)


def _paid(round_: Round, seat: int, *, before: int) -> bool:
    return any(
        s.seat == seat and s.get("wager") == "blackjack" and s.seq < before for s in round_.kind("settlement")
    )


def _may_draw(round_: Round, step: Step, key: tuple[int, int]) -> Iterator[Violation]:
    """(j)(1): no hit on 21 (judged on hands never split, whose cards are all the seat's)."""
    if step.get("action") != "hit" or _split(round_, key[0]):
        return
    held = [c.get("card") for c in round_.kind("card") if c.seat == key[0] and c.seq < step.seq]
    if held and None not in held and blackjack_total(faces(held))[0] >= 21:
        yield _found(round_, step, "(j)(1)", "no draw on a total of 21", f"{step.place} drew on 21")


def _split(round_: Round, seat: int) -> bool:
    return any(s.seat == seat and s.get("action") == "split" for s in round_.kind("decision"))


def _dealer_draws(round_: Round, layout: _Layout) -> Iterator[Violation]:
    """(l): the dealer's cards after the hole card: each drawn below 17, none on 17 to 21."""
    hole = next((s.seq for s in round_.kind("hole_revealed")), None)
    if hole is None or not layout.dealer_known:
        return
    held = layout.dealer[:2]
    for step in round_.kind("card"):
        if step.seq < hole or step.place != "dealer":
            continue
        total = blackjack_total(faces(held))[0]
        if total >= 17:
            yield Violation(
                round_.number,
                step.seq,
                f"{SECTION}(l)",
                "the dealer stands on 17 to 21",
                f"drew on {total}",
            )
            return
        held.append(str(step.get("card")))


def _settled(
    round_: Round, layout: _Layout, rules: Rules, dealer_blackjack: bool
) -> Iterator[Violation]:
    """(g), (h)(1), (n)-(q): each Blackjack and Push 22 settlement as the cards make it. Doubled and
    split hands are judged on their movement only (their stakes and Free Bet lammers are the
    decisions' to record)."""
    if not layout.dealer_known:
        return
    dealer = layout.dealer_total()
    for step in round_.kind("settlement"):
        seat, wager = step.seat, step.get("wager")
        if seat is None:
            continue
        expected = _expected(round_, layout, step, dealer, dealer_blackjack, rules)
        if expected is None:
            continue
        clause, movement, amount = expected
        if step.get("movement") != movement or (amount is not None and step.get("amount") != amount):
            shown = movement + ("" if amount is None else f" {amount}")
            yield Violation(
                round_.number,
                step.seq,
                SECTION + clause,
                f"{step.place}'s {wager} {shown}",
                f"recorded {step.get('movement')} {step.get('amount')}",
            )


def _expected(
    round_: Round, layout: _Layout, step: Step, dealer: int, dealer_blackjack: bool, rules: Rules
) -> tuple[str, str, int | None] | None:
    seat, wager = step.seat or 0, step.get("wager")
    if wager == "push22":
        stake = round_.stake(seat, "push22")
        if dealer == 22 and not dealer_blackjack:
            table = rules.get("push22_pay_table") or {}
            at = table.get("other") if isinstance(table, Mapping) else None
            return ("(n)(1)", "pay", owed(stake, at, rules) if at and _plain_22(table) else None)
        return ("(g)" if dealer_blackjack else "(n)(2)"), "collect", stake
    if wager != "blackjack":
        return None
    stake = round_.stake(seat, "blackjack")
    natural = layout.natural(seat) and not _split(round_, seat)
    if natural and _even_money(round_, layout, step):
        return "(f)", "pay", owed(stake, EVEN, rules)
    if dealer_blackjack:
        return ("(g)(1)", "push", stake) if natural else ("(g)(2)", "collect", stake)
    if natural:
        return "(h)(1)", "pay", owed(stake, BLACKJACK_ODDS, rules)
    hand = layout.hands.get((seat, int(step.get("hand") or 0)))
    if not hand or "None" in hand:
        return None
    simple = not any(
        s.seat == seat and s.get("action") in ("double_down", "split") for s in round_.kind("decision")
    )
    player = blackjack_total(faces(hand))[0]
    if player > 21:
        return "(q)(1)", "collect", stake if simple else None
    if dealer == 22:
        return "(o)(1)", "push", stake if simple else None
    if dealer > 21 or player > dealer:
        return "(o)", "pay", owed(stake, EVEN, rules) if simple else None
    if player == dealer:
        return "(p)", "push", stake if simple else None
    return "(q)(2)", "collect", stake if simple else None


def _even_money(round_: Round, layout: _Layout, step: Step) -> bool:
    """(f): under a dealer's ace, a Blackjack paid before the dealer looks at the hole card is even
    money (§ 672a.8), paid 1 to 1 whatever the hole card."""
    look = next((s.seq for s in round_.steps if s.kind in ("peek", "hole_revealed")), None)
    ace = bool(layout.dealer) and layout.dealer[0][:1] == "A"
    return ace and look is not None and step.seq < look


def _plain_22(table: Rules) -> bool:
    """A pay table paying every 22 alike: the suited and same-colour lines need the dealer's suits,
    which the auditor judges only where all three lines agree."""
    return table.get("suited") == table.get("same_colour") == table.get("other")
