"""``croupier replay``: rebuild rounds from the audit trail for review (docs/audit.md, "Replaying a
round"); 672a.7(s) and 686a.7(n) require that each hand can be reconstructed from the pickup.

The chain is verified first: a replay of a trail that fails verification would present altered
evidence as the table's, so it is refused, naming the first bad record. With ``--round`` the
files' indexes let it read and verify only what the round needs (croupier.audit.lookup); whatever
does not check there sends it back to reading and verifying the whole series, so the answer is the
same either way.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from croupier.audit.lookup import find_round
from croupier.audit.record import AuditError, read_records
from croupier.audit.replay import ReplayCard, ReplayError, ReplayHand, RoundReplay, Step, replay
from croupier.audit.verify import verify_series


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="rebuild rounds from an audit trail for review",
        description="Verify the trail's chain, then print each round (or one) as it was dealt and played.",
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="files in series order (oldest first)")
    p.add_argument("--round", type=int, default=None, help="only this round")
    p.add_argument("--json", action="store_true", help="the rounds as JSON (shape: docs/audit.md)")
    p.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    found = find_round(args.files, args.round) if args.round is not None else None
    if found is None:
        report = verify_series(args.files)
        if report.problem is not None:
            print(f"croupier replay: refused, the trail fails verification: {report.problem}")
            return 1
    try:
        records = read_records(args.files) if found is None else found.in_order()
        rounds = replay(list(records), args.round)
    except (AuditError, ReplayError, OSError) as exc:
        print(f"croupier replay: {exc}")
        return 1
    if args.json:
        print(json.dumps({"rounds": [round_.as_json() for round_ in rounds]}, indent=2))
    else:
        print("\n\n".join(render(round_) for round_ in rounds) if rounds else "no rounds in the trail")
    return 0


def _money(amount: Any) -> str:  # Any: a record's JSON values
    return f"{amount / 100:.2f}" if isinstance(amount, int) and not isinstance(amount, bool) else str(amount)


def _who(fields: dict[str, Any]) -> str:  # Any: a record's JSON values
    seat, hand = fields.get("seat"), fields.get("hand")
    text = "" if seat is None else f"seat {seat}"
    return text + ("" if hand is None else f" hand {hand}")


def _rest(fields: dict[str, Any], skip: tuple[str, ...]) -> str:  # Any: a record's JSON values
    return " ".join(f"{k}={_json(v)}" for k, v in fields.items() if k not in skip and v is not None)


def _json(value: Any) -> str:  # Any: a record's JSON values
    """``json.dumps(value, ensure_ascii=False)``, written out directly for the plain numbers and
    texts that make most of a round's fields (the same text: nothing in them to escape), so that
    replaying one round of a long trail costs little more than reading it (bench/trail_storage.py)."""
    if type(value) is int:
        return str(value)
    if type(value) is str and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    return json.dumps(value, ensure_ascii=False)


def describe(step: Step) -> str:
    """One record as a line; a face-down card's record has no face, and none is printed."""
    f = step.fields
    if step.kind == "card":
        place = f.get("place")
        where = f"seat {place}" if isinstance(place, int) else str(place)
        card = f.get("card") if f.get("face_up") is not False else None
        shown = card or "face down" + (f" ({f['commitment'][:12]}…)" if f.get("commitment") else "")
        source = f" from the {f['source']}" if f.get("source") else ""
        return f"card to {where}{source}: {shown}  [{f.get('clause')}]"
    if step.kind in ("hole_revealed", "revealed"):
        clause = f"  [{f['clause']}]" if f.get("clause") else ""
        return f"turned up at {f.get('place', 'dealer')}: {f.get('card')}{clause}"
    if step.kind in ("wager", "wager_withdrawn", "settlement"):
        text = f"{step.kind} {_who(f)}: {f.get('wager')} {f.get('movement', '')} {_money(f.get('amount'))}"
        return " ".join(text.split()) + " " + _rest(f, ("seat", "hand", "wager", "movement", "amount"))
    if step.kind == "decision":
        return f"decision {_who(f)}: " + _rest(f, ("seat", "hand"))
    return f"{step.kind}: " + _rest(f, ())


def _cards(hand: ReplayHand) -> str:
    return ", ".join(card.shown() for card in hand.cards) or "(no cards)"


def _hand_line(hand: ReplayHand) -> str:
    return f"  {hand.place}: {_cards(hand)}"


def render(round_: RoundReplay) -> str:
    """The round for a surveillance or review person: who and what was at stake, then every step in
    order (cards as they were seen then), then the hands as they ended, settlement and pickup."""
    lines = [
        f"Round {round_.round} - {round_.game} - dealer {', '.join(round_.dealers) or 'not recorded'}",
        f"  audit records #{round_.first_audit_seq}..#{round_.last_audit_seq}; "
        f"reached: {round_.outcome or 'unknown'}",
        *(["Burned before the round:"] if round_.burns else []),
        *(f"  audit #{step.audit_seq} {describe(step)}" for step in round_.burns),
        "Wagers:",
        *(
            f"  {_who(w.fields)}: {w.fields.get('wager')} {_money(w.fields.get('amount'))}"
            for w in round_.wagers
        ),
        "In order (cards as seen at the time):",
        *(f"  #{step.seq:<3} {describe(step)}" for step in round_.timeline),
        "Hands (dealing order):",
        *(_hand_line(hand) for hand in round_.hands),
    ]
    if round_.dealer is not None:
        lines.append(f"Dealer's cards: {_cards(round_.dealer)}")
    if round_.community is not None:
        lines.append(f"Community cards: {_cards(round_.community)}")
    lines.append("Decisions:")
    lines += [f"  #{s.seq:<3} {describe(s)}" for s in round_.decisions] or ["  none"]
    lines.append("Settlements:")
    lines += [f"  #{s.seq:<3} {describe(s)}" for s in round_.settlements] or ["  none"]
    lines.append("Irregularities and rulings:")
    lines += [f"  #{s.seq:<3} {describe(s)}" for s in round_.irregularities] or ["  none"]
    lines.append("Pickup order:")
    lines += [f"  {p.order:>2}. {p.place}: {p.card or 'face down'}" for p in round_.pickup] or [
        "  not recorded card by card"
    ]
    if round_.notes:
        lines.append("Notes:")
        lines += [f"  {note}" for note in round_.notes]
    return "\n".join(lines)


__all__ = ["ReplayCard", "add_parser", "describe", "render"]
