"""672a.7(c) and 686a.7(c), the shoe games' burns: the first card of each freshly loaded batch, and
one card for each new dealer, go to the discard rack before any card is dealt to the players.

Burns are followed across the whole trail (a burn may be recorded between rounds): a burn falls due
when a dealer not dealing before comes to the table (``deal_started`` or ``dealer_change`` names
them) and when a batch is loaded (the trail's first round, and the round after a cover card sends
the cards to be reshuffled, 672a.7(d): a round's own cover card, or one recorded between rounds);
it is met by a ``burn`` record with that ``reason`` before the round's first card.
"""

from __future__ import annotations

from collections.abc import Iterator

from croupier.audit.procedure.engine import Check, Round, Table, Violation
from croupier.audit.record import Fields

READING = (
    "At the trail's first round the table opens with a batch just loaded and its first dealer: one "
    "burn, of either reason, is taken as meeting both, since the trail cannot show a batch loaded "
    "before it began. Afterwards each due burn needs its own record."
)


def checks(section: str) -> tuple[Check, ...]:
    return (
        Check(f"{section}(a)", "every card of the round dealt from the dealing shoe (`source` `shoe`)"),
        Check(
            f"{section}(c)",
            "a `burn` record (reason `batch`, and `new_dealer` for each new dealer) before the first "
            "card of a round that follows a batch loaded or a dealer's arrival",
            READING,
        ),
    )


def judge(section: str, round_: Round, table: Table) -> Iterator[Violation]:
    for step in round_.kind("card"):
        if step.get("source") != "shoe":
            found = f"{step.place}'s card from {step.get('source') or 'an unnamed source'}"
            expected = "every card from the dealing shoe"
            yield Violation(round_.number, step.seq, f"{section}(a)", expected, found)
    clause = f"{section}(c)"
    cover = False  # a cover card came: the next batch is loaded after this round, and burned
    for step in round_.steps:
        if step.kind in ("deal_started", "dealer_change"):
            _arrives(step.get("dealer") or step.get("to"), table)
        elif step.kind == "cover_card":
            cover = True
        elif step.kind == "burn" and cover and step.get("reason") == "batch":
            cover = False  # the new batch loaded and burned before this round's records end
        elif step.kind == "burn":
            burned(step.fields, table)
        elif step.kind == "card" and table.burns_due:
            reason = "new_dealer" if "new_dealer" in table.burns_due else "batch"
            since = "the dealer came to the table" if reason == "new_dealer" else "the batch was loaded"
            yield Violation(
                round_.number,
                step.seq,
                clause,
                f"a burn ({reason}) before the first card",
                f"a card to {step.place} with no burn since {since}",
            )
            table.burns_due.clear()
    if cover:
        table.burns_due["batch"] = None  # (d): the round is completed, then the cards are reshuffled
    table.started = True


def _arrives(dealer: object, table: Table) -> None:
    if isinstance(dealer, str) and dealer != table.dealer:
        table.dealer = dealer
        if table.started or not table.opening_burned:
            table.burns_due["new_dealer"] = None


def cover_between_rounds(table: Table) -> None:
    """A ``cover_card`` record outside any round (at a burn between rounds, or told to the service
    at a restart): the batch ended there (672a.7(d)), and the next one is burned before its first
    card as one that follows a round's cover card is."""
    table.burns_due["batch"] = None


def burned(fields: Fields, table: Table) -> None:
    """A ``burn`` record, in a round or between rounds: it meets the burn of its reason (and at the
    trail's first round, both: see READING); a burn naming a dealer not yet at the table is that
    dealer's arrival."""
    dealer = fields.get("dealer")
    if isinstance(dealer, str) and dealer != table.dealer:
        table.dealer = dealer
    if not table.started:
        table.burns_due.clear()
        table.opening_burned = True
    table.burns_due.pop(str(fields.get("reason")), None)
