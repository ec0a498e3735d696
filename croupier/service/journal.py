"""The table's memory: the audit trail written as things happen, and the state that survives a kill.

``TableJournal`` listens to one table (croupier.tables.events) and its devices' fault latches,
as the durable listener of each (vocabulary.events, decision 0031):

- every round record goes to the audit trail before the table publishes it to anyone else, so it
  is on disk before anything the round took is acknowledged;
- a fault latched or released, a supervisor's clear or ruling, a dealer change, the table opened
  or closed: one audit record each, written before the action is acknowledged;
- every equipment event a device's machine reports (a door, a reboot, a link back, a shuffle, a
  batch loaded or collected, a chip count: devices.equipment.EquipmentEvent): one record each, with
  the device's name and identity and the clause it serves (decision 0027);
- the state store (croupier/state) keeps the latched faults, the round in progress, the table's
  counters and the unit each device accepted, each write committed before it returns.

After a crash, ``restore`` puts the latched faults back on the devices' latches (a fault latched
before a kill still blocks dealing, decision 0017: faults latch and survive a restart) and
continues the round numbering; ``remember_units`` hands each device's connection the unit it last
accepted, so a unit exchanged while the table was off latches DEVICE_SWAPPED as a swap mid-run
does (decision 0017). A round the crash cut off cannot be taken up again: the service's
memory of it died with the process and the cards may have been moved meanwhile. It is held for a
supervisor with the latched host fault ``ROUND_CUT_OFF``; the trail holds every card and wager of
it up to the kill, which the supervisor settles by hand as a voided round (wagers returned) and
clears (docs/recovery.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import structlog

from croupier.audit.adapter import append_record
from croupier.audit.lookup import find_round
from croupier.audit.record import read_records
from croupier.audit.replay import RoundReplay, replay
from croupier.audit.writer import AuditTrail
from croupier.config.table import file_sha256
from croupier.state import TableState
from croupier.tables.events import HeardRound, RoundListener
from devices.equipment import DeviceIrregularity, Equipment, EquipmentEvent
from devices.faults import Fault
from drivers.authenticity import AuthenticityChecked
from games import registry
from games.common.records import Record, RecordKind
from vocabulary.events import Event
from vocabulary.operators import Operator
from vocabulary.rules import Irregularity, Rule

log = structlog.get_logger("croupier.journal")
ROUND_CUT_OFF_CODE = "ROUND_CUT_OFF"

SERVICE_LIFE = Rule(
    "461a.10(s); decision 0027",
    "the table PC's service records its own start, with whether the run before it stopped cleanly, and "
    "its clean stop",
)

ACCESS_REFUSED = Rule(
    "461a.10(s); decision 0022",
    "every request refused for who sent it (no or an unknown token, a role that may not) is an access "
    "record, without the token; a flood is counted, not written line by line",
)
#: The clause each access record carries.
ACCESS_LOGGED = ACCESS_REFUSED.clause
#: Access records written in a minute at most; the rest are counted in the next one.
ACCESS_RECORDS = 20

ROUND_CUT_OFF = Rule(
    "decision 0012; decision 0017",
    "a round cut off by a restart is held for a supervisor: voided by hand, wagers returned",
)


class TableJournal(RoundListener):
    """The audit trail and state store of one table named ``table`` playing ``game``: a durable
    listener of the table's events, told of each before any other listener."""

    def __init__(self, trail: AuditTrail, state: TableState, *, table: str, game: str) -> None:
        self.trail, self.state, self.table, self.game = trail, state, table, game
        self.round: int | None = None  # the round in play, for the fault records' round number
        self.kept: Any = None  # Any: the table of any game kept (``keep``)
        self._latched: dict[str, dict[str, Fault]] = {}  # by device: the faults last recorded latched
        self._machines: list[Equipment[Any]] = []  # Any: any device's driver, watched (``watch_latches``)
        self._configuration: dict[str, str] = {"game": game}  # what table_open names (service_started)
        # access_refused's bound: the minute's start, the records written in it, the ones left out.
        self._access_window, self._access_written, self._access_unrecorded = time.monotonic(), 0, 0

    def keep(self, table: Any) -> None:  # Any: a table of any game
        """Keep ``table``: its latches and round restored after a restart, then every record,
        fault, round end and the position of its cards written as they happen."""
        self.kept = table
        self.rules_in_force(table.rules)
        self.watch_latches(table.equipment)
        table.rounds = self.restore(table.equipment)
        self.remember_units(table.equipment)
        table.events.subscribe(self, durable=True)

    def remember_units(self, equipment: Iterable[Equipment[Any]]) -> None:  # Any: any device's driver
        """Hand each device's connection (a meter sign's too) the unit it last accepted, and keep
        each unit it accepts from now on (the first to answer where none was kept, or one a
        supervisor accepts over DEVICE_SWAPPED), each saved before the link takes it. A device
        no longer configured forgets its unit (605a.4(c); decision 0017)."""
        connections = [conn for machine in equipment for conn in machine.connections()]
        self.state.forget_units({conn.name for conn in connections})
        for conn in connections:
            kept = self.state.unit(conn.name)
            if kept is not None:
                conn.remember(kept)
            elif conn.accepted is not None:  # accepted before the journal kept the table
                self.state.save_unit(conn.name, conn.accepted)
            conn.keep_accepted = partial(self.state.save_unit, conn.name)

    def save_position(self) -> None:
        """Where the day's cards are (the table's ``position()``: the batches in the shoe and the
        shuffler, the counts the rules keep across rounds), so that the table opened again after
        a restart goes on from them. Saved when the table opens, as each round begins (the cards
        where the round found them), after each round (and any shoe change it ended with), and at a
        dealer change (the new dealer on duty, and the burn owed, 672a.7(c))."""
        self.state.save_table(self.table, {**self._counters(), "position": self.kept.position()})

    def position(self) -> dict[str, Any] | None:  # Any: JSON values
        """The position last saved; None before the table first opened."""
        return self._counters().get("position")

    # -- what the table does --------------------------------------------------------------------
    def round_began(self, round_: HeardRound) -> None:
        self.round = round_.number
        if self.kept is not None:  # a journal of rounds alone keeps no table's position
            self.save_position()
        self.state.begin_round(self.table, round_.number, {})

    def record(self, record: Record) -> None:
        append_record(self.trail, self.game, record)
        self._cover_card_out(record.kind)

    def _cover_card_out(self, kind: str) -> None:
        """The position saved as a cover card comes out (in a round, or at a burn between rounds):
        the shoe is to be changed even if the service stops before it is (croupier.tables.shoe_table)."""
        if kind == RecordKind.COVER_CARD and self.kept is not None:
            self.save_position()

    def round_ended(self, round_: HeardRound) -> None:
        self._line_errors()
        self.state.end_round(self.table, round_.number, {**self._counters(), "rounds": round_.number})
        self.round = None

    def _counters(self) -> dict[str, Any]:  # Any: JSON values
        return self.state.load_table(self.table) or {}

    # -- the devices' latches and irregularities ------------------------------------------------
    def watch_latches(self, equipment: Iterable[Equipment[Any]]) -> None:  # Any: any device's driver
        """Keep each device's latched faults in the state store and in the trail as they change,
        and write each irregularity its rules find (``device_irregularity``), each equipment event
        it reports (``equipment_event``) and each authenticity check of its firmware
        (``authenticity_check``, those made already first) to the trail. The equipment events the
        devices made before (a simulated table's opening shuffles and loads) are written first, in
        the order they were made across the devices."""
        equipment = list(equipment)
        # Made before the journal watched (the opening's handshakes, shuffles and loads; a firmware
        # refused at start-up): written first, in the order they were made across the devices.
        backlog: list[EquipmentEvent | AuthenticityChecked] = [
            *(event for machine in equipment for event in machine.take_unheard()),
            *(check for machine in equipment for check in machine.checks),
        ]
        for made in sorted(backlog, key=lambda made: made.made):
            self._equipment_heard(made)
        for machine in equipment:
            self._machines.append(machine)
            self._latched[machine.name] = {}
            machine.latch.events.subscribe(partial(self._latch_heard, machine), durable=True)
            if machine.latch.faults:  # latched before the journal watched (a link's too): recorded now
                self._latch_changed(machine)
            machine.listen(self._equipment_heard, durable=True)

    def _equipment_heard(self, event: Event) -> None:
        """A device's event: each irregularity, equipment event and authenticity check to the trail."""
        match event:
            case EquipmentEvent():
                self.equipment_event(event)
            case AuthenticityChecked():
                self.authenticity_checked(event)
            case DeviceIrregularity(device=device, irregularity=irregularity):
                self._irregular(device, irregularity)

    def equipment_event(self, event: EquipmentEvent) -> None:
        """One equipment event as a record of its own kind: the device by name and identity (model,
        serial, firmware and its hash), the clause, the event's fields, and the round in play (null
        between rounds), so a door opened mid-round is found in that round's place in the trail."""
        fields = {"device": event.device, **event.unit, "clause": event.clause}
        self.trail.append(event.kind, self.round, {**fields, **event.fields})

    def _line_errors(self) -> None:
        """Each watched device's line errors since its last report, as a ``link_errors`` record."""
        for machine in self._machines:
            machine.report_line_errors()

    def _irregular(self, device: str, irregularity: Irregularity) -> None:
        fields = {"device": device, "clause": irregularity.rule.clause, "detail": irregularity.detail}
        self.trail.append("device_irregularity", self.round, fields)

    def authenticity_checked(self, check: AuthenticityChecked) -> None:
        """One firmware authenticity check, passed or failed, to the trail; and when the device's
        next check is due, to the state store, so a restart does not defer it (58 Pa. Code
        § 461a.20(b), § 461a.10(s); decision 0026)."""
        self.trail.append("authenticity_check", self.round, check.fields())
        self.state.save_check_due(check.device, check.next_due)

    def _latch_heard(self, machine: Equipment[Any], event: Event) -> None:  # Any: any device's driver
        """A fault latched or released on ``machine``'s latch (FaultLatched, FaultReleased)."""
        self._latch_changed(machine)

    def _latch_changed(self, machine: Equipment[Any]) -> None:  # Any: any device's driver
        """Each fault latched or released as a record, with the unit it is about (model, serial,
        firmware: a regulator matches it to the approved list) and the clause it enforces."""
        faults = {fault.code: fault for fault in machine.latch.faults}
        before = self._latched.get(machine.name, {})
        self.state.save_latches(machine.name, machine.latch.to_records())
        for code in sorted(set(faults) - set(before)):
            fault = faults[code]
            fields = {"device": machine.name, "code": code, "detail": fault.detail, "clause": fault.clause}
            self.trail.append("fault_latched", self.round, {**fields, **machine.unit_of(code)})
        for code in sorted(set(before) - set(faults)):
            fields = {"device": machine.name, "code": code, "clause": before[code].clause}
            self.trail.append("fault_released", self.round, {**fields, **machine.unit_of(code)})
        self._latched[machine.name] = faults

    # -- people ---------------------------------------------------------------------------------
    def operator_action(self, action: str, operator: Operator, **fields: Any) -> None:  # Any: JSON values
        """A person's action on the table (a clear, a ruling, a dealer change, opening, closing)."""
        self.trail.append(
            "operator_action",
            self.round,
            {"action": action, "operator": operator.ident, "role": operator.role.value, **fields},
        )

    def access_refused(
        self, request: str, status: int, reason: str, operator: Operator | None, *, again: bool = False
    ) -> None:
        """A request the API refused for who sent it (461a.10(s): access is logged): no or an unknown
        token (401), or a role that may not (403). Never the token. At most ACCESS_RECORDS a minute
        are written; the refusals left out are counted in the next one written (``unrecorded``), so
        that a flood of bad requests cannot flood the trail and none goes uncounted. A refusal
        ``again`` of a dead session already refused and recorded is only counted: a page left open
        across a restart must not use up the minute's records that other refusals need."""
        now = time.monotonic()
        if now - self._access_window >= 60.0:
            self._access_window, self._access_written = now, 0
        if again or self._access_written >= ACCESS_RECORDS:
            self._access_unrecorded += 1
            return
        self._access_written += 1
        fields: dict[str, Any] = {"request": request, "status": status, "reason": reason}  # Any: JSON values
        fields |= (
            {"operator": None, "role": None}
            if operator is None
            else {
                "operator": operator.ident,
                "role": operator.role.value,
            }
        )
        fields |= {"unrecorded": self._access_unrecorded, "clause": ACCESS_LOGGED}
        self._access_unrecorded = 0
        self.trail.append("access_refused", self.round, fields)

    def service_started(self, game: str, config: str, config_sha256: str) -> None:
        """The service took the table up with this configuration; a configuration that differs from
        the one it last ran with is recorded as changed, from which to which (461a.10(s): the event log).
        The table is not open yet (real equipment waits for a supervisor): ``table_opened`` says
        when it is, naming this configuration."""
        counters = self._counters()
        previous = counters.get("config_sha256")
        if previous is not None and previous != config_sha256:
            self.table_event("config_changed", {"config": config, "from": previous, "to": config_sha256})
        self._configuration = {"game": game, "config": config, "config_sha256": config_sha256}
        self.state.save_table(self.table, {**counters, "config_sha256": config_sha256})

    def service_start(self) -> None:
        """The table service (``croupier run``, ``croupier sim --audit``) took up the trail: the table
        PC's own start, with whether its previous run stopped cleanly (its file closed) or not (a
        crash or a power loss: the file left open, closed now with reason ``resumed``), so a restart
        is in the trail as what it was (461a.10(s): the event log; decision 0027)."""
        fields = {
            "clause": SERVICE_LIFE.clause,
            "pid": os.getpid(),
            "previous_clean": self.trail.previous_clean,
        }
        self.table_event("service_start", fields)

    def service_took_up(self, source: Path) -> None:
        """A table service's first records, as ``croupier run`` and each table of ``croupier sim
        --floor`` write them: its start, then the configuration it runs, read from ``source``."""
        self.service_start()
        self.service_started(self.game, str(source), file_sha256(source))

    def service_closed(self, rounds: int, reason: str) -> None:
        """A table service's last records, as ``croupier run`` and each table of ``croupier sim
        --floor`` write them: the table closed after ``rounds``, for ``reason``, then its stop."""
        self.table_event("table_closed", {"rounds": rounds, "reason": reason})
        self.service_stop(reason)

    def service_stop(self, reason: str) -> None:
        """The table service stops cleanly, for ``reason``: the last record before the file's close.
        A run that ends without one (and a ``service_start`` whose ``previous_clean`` is false)
        did not stop cleanly. The devices' line errors since the last round come first."""
        self._line_errors()
        self.table_event("service_stop", {"clause": SERVICE_LIFE.clause, "reason": reason})

    def table_opened(self) -> None:
        """The table is open for play, with the configuration the service started with: written
        when it actually opens (a simulated table at once, real equipment when a supervisor first
        opens it), never for a table that stayed closed."""
        self.table_event("table_open", self._configuration)

    def rules_in_force(self, rules: Any) -> None:  # Any: any game's RuleSet
        """The game's rules and pay tables the table plays by, as plain values: with them a
        regulator holding only the trail can recompute every settlement (``croupier audit
        procedure``; docs/audit.md)."""
        self.table_event("rules_in_force", {"game": self.game, "rules": rules.plain()})

    def table_event(self, kind: str, fields: Mapping[str, Any]) -> None:  # Any: JSON values
        """The table's own events: opened with its configuration, closed, restored after a crash, a
        burn, a cover card that came out at one."""
        self.trail.append(kind, None, dict(fields))
        self._cover_card_out(kind)

    # -- after a restart ------------------------------------------------------------------------
    def restore(self, equipment: Iterable[Equipment[Any]]) -> int:  # Any: any device's driver
        """Put the latched faults saved before a restart back on the latches, hold a round the
        restart cut off, and return the number of rounds played (the next round is one more)."""
        machines = list(equipment)
        for machine in machines:
            records = self.state.load_latches(machine.name)
            machine.latch.restore(records)
            if records:
                log.warning("faults restored", device=machine.name, faults=[r["code"] for r in records])
        played = int(self._counters().get("rounds", 0))
        cut_off = self.state.round_in_progress(self.table)
        if cut_off is not None:
            played = max(played, cut_off.number)
            self.state.end_round(self.table, cut_off.number, {**self._counters(), "rounds": played})
            last = self._trail_of(cut_off.number)
            if last is not None and last.outcome == "complete":  # killed after its last record
                log.info("round completed before the restart", round=cut_off.number)
                return played
            holder = machines[0]
            holder.latch.latch(
                Fault(
                    ROUND_CUT_OFF_CODE,
                    f"round {cut_off.number} (begun {cut_off.begun_at}) was cut off by a restart",
                    ROUND_CUT_OFF.clause,
                    "host",
                )
            )
            self.trail.append(
                "round_cut_off",
                cut_off.number,
                {
                    "begun_at": cut_off.begun_at,
                    "clause": ROUND_CUT_OFF.clause,
                    "held_on": holder.name,
                    **_left_on_layout(last),
                },
            )
            log.warning("round cut off by a restart", round=cut_off.number, clause=ROUND_CUT_OFF.clause)
        return played

    def cut_off_settled(self, operator: Operator) -> None:
        """The supervisor cleared ROUND_CUT_OFF: they returned the cut-off round's wagers and picked
        up its cards as its ``round_cut_off`` record listed them. The round is recorded voided,
        with what was returned and picked up, so the trail closes it."""
        cut = [r for r in read_records(self.trail.files()) if r.kind == "round_cut_off"]
        if not cut:
            return
        left = cut[-1].fields
        self.trail.append(
            "round_voided",
            cut[-1].round,
            {
                "by": operator.ident,
                "clause": ROUND_CUT_OFF.clause,
                "wagers_returned": left.get("wagers", []),
                "cards_picked_up": left.get("cards_total", 0),
            },
        )

    def _trail_of(self, number: int) -> RoundReplay | None:
        """Round ``number`` as the trail rebuilds it (its last run, were numbers ever reused)."""
        found = find_round(self.trail.files(), number)  # through the indexes when they check
        records = found.in_order() if found is not None else read_records(self.trail.files())
        rounds = [r for r in replay(records) if r.round == number]
        return rounds[-1] if rounds else None


def _left_on_layout(cut: RoundReplay | None) -> dict[str, Any]:  # Any: JSON values
    """What the trail says the cut-off round left to settle by hand: its wagers still on the layout,
    to be returned, and how many cards lie at each place of the layout, to be picked up and counted
    (``croupier replay`` shows them card by card), so no wager or card is lost across the restart."""
    if cut is None:
        return {"wagers": [], "cards_on_layout": {}, "cards_total": 0}
    places = [hand for hand in (*cut.hands, cut.dealer, cut.community) if hand is not None]
    on_layout = {hand.place: len(hand.cards) for hand in places if hand.cards}
    return {
        "wagers": _wagers_on_layout(cut),
        "cards_on_layout": on_layout,
        "cards_total": sum(on_layout.values()) - len(cut.pickup),
    }


def _wagers_on_layout(cut: RoundReplay) -> list[dict[str, Any]]:  # Any: JSON values
    """The round's wagers not settled yet: each placed (its ``wager`` records, and what its
    ``decision`` records staked: the game's ``staked``, an Over 23 election, a Play, a paid double),
    less each one a ``settlement`` record already collected, paid or returned (a surrendered Ante,
    a hand settled before the cut). Keyed by seat, wager and hand, the position's first hand as
    ``None``; a paid double adds to its hand's wager."""
    staked = registry.game(cut.game).staked
    placed: dict[tuple[int, str, int | None], int] = {}
    for step in cut.wagers:
        if not step.fields.get("stays"):  # a wager kept in play (686a.7(h)) places nothing
            key: tuple[int, str, int | None] = (int(step.fields["seat"]), str(step.fields["wager"]), None)
            placed[key] = placed.get(key, 0) + int(step.fields["amount"])
    for step in cut.decisions:
        if (stake := staked(step.fields)) is not None:
            wager, hand, amount = stake
            key = (int(step.fields["seat"]), wager, hand or None)
            placed[key] = placed.get(key, 0) + amount
    for step in cut.settlements:
        fields = step.fields
        placed.pop((int(fields["seat"]), str(fields["wager"]), fields.get("hand") or None), None)
    return [
        {"seat": seat, "wager": wager, "amount": amount} | ({} if hand is None else {"hand": hand})
        for (seat, wager, hand), amount in placed.items()
    ]
