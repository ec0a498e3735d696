"""The table service: one table, its journal, and whoever plays it — the dealer's screen or,
with no API configured, simulated players.

``TableService`` is what ``croupier run`` keeps running and what the local API acts on. People's
actions go through it so that each is audited before it is acknowledged (croupier.service.journal):
a supervisor's clear or ruling, a dealer change, the table opened or closed, a keyed reset, a wire
trace switched. Rounds are played one at a time: at a table driven from the screen a round begins
when the first wager is keyed and takes wagers until "no more bets" (croupier.screen.prompts); the
table's questions (decisions, counts) become the screen's prompts (croupier.screen.players).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from croupier.config.limits import Limits
from croupier.screen.players import KeyedCounts
from croupier.screen.prompts import Screen
from croupier.service.journal import ROUND_CUT_OFF_CODE, TableJournal
from croupier.tables.events import Opening
from croupier.tables.holding import HOLD_FOR_SUPERVISOR
from croupier.tables.registry import table_kind
from devices.equipment import FIRMWARE_UNVERIFIED
from devices.faults import FaultLatched
from drivers.authenticity import AuthenticityChecked
from drivers.connection import ConnectionState
from drivers.errors import DriverError, NotConnected
from games.common.messages import Resolution
from vocabulary.events import Event
from vocabulary.operators import SUPERVISOR_CLEARS, Operator, Role
from vocabulary.rules import Rule, RuleViolation

log = structlog.get_logger("croupier.service")

WIRE_TRACE = Rule(
    "decision 0018",
    "each device on real equipment keeps a switchable hex trace, face-down values redacted",
)
DEVICES_READY = Rule(
    "605a.4(c); decision 0013",
    "a table opens only with each of its devices connected and its firmware approved",
)

#: The journal's ``table_closed`` reason when the table was stopped with nothing held or awaited.
STOPPED = "stopped"
#: Its reason when told to stop at once (a second Ctrl-C): the round in play is left, to be held as
#: cut off at the next start, as one waiting for a person is.
INTERRUPTED = "interrupted: the round in play cut off"

ONE_ROUND_AT_A_TIME = Rule(
    "decision 0019; 672a.7(c)",
    "a table plays one round at a time, and a dealer changes only between rounds",
)
DEALER_ONCE_OPEN = Rule(
    "672a.7(c); 686a.7(c)",
    "a dealer changes once the day's table is open: its opening takes the dealer on duty from where "
    "the day left off, and a change before it would be undone, the new dealer's burn burned in the "
    "last dealer's name",
)


@dataclass
class DayOpening:
    """The day's opening on real equipment as it stands, for every screen that asks (the open's
    202 reply, ``GET /v1/table``): the steps so far, whom it was opened by, and how it stands —
    "opening" while it runs, "open" once the table is open, "refused" with the reason and clause
    when it stopped (decision 0037). While it runs with a fault latched it waits for the
    supervisor's clear, as every card-moving step does, and shows "held"."""

    by: str
    steps: list[str] = field(default_factory=list)
    state: str = "opening"
    reason: str | None = None
    clause: str | None = None


class TableService:
    """One table in service. ``keyed``: played from the dealer's screen (else by ``players``)."""

    def __init__(
        self,
        table: Any,  # Any: a table of any game
        journal: TableJournal,
        *,
        game: str,
        players: Any = None,  # Any: the players of any game
        cover: Callable[[int], object] | None = None,
        opened: bool = True,
        screen: Screen | None = None,
        limits: Limits | None = None,
    ) -> None:
        """``cover``: at a simulated Crazy 4 Poker table, puts a keyed progressive wager's chip on
        the seat's sensor, as the player would (simulator.players.table_options). ``opened``:
        whether the table was opened for the day (a simulated one is; at real equipment a
        supervisor opens it from the screen). ``screen``: the one the table's dealer already
        prompts on (a human dealer at real equipment). ``limits``: the posted table limits a keyed
        wager must be within ([limits] in the table configuration)."""
        self.table, self.journal, self.game = table, journal, game
        self.screen = screen or Screen()
        self.keyed = players is None
        if self.keyed:
            players = table_kind(game).players(self.screen, rules=table.rules, cover=cover, limits=limits)
        self.players = players
        if self.keyed and screen is None:  # a simulated dealer's hands; the counts are keyed
            table.dealer = KeyedCounts(table.dealer, self.screen)
        self.round_in_play = False
        #: The day's last opening, running or ended (None: none asked yet).
        self._day: DayOpening | None = None
        self._opening: asyncio.Future[None] | None = None
        table.events.subscribe(self._heard)
        for machine in table.equipment:
            machine.latch.events.subscribe(self._latch_heard)
        self._day_opened = opened
        self._opened = asyncio.Event()
        if opened:
            self._opened.set()
            journal.table_opened()
        else:
            self.screen.close()

    # -- rounds ---------------------------------------------------------------------------------
    async def serve(self, stop: asyncio.Event, rounds: int = 0, halt: asyncio.Event | None = None) -> str:
        """Play rounds until ``stop`` (or ``rounds`` are played) and say why the table closed, for
        the journal's ``table_closed``: a round in play is finished first; one held or waiting for a
        person (``waiting_for``) is left as it is, to be held as cut off at the next start
        (docs/recovery.md), so that a stop never waits on someone who is not there. ``halt``, set
        after ``stop``, leaves the round in play at once, the same way."""
        halted = halt or asyncio.Event()

        def left() -> str | None:
            return INTERRUPTED if halted.is_set() else self.waiting_for()

        try:
            while not stop.is_set() and (rounds <= 0 or self.table.rounds < rounds):
                if not await _until(self._ready_for_round(), stop) or stop.is_set():
                    return self.waiting_for() or STOPPED
                self.round_in_play = True
                try:
                    cut_off = await _finish(self.table.play_round(self.players), stop, left)
                    if cut_off is not None:
                        return cut_off
                    self.journal.save_position()  # the cards where the round and any shoe change left them
                finally:
                    self.round_in_play = False
            return STOPPED if stop.is_set() else f"{self.table.rounds} rounds played"
        finally:
            await self._opening_left(halted)

    async def _opening_left(self, halted: asyncio.Event) -> None:
        """On a stop, the day's opening still running is finished first, as a round in play is;
        one waiting for a person (a supervisor's clear, an answer on the screen), or told to stop
        at once, is left where it is: its cards stay in the equipment, and the next start's open
        reads them."""
        opening = self._opening
        while opening is not None and not opening.done():
            if self.waiting_for() is not None or halted.is_set():
                opening.cancel()
            await asyncio.wait({opening}, timeout=0.5)

    def waiting_for(self) -> str | None:
        """What the table waits for a person to do, if anything: a supervisor's clear of its
        latched faults (``held: CODE``), a supervisor's ruling on a held round, or an answer on the
        screen (``waiting: PROMPT``); or the link of a linked progressive, for the amount of a
        jackpot hit at this table (``held: link ...``: a stop does not wait for it). A lock
        another table's hit puts on a linked level holds nothing: only the progressive wagers
        are refused (decision 0039)."""
        if self.table.holding:
            return "held: " + ", ".join(fault.code for fault in self.table.holding)
        if self.table.held_round is not None:
            return f"held: round {self.table.held_round.number} for a supervisor's ruling"
        progressive = self.table.progressive
        if progressive is not None and progressive.linked is not None and progressive.linked.awaiting:
            return f"held: {progressive.linked.awaiting}"
        if self.screen.prompt is not None:
            return f"waiting: {self.screen.prompt.kind}"
        return None

    async def _ready_for_round(self) -> None:
        """The table open and ready (a burn due done first) and, at a keyed table, the first wager
        keyed."""
        await self._opened.wait()
        await self.table.prepare_round()
        if self.keyed:
            await self.screen.first_wager(self.players.parse_wager, **self.players.betting_shown())

    # -- people's actions -----------------------------------------------------------------------
    async def clear(self, code: str, operator: Operator) -> None:
        await supervisor_clear(self.table, self.journal, code, operator)

    def resolve(self, operator: Operator, resolution: Resolution) -> None:
        supervisor_ruling(self.table, self.journal, operator, resolution)

    def dealer_change(self, dealer: str, operator: Operator) -> None:
        """A new dealer between rounds; the shoe burns a card before the next deal (672a.7(c))."""
        if self.table.dealer_on_duty is None:  # Hold 'Em and Crazy 4 Poker: a round names no dealer
            raise LookupError(f"{self.table.name}: a {self.game} table keeps no dealer on duty to change")
        if self.round_in_play:
            raise RuleViolation(ONE_ROUND_AT_A_TIME, f"dealer change to {dealer} refused: a round is in play")
        if not self._day_opened:
            refused = f"dealer change to {dealer} refused: the table has not opened"
            raise RuleViolation(DEALER_ONCE_OPEN, refused)
        self.table.dealer_change(dealer)
        self.journal.operator_action("dealer_change", operator, dealer=dealer)
        self.journal.save_position()  # the new dealer on duty and the burn owed, kept for a restart

    def close(self, operator: Operator) -> None:
        """A supervisor closes the table: no new round begins; one in play is finished."""
        self._supervisor(operator, "close the table")
        self._opened.clear()
        self.screen.close()
        self.journal.operator_action("table_close", operator)

    def open(self, operator: Operator) -> DayOpening | None:
        """A supervisor opens the table. The first time, with every device connected and no fault
        latched, the table's own opening starts (shoe read, shuffler opened, the reader inspected
        under their name) and runs on in the service: this returns it as it stands at once (on real
        equipment it takes minutes), each step told as it begins (an ``Opening`` event on the
        table's hub), its end too. An open asked again meanwhile (another click, another console)
        joins it rather than starting a second. Returns None when the table opened at once (a
        day already opened, a simulated table). Raises the refusal known before anything starts."""
        self._supervisor(operator, "open the table")
        if self._opening is not None:
            return self.opening
        if not self._day_opened:
            try:
                self._ready_to_open()
            except RuleViolation as refused:
                self.table.events.publish(Opening(_refusal(refused), "refused"))
                raise
            self._day = DayOpening(operator.ident)
            self._opening = asyncio.ensure_future(self._open_day(operator, self._day))
            self._opening.add_done_callback(self._opened_day)
            return self.opening
        self.journal.operator_action("table_open", operator)
        self._betting_opens()
        return None

    @property
    def opening(self) -> DayOpening | None:
        """The day's opening as it stands, "held" while a latched fault holds it."""
        day = self._day
        if day is None:
            return None
        shown = DayOpening(**vars(day) | {"steps": list(day.steps)})
        if day.state == "opening" and self.table.holding:
            shown.state, shown.reason, shown.clause = "held", self._held(), HOLD_FOR_SUPERVISOR.clause
        return shown

    def _held(self) -> str:
        latched = ", ".join(f"{fault.code} ({fault.clause})" for fault in self.table.holding)
        return f"held until a supervisor clears {latched}"

    def _ready_to_open(self) -> None:
        """Every device connected (605a.4(c)), no fault latched: else the open is refused at once."""
        ready = ConnectionState.READY.value
        down = [name for name, link in self.table.feeds.links().items() if link != ready]
        if down:
            raise RuleViolation(DEVICES_READY, f"the table cannot open: not connected: {', '.join(down)}")
        if self.table.holding:
            latched = ", ".join(f"{fault.code} ({fault.detail})" for fault in self.table.holding)
            raise RuleViolation(HOLD_FOR_SUPERVISOR, f"the table cannot open: latched {latched}")

    def _betting_opens(self) -> None:
        self.screen.open()
        self._opened.set()

    async def _open_day(self, operator: Operator, day: DayOpening) -> None:
        """The day's opening, which opens the table for betting once it is done; a refusal on the
        way ends it, told with its reason."""
        try:
            resumed = await self.table.open(operator, self.journal.position())
        except Exception as exc:  # nobody awaits the opening: its end is told, and logged
            day.state, day.reason = "refused", _refusal(exc)
            day.clause = exc.rule.clause if isinstance(exc, RuleViolation) else None
            self.table.events.publish(Opening(day.reason, "refused"))
            log.warning("the opening refused", reason=day.reason, exc_info=exc)
            return
        self.journal.save_position()
        self._day_opened = True
        self.journal.operator_action("table_open", operator, resumed=resumed)
        self.journal.table_opened()
        self._betting_opens()
        day.state = "open"
        self.table.events.publish(Opening("the table is open", "open"))

    def _opened_day(self, opening: asyncio.Future[None]) -> None:
        """The opening is over: the next open starts afresh (after a refusal) or finds the day open.
        One left by a stop (``_opening_left``) ends refused."""
        self._opening = None
        if opening.cancelled():
            assert self._day is not None  # an opening running has its record
            self._day.state, self._day.reason = "refused", "left when the service stopped"

    def _heard(self, event: Event) -> None:
        """Each step of the table's opening, kept while it runs for a screen that asks how far it is."""
        if isinstance(event, Opening) and self._opening is not None and event.state == "under way":
            assert self._day is not None  # an opening running has its record
            self._day.steps.append(event.step)

    def _latch_heard(self, event: Event) -> None:
        """A fault latched while the opening runs holds it until cleared: told to every screen."""
        if isinstance(event, FaultLatched) and self._opening is not None:
            self.table.events.publish(Opening(self._held(), "held"))

    async def reset_level(self, level: int, key: str, operator: Operator) -> None:
        """A supervisor turns the reset key of a level a hit froze (605a.7(a)); betting then opens
        again. The key is checked by the controller and never recorded."""
        if self.table.progressive is None:
            raise KeyError(f"{self.table.name} has no progressive system")
        await self.table.reset_level(level, key, operator)
        self.journal.operator_action("progressive_reset", operator, level=level)

    def trace(self, device: str, enabled: bool, operator: Operator) -> None:
        """A supervisor switches a device's hex wire trace on or off (docs/wire-trace.md)."""
        self._supervisor(operator, "switch a wire trace")
        trace = _connection(self.table, device).trace
        if trace is None:
            raise RuleViolation(WIRE_TRACE, f"{device} keeps no wire trace (a simulated device)")
        trace.enabled = enabled
        self.journal.operator_action("wire_trace", operator, device=device, enabled=enabled)

    async def verify(self, device: str, operator: Operator) -> AuthenticityChecked:
        """A supervisor has a device's firmware checked now (58 Pa. Code § 461a.20(b): on demand)."""
        self._supervisor(operator, "verify a device's firmware")
        return await supervisor_verify(self.table, self.journal, device, operator)

    @property
    def is_open(self) -> bool:
        return self._opened.is_set()

    @staticmethod
    def _supervisor(operator: Operator, action: str) -> None:
        if operator.role is not Role.SUPERVISOR:
            refused = f"{operator.ident} ({operator.role.value}) may not {action}"
            raise RuleViolation(SUPERVISOR_CLEARS, refused)


def _refusal(exc: Exception) -> str:
    """Why an opening was refused, for every screen: a rule's or a device's reason as the refusing
    reply gives it; anything else only by its kind (the log has the rest)."""
    if isinstance(exc, RuleViolation):
        return f"{exc.detail} ({exc.rule.clause})"
    if isinstance(exc, DriverError):
        return str(exc)
    return f"the opening failed ({type(exc).__name__}): see the service's log"


async def supervisor_clear(
    table: Any, journal: TableJournal | None, code: str, operator: Operator  # Any: a table of any game
) -> None:
    """A supervisor clears a latched fault, audited before it is acknowledged: the one path of the
    API and of the simulated floor supervisor, so that clearing ROUND_CUT_OFF always writes the cut-off
    round's ``round_voided`` record (decision 0012), whoever clears it, and a linked progressive
    takes back the voided round's contribution and any hit of it (decision 0044)."""
    await table.clear(code, operator)
    if journal is not None:
        journal.operator_action("clear", operator, code=code)
        if code == ROUND_CUT_OFF_CODE:
            journal.cut_off_settled(operator)
    if code == ROUND_CUT_OFF_CODE and table.progressive is not None:
        table.progressive.voided()


async def supervisor_verify(
    table: Any, journal: TableJournal | None, device: str, operator: Operator  # Any: a table of any game
) -> AuthenticityChecked:
    """A device's firmware checked on demand (58 Pa. Code § 461a.20(b); decision 0026), for the API
    and the simulated floor supervisor alike: the check is applied before this returns (its
    ``authenticity_check`` record written, a failure latched), then the supervisor's request is
    recorded. A device refused for its firmware is tried again. Raises RuleViolation when the device
    cannot be reached to check."""
    try:
        check = await _connection(table, device).verify()
    except NotConnected as exc:
        raise RuleViolation(FIRMWARE_UNVERIFIED, f"{device} cannot be verified now: {exc}") from None
    await table.feeds.settled()
    if journal is not None:
        result = "passed" if check.passed else "failed"
        journal.operator_action("verify", operator, device=device, check=check.kind.value, result=result)
    return check


def _connection(table: Any, device: str) -> Any:  # Any: a table of any game
    """The connection of the table's ``device``; KeyError naming the devices there are."""
    connections = table.feeds.connections()
    if device not in connections:
        raise KeyError(f"no device {device!r} at {table.name}; devices: {sorted(connections)}")
    return connections[device]


def supervisor_ruling(
    table: Any, journal: TableJournal | None, operator: Operator, resolution: Resolution  # Any: any table
) -> None:
    """A supervisor's ruling on the held round, audited: the one path of the API and the floor."""
    held = table.held_round
    table.resolve(operator, resolution)
    if journal is not None:
        journal.operator_action("ruling", operator, resolution=resolution.value, held_round=held.number)


async def _until(waiting: Awaitable[None], stop: asyncio.Event) -> bool:
    """Wait for ``waiting`` unless told to stop first; False when stopped."""
    task = asyncio.ensure_future(waiting)
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    for pending in (task, stopper):
        if not pending.done():
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pending
    return task.done() and not task.cancelled()


async def _finish(
    play: Awaitable[Any], stop: asyncio.Event, waiting_for: Callable[[], str | None]  # Any: any round
) -> str | None:
    """Play the round to its end even when told to stop: a round is not abandoned mid-deal. Only a
    round waiting for a person (a supervisor's clear or ruling, an answer on the screen), or one told
    to stop at once, is left: returns what it waits for then, None once the round has ended. Once
    stopped, what it waits for is looked at twice a second."""
    task = asyncio.ensure_future(play)
    while not task.done():
        watched = {task} if stop.is_set() else {task, asyncio.ensure_future(stop.wait())}
        await asyncio.wait(watched, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
        for stopper in watched - {task}:
            stopper.cancel()
        waiting = waiting_for() if stop.is_set() else None
        if waiting is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            log.warning("stopped with the round left", waiting=waiting)
            return waiting
    task.result()
    return None
