"""The table on a terminal: what a person watching ``croupier run`` or ``croupier sim`` sees, drawn
with rich and redrawn in place.

What the felt shows is built from the rounds' records alone (``Felt``), never from the round's own
objects, which hold the face-down cards: a record names a face-down card by its commitment until
the card is turned up (games/common/records.py), so a card drawn here is a back until its record
turns it up. The seats are panels of one width laid out in as many columns as the terminal holds,
wrapping to rows on a narrow one. The live view is redrawn from the event loop a few times a
second (``shown``), between two of the table's steps, never in the middle of one; while it is up,
log lines bound for the same terminal are printed above it, not over it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from croupier import logs
from croupier.service.table_service import TableService
from croupier.tables.events import HeardRound, RoundListener
from devices.faults import Fault
from games.common.records import Record, Value

#: How a card not yet turned up is drawn: its back.
BACK = "▒▒"
#: The width of one seat's panel; the terminal's width says how many stand side by side.
SEAT_WIDTH = 26
#: The rounds whose outcome the view keeps.
KEEP_ROUNDS = 5
#: Seconds between two redraws of a live view.
REDRAW = 0.25
#: The fields a player's decision is recorded under, by game.
DECISION_FIELDS = ("action", "choice", "decision")
SEAT_PLACE = re.compile(r"seat (\d+)\s*(.*)")


def money(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


@dataclass
class Shown:
    """One card on the felt as a person at the table sees it: its face once turned up, else its back
    (with the commitment that names it, so the record turning it up finds it)."""

    face: str
    commitment: str | None = None


@dataclass
class Seat:
    """A seat in the round in play: its wagers, its cards by place (a hand of a split, a six-card
    hand), the player's last decision, the hand it showed down and its net once settled."""

    wagers: dict[str, int] = field(default_factory=dict)
    cards: dict[str, list[Shown]] = field(default_factory=dict)
    decision: str = ""
    hand: str = ""
    net: int | None = None


class Felt(RoundListener):
    """A table listener keeping what the felt shows: the round in play and its seats, the table's own
    places (the dealer's hand, the community cards), and the last rounds' outcomes."""

    def __init__(self, seats: int, keep: int = KEEP_ROUNDS) -> None:
        self.positions = seats
        self.playing: HeardRound | None = None
        self.number = 0  # the last round begun
        self.seats: dict[int, Seat] = {}
        self.places: dict[str, list[Shown]] = {}
        self.hands: dict[str, str] = {}  # the table's own hands shown down, by place
        self.irregularities: list[str] = []
        self.outcomes: deque[str] = deque(maxlen=keep)

    @property
    def state(self) -> str:
        return self.playing.state if self.playing is not None else "between rounds"

    # -- RoundListener ----------------------------------------------------------------------------
    def round_began(self, round_: HeardRound) -> None:
        self.playing, self.number = round_, round_.number
        self.seats, self.places, self.hands, self.irregularities = {}, {}, {}, []

    def round_ended(self, round_: HeardRound) -> None:
        house = -sum(round_.net(seat) for seat in round_.positions)
        self.outcomes.appendleft(f"round {round_.number}: {round_.state}, house {money(house)}")
        self.playing = None

    def record(self, record: Record) -> None:
        kind, fields = record.kind.value, record.fields
        seat, place = _where(fields)
        if kind == "irregularity":
            self.irregularities.append(str(fields.get("code", "")))
        elif kind == "card" and place:
            face = fields.get("card")
            shown = (
                Shown(str(face))
                if fields.get("face_up") and face
                else Shown(BACK, _text(fields, "commitment"))
            )
            self._cards(seat, place).append(shown)
        elif kind in ("revealed", "hole_revealed"):
            self._turn_up(_text(fields, "commitment"), str(fields.get("card")))
        elif kind == "hand" and place:
            self._shown_down(seat, place, fields)
        elif seat is not None:
            self._seat_record(kind, self._seat(seat), fields)

    # -- the felt ---------------------------------------------------------------------------------
    def _seat(self, seat: int) -> Seat:
        return self.seats.setdefault(seat, Seat())

    def _cards(self, seat: int | None, place: str) -> list[Shown]:
        return (
            self._seat(seat).cards.setdefault(place, [])
            if seat is not None
            else self.places.setdefault(place, [])
        )

    def _turn_up(self, commitment: str | None, face: str) -> None:
        """The card the commitment names turned up, wherever it lies."""
        hands = [
            *self.places.values(),
            *(cards for seat in self.seats.values() for cards in seat.cards.values()),
        ]
        for card in (card for cards in hands for card in cards):
            if commitment is not None and card.commitment == commitment:
                card.face, card.commitment = face, None
                return

    def _shown_down(self, seat: int | None, place: str, fields: Mapping[str, Value]) -> None:
        """A hand shown down: its rank; cards dealt face down with no commitment of their own (from
        the dealer's hand, known by the shuffler's sealed order) are turned up by it."""
        cards = self._cards(seat, place)
        if cards and all(card.face == BACK and card.commitment is None for card in cards):
            cards[:] = [Shown(face) for face in str(fields.get("cards", "")).split()]
        name = str(fields.get("rank") or fields.get("hand") or "")
        if seat is not None:
            self._seat(seat).hand = name
        else:
            self.hands[place] = name

    @staticmethod
    def _seat_record(kind: str, seat: Seat, fields: Mapping[str, Value]) -> None:
        if kind == "wager" and not fields.get("stays"):  # ``stays``: a wager kept in play, placed before
            wager = str(fields["wager"])
            seat.wagers[wager] = seat.wagers.get(wager, 0) + int(fields.get("amount") or 0)
        elif kind == "wager_withdrawn":  # the seat's wagers placed again: this one is no longer in play
            seat.wagers.pop(str(fields["wager"]), None)
        elif kind == "decision":
            seat.decision = next((str(fields[key]) for key in DECISION_FIELDS if key in fields), "")
        elif kind == "settlement":
            seat.net = (seat.net or 0) + int(fields.get("net") or 0)


def _text(fields: Mapping[str, Value], key: str) -> str | None:
    value = fields.get(key)
    return None if value is None else str(value)


def _where(fields: Mapping[str, Value]) -> tuple[int | None, str]:
    """The seat a record belongs to (None: the table's own, or none) and the place it names: a
    place is ``seat 3``, ``seat 3 hand 1`` or a bare seat number at some games, else the table's own
    (``dealer``, ``community``)."""
    place = fields.get("place")
    seat = fields.get("seat")
    if isinstance(place, int) and not isinstance(place, bool):
        return place, f"seat {place}"
    text = "" if place is None else str(place)
    matched = SEAT_PLACE.fullmatch(text)
    if matched:
        return int(matched.group(1)), text
    if isinstance(seat, int) and not isinstance(seat, bool):
        return seat, text
    return None, text


# -- drawing ---------------------------------------------------------------------------------------
def seat_layout(felt: Felt) -> Columns:
    """Every seat of the table as a panel of one width, as many side by side as the width holds."""
    return Columns([_seat_panel(number, felt.seats.get(number)) for number in range(1, felt.positions + 1)])


def _seat_panel(number: int, seat: Seat | None) -> Panel:
    lines = Text()
    if seat is None:
        lines.append("empty", style="dim")
    else:
        lines.append(
            ", ".join(f"{wager} {money(amount)}" for wager, amount in seat.wagers.items()) or "no wager"
        )
        for place, cards in seat.cards.items():
            label = SEAT_PLACE.fullmatch(place)  # a seat's second hand (a split) by its own name
            named = len(seat.cards) > 1 and label is not None and label.group(2)
            lines.append(f"\n{label.group(2)}: " if named and label is not None else "\n")
            lines.append(" ".join(card.face for card in cards), style="bold")
        for said in (seat.decision, seat.hand):
            if said:
                lines.append(f"\n{said}", style="cyan")
        if seat.net is not None:
            lines.append(f"\nnet {money(seat.net)}", style="green" if seat.net >= 0 else "red")
    return Panel(lines, title=f"seat {number}", width=SEAT_WIDTH, title_align="left")


def table_places(felt: Felt) -> Text:
    """The table's own places: the dealer's cards, the community cards."""
    text = Text()
    for place, cards in felt.places.items():
        text.append(f"{place}: ")
        text.append(" ".join(card.face for card in cards), style="bold")
        text.append(f" ({felt.hands[place]})   " if felt.hands.get(place) else "   ", style="cyan")
    return text


def devices_line(links: Mapping[str, str], errors: Mapping[str, str] | None = None) -> Text:
    """Each device's link state, green when ready; a device not ready with its last error."""
    text = Text("devices: ")
    for n, (name, state) in enumerate(sorted(links.items())):
        text.append(", " if n else "")
        text.append(f"{name} {state}", style="green" if state == "ready" else "bold red")
        error = (errors or {}).get(name)
        if state != "ready" and error:
            text.append(f" ({error})", style="red")
    return text


def faults_lines(faults: tuple[Fault, ...] | list[Fault]) -> Text:
    """The latched faults, each with its clause and what it says, or "faults: none"."""
    if not faults:
        return Text("faults: none", style="green")
    text = Text("faults:", style="bold red")
    for fault in faults:
        text.append(f"\n  {fault.code} ({fault.clause}): {fault.detail}", style="red")
    return text


class TableStatus:
    """``croupier run``'s live status of its table: the round and what it waits for, the seats, the
    round's irregularities, the devices and their links, the latched faults and the last rounds;
    ``stopping`` once told to."""

    def __init__(self, service: TableService, felt: Felt, *, name: str) -> None:
        self.service, self.felt, self.name = service, felt, name
        self.stopping = ""

    def __rich__(self) -> RenderableType:
        service, felt, table = self.service, self.felt, self.service.table
        header = Text(f"{self.name} - {service.game} - ", style="bold")
        header.append(f"round {felt.number}" if felt.number else "no round yet")
        header.append(f" ({felt.state})" + ("" if service.is_open else " - closed"))
        waiting = service.waiting_for()
        now = Text("waits for: ")
        now.append(
            waiting or ("nobody" if felt.playing is not None else "the next round"), style="bold yellow"
        )
        errors = {
            name: str(conn.last_error)
            for name, conn in table.feeds.connections().items()
            if conn.last_error is not None
        }
        parts: list[RenderableType] = [header, now, seat_layout(felt)]
        if felt.places:
            parts.append(table_places(felt))
        if felt.irregularities:
            parts.append(Text("irregularities: " + ", ".join(felt.irregularities), style="bold yellow"))
        parts += [devices_line(table.feeds.links(), errors), faults_lines(table.faults)]
        if felt.outcomes:
            parts.append(Text("last rounds: " + "; ".join(felt.outcomes), style="dim"))
        if self.stopping:
            parts.append(Text(self.stopping, style="bold magenta"))
        return Group(*parts)


@contextlib.asynccontextmanager
async def shown(view: RenderableType, console: Console) -> AsyncIterator[Live]:
    """Draw ``view`` live on ``console`` while the block runs, redrawn every ``REDRAW`` seconds from
    the event loop. Log lines bound for a terminal meanwhile are printed above it at each redraw,
    together: the console draws the view again under whatever it prints, and a table logging each
    record would otherwise spend its time drawing. The last drawing stays on the screen."""
    lines: deque[str] = deque()  # a thread's log line too (pyserial's), taken off one by one
    with Live(view, console=console, auto_refresh=False) as live, logs.written_by(lines.append):
        redraw = asyncio.create_task(_redraw(live, lines))
        try:
            yield live
        finally:
            redraw.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await redraw
            _draw(live, lines)


async def _redraw(live: Live, lines: deque[str]) -> None:
    while True:
        _draw(live, lines)
        await asyncio.sleep(REDRAW)


def _draw(live: Live, lines: deque[str]) -> None:
    """The log lines written since the last drawing, above the view, then the view."""
    if lines:
        written = [lines.popleft() for _ in range(len(lines))]
        live.console.print(Text.from_ansi("\n".join(written)), soft_wrap=True)
    live.refresh()
