"""The table's side of a linked progressive: levels whose jackpot is shared by several tables.

The table's own progressive controller still locks the wagers at "no more bets", counts them and
freezes a level it pays, as it does alone (devices/progressive.py); for a level on the link, the
jackpot is the link controller's, on the floor (decision 0039). This is what the table knows of it:

- every progressive wager the controller accepted at a lock is sent to the link as a contribution to
  the levels this table is linked to (only those: ``rates``), once per controller round (named by
  the controller unit that numbered it and its number: a replaced unit numbers from 1 again), numbered
  in the table's link sequence with the count and cents kept with it (``LinkSender``: the floor
  link's spool, so it survives a broker away and a restart);
- the controller's state, as it last told this table: each linked level's value (what the sign
  shows), the hits that lock it at every table, and what it applied of this table;
- whether the link is up: the broker connected, the controller heard within ``heard_within``
  seconds, the rates it applies this table's own, and its applied contributions reconciled with
  those sent. While it is not, a progressive wager is refused with the reason (``refusal``); a
  count that cannot be reconciled latches LINK_MISMATCH, which a supervisor clears;
- a hit at this table is sent and paid the amount the controller froze for it (a level the link
  does not have is refused at once, naming it and the link); the keyed reset of its level is sent,
  and the level's lock lifts at every table once the controller applied it. While a hit at any table
  locks a level, this table's progressive wagers are refused naming the hit (``refusal``); its base
  game plays on: only a hit at this table, frozen by its own controller, holds it until the keyed
  reset here;
- a round voided at this table, its wagers returned, is sent as a void: the controller withdraws
  its contribution and takes any hit of it out of the order;
- a message the spool cannot take (its disk full, read-only, failing) is owed, in order, and
  FLOOR_SPOOL_UNWRITTEN latched, holding the table, until the spool takes it (``flush``): the step
  that sent it is never undone nor failed by the spool. Owed lives in memory; what a stop left owed
  is worked out at the next start from what outlives it and sent once (decision 0049): a
  contribution from the controller's meter (``check_device``), a hit and a keyed reset from its
  levels (``_hits_owed``, ``_resets_owed``), a void from the table's trail (read by the floor
  link, croupier.floor_link.linked.void_unsent).

Every step is an equipment event of the progressive (decision 0027), so it is in the table's trail.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from devices.faults import LINK_ORIGIN, SPOOL_UNWRITTEN, SPOOL_UNWRITTEN_CODE, Fault
from devices.progressive_rules import (
    DEVICE_RECONCILED,
    KEYED_RESET,
    LINK_HEARD,
    LINK_MISMATCH,
    LINK_RECONCILED,
    METERS_AGREE,
)
from drivers.protocol.classes.progressive import RoundState
from vocabulary.rules import RuleViolation

if TYPE_CHECKING:
    from devices.progressive import Progressive
    from vocabulary.rules import Rule


@dataclass(frozen=True)
class Counts:
    """What a table sent on its link, or what the controller applied of it: the last link number,
    the contributions among them and the cents wagered in those."""

    number: int = 0
    contributions: int = 0
    wagered_cents: int = 0

    def __sub__(self, other: Counts) -> Counts:
        return Counts(
            self.number - other.number,
            self.contributions - other.contributions,
            self.wagered_cents - other.wagered_cents,
        )


class HitRefused(RuleViolation):
    """A hit the link controller refused (a level it cannot pay, or one this table does not fund),
    with its reason: the table's own controller froze the level already, so the round records it as
    an irregularity and goes on, the table holding for that level's keyed reset (decision 0044)."""


#: The unit of a progressive controller as the link names it (``Progressive.controller_unit``): its
#: vendor, model and serial number, the identity DEVICE_SWAPPED is judged by. A replaced controller
#: numbers its rounds from 1 again, so a round is named by its unit and its number together.
Unit = Mapping[str, str]
#: A controller round's progressive wagers: its unit (``unit_key``), its number and the cents wagered.
RoundWagers = tuple[str, int, int]


def unit_key(unit: Unit) -> str:
    """``unit`` as one text the spool and the link controller compare and keep: a round of another
    unit is another round, whatever its number."""
    return json.dumps([unit["vendor"], unit["model"], unit["serial_number"]])


def unit_named(key: str) -> dict[str, str]:
    """The unit ``key`` is the ``unit_key`` of, as a message names it."""
    vendor, model, serial_number = json.loads(key)
    return {"vendor": vendor, "model": model, "serial_number": serial_number}


class Unspooled(Exception):
    """The sender could not keep a link message (the spool's disk full, read-only or failing)."""


@dataclass
class _Owed:
    """A link message kept until the spool takes it, in the order it was to be sent, with the
    equipment record made once it is (``record``: its fields, the link number added)."""

    event: str
    fields: Mapping[str, object]
    contribution: RoundWagers | None
    withdrawal: RoundWagers | None
    rule: Rule
    kind: str
    record: Mapping[str, object]
    sent: bool = False
    number: int = 0  # its link number once sent; 0 when the spool had its round already
    hit: tuple[int, int, int] | None = None  # a hit's level, seat and controller round: sent once
    voided: tuple[int, int] | None = None  # a void's controller round and cents: its unit named as sent


class LinkSender(Protocol):
    """Where the table's link messages go: numbered, kept with the counts, delivered in order."""

    identity: str  # the spool's: the controller counts each spool afresh

    @property
    def connected(self) -> bool:
        """Whether the broker is connected now."""

    def send(
        self,
        event: str,
        fields: Mapping[str, object],
        *,
        contribution: RoundWagers | None = None,
        withdrawal: RoundWagers | None = None,
        hit: tuple[int, int, int] | None = None,
    ) -> int:
        """Send ``event`` with ``fields`` under the next link number and return it; a contribution
        (its controller's unit and round, and the cents wagered) adds to the counts, once per round
        of a unit: a round of the same unit sent already returns 0 and sends nothing, one of another
        unit with the same number is sent. A withdrawal (the same, of a voided round) takes
        the last contribution off the counts, once, and only that round's of that unit: else 0, nothing sent;
        with it, the device base (once taken) rises by its cents. A hit (its level, seat and
        controller round) is sent once for its level, seat and round, and never for the round last
        withdrawn: else 0, nothing sent. Unspooled when it cannot keep the message: nothing of it is
        sent or counted."""

    def counts(self) -> Counts:
        """What was sent so far."""

    def linked_unit(self) -> str | None:
        """The controller unit (``unit_key``) of the round last contributed, as kept with the counts,
        also once the controller's base was taken afresh; None when none is kept (none contributed
        yet, or a round of a spool of version 2)."""

    def device_base(self) -> int | None:
        """The controller's wagers-in meter less the cents sent, as taken when the link first read
        the controller, raised by a withdrawal's cents with it (the meter keeps a voided round's
        wagers): what makes the two comparable (``check_device``); None before it is taken."""

    def take_device_base(self, cents: int) -> None:
        """Keep ``cents`` as the device base, durably with the counts; Unspooled when it cannot."""

    def difference(self) -> Counts:
        """The difference (sent less applied) a supervisor's clear of LINK_MISMATCH last took on
        this spool: kept across restarts, so the same difference does not latch again."""

    def take_difference(self, difference: Counts, device_base: int | None) -> None:
        """Keep ``difference`` as the one taken, and ``device_base`` (when the controller's meter
        differed too) as the device base, in one transaction; Unspooled when it cannot."""

    def undelivered(self) -> int:
        """Link messages not yet confirmed by the floor."""

    def unapplied(self) -> list[Mapping[str, object]]:
        """The link messages sent that the controller has not yet said it applied (each kept until it
        does, with its ``event``, ``number`` and fields), in order."""

    def resend(self, after: int) -> int:
        """Send again every link message numbered above ``after`` (the controller applies each once
        by its number); how many. Unspooled when it cannot."""

    def applied(self, through: int) -> None:
        """The controller applied every link message up to ``through``: none of them is sent again;
        Unspooled when the spool cannot forget them (they are only sent again, applied once)."""


class LinkedLevels:
    """Link ``link`` of a table's progressive: its levels and each one's rate in basis points."""

    def __init__(
        self, table: str, link: str, rates: Mapping[int, int], heard_within: float, sender: LinkSender
    ) -> None:
        """``table``: the table's name, as the controller names its hits."""
        self.table, self.link, self.rates = table, link, dict(rates)
        self.heard_within, self.sender = heard_within, sender
        self.progressive: Progressive | None = None  # set by the progressive it is attached to
        #: time.monotonic() when the controller's last state was heard: a live one when it arrived, a
        #: retained one (the broker kept it, maybe since the floor stopped) when its ``at`` says (``heard``)
        self.heard_at: float | None = None
        self.levels: dict[int, Mapping[str, Any]] = {}  # Any: the controller's JSON fields, by level
        self.applied = Counts()
        self._told = asyncio.Event()  # set whenever the controller's state is heard
        self._locked: str | None = "not heard yet"  # the refusal last told, for its transitions
        self._refused: str | None = None  # why the controller's last state was not taken, if it was not
        self._rates_problem: str | None = None
        self._short_since: float | None = None  # applied fewer than sent, nothing left to deliver
        self._resent_after: int | None = None  # the applied number the missing messages were resent after
        self._offset = sender.difference()  # sent less applied, as a clear of LINK_MISMATCH took it
        self._reconciled = False  # since the link was last up: what was sent, all applied
        self._device_differs = False  # the controller's meter did not match what was sent (check_device)
        self._shown: dict[int, int] = {}  # the amount each level's sign was last told
        self._shows: set[asyncio.Task[None]] = set()
        self._link_levels: set[int] | None = None  # the levels the controller has, once heard
        self._revision: tuple[str, int] | None = None  # the store and revision of the state last taken
        self._refused_hits: dict[int, str] = {}  # this table's hits the controller refused, by number
        self._owed: list[_Owed] = []  # link messages the spool could not take yet, in order (``flush``)
        self._flushed = asyncio.Event()  # set whenever an owed message is sent
        #: The link number sent before this start: a hit at or below it was sent by a run before this
        #: one, whose owed keyed reset a stop may have lost (``_resets_owed``).
        self._started = sender.counts().number
        self._swapped = False  # DEVICE_SWAPPED seen latched since the hits before _started were counted
        #: The linked levels the controller held frozen when this run first read it, each with its
        #: hit's seat and controller round: a hit a stop may have lost (``_hits_owed``).
        self._frozen: dict[int, tuple[int, int]] | None = None
        #: The controller unit that answered that first read: the unit the frozen levels are of.
        self._frozen_by: dict[str, str] | None = None
        #: What the table waits for on the link (the amount of its hit), if anything.
        self.awaiting: str | None = None

    # -- what the table asks ------------------------------------------------------------------
    def refusal(self) -> str | None:
        """Why a progressive wager is refused now, naming the link; None while the link is up and
        no hit locks a linked level. The lock is the level's, not the table's: only the progressive
        wagers are refused, the base game plays on (decision 0039)."""
        where = f"link {self.link}"
        if not self.sender.connected:
            return f"{where}: the floor's broker is not reachable"
        if self.heard_at is None and self._refused is not None:
            return f"{where}: the link controller's state refused: {self._refused}"
        if self.heard_at is None:
            return f"{where}: the link controller not heard yet"
        if time.monotonic() - self.heard_at > self.heard_within:
            return f"{where}: the link controller not heard within {self.heard_within:g} s"
        if self._rates_problem is not None:
            return f"{where}: {self._rates_problem}"
        if self._mismatch_latched():
            return f"{where}: the contributions do not reconcile ({LINK_MISMATCH} latched)"
        sent = self.sender.counts()
        if not self._reconciled:
            return (
                f"{where}: contributions not yet reconciled: {sent.number} sent, "
                f"{self.applied.number} applied by the controller"
            )
        if self.locked_levels:
            return f"{where}: {self._locks()} until the keyed reset"
        return None

    def _locks(self) -> str:
        """The levels a hit locks and the hits locking each, as the controller last told them: a
        progressive wager funds every linked level of the table and may be paid from any, so one
        locked level refuses it (the base game plays on)."""

        def by(hit: Mapping[str, Any]) -> str:  # Any: the controller's JSON fields
            return f"the hit at {hit['table']} seat {hit['seat']} (the link's hit {hit['order']})"

        return "; ".join(
            f"level {level} jackpot-locked by {', '.join(map(by, self.hits(level)))}"
            for level in self.locked_levels
        )

    @property
    def locked_levels(self) -> list[int]:
        """The linked levels a hit locks, at this table or another."""
        return sorted(level for level, told in self.levels.items() if told["locked"])

    def hits(self, level: int) -> list[Mapping[str, Any]]:  # Any: the controller's JSON fields
        return list(self.levels.get(level, {}).get("hits", []))

    def contribute(self, locked: RoundState) -> _Owed | None:
        """The progressive wagers the controller accepted at the lock of its round ``locked``, sent
        once for the round (a round sent already: its link number 0), or owed while the spool cannot
        take it (``flush``); None with none accepted."""
        if locked.count == 0:
            return None
        wagered, unit = locked.count * locked.wager_cents, self._unit()
        fields = {"round": locked.round, "count": locked.count, "wagered_cents": wagered, "controller": unit}
        wagers = (unit_key(unit), locked.round, wagered)
        owed = self._send(
            _Owed("contribution", {**fields, "levels": sorted(self.rates)}, wagers, None, METERS_AGREE,
                  "linked_contribution", fields)
        )  # fmt: skip
        return owed

    def _unit(self) -> dict[str, str]:
        """The controller unit answering now, which numbered the round a message names."""
        assert self.progressive is not None
        return dict(self.progressive.controller_unit)

    def check_device(self, controller: RoundState, in_cents: int) -> None:
        """What the controller itself accepted against what the link sent, whenever the controller
        is read afresh (at the start, when it comes back; decision 0043): its wagers-in meter
        ``in_cents``, less the base taken when the link first read it, must be the cents the table
        sent. The difference a stop between the controller's lock and the spooling of its
        contribution leaves is exactly that locked round's wagers: its contribution is sent now,
        once by its controller round. A voided round's wagers stay on the meter, its cents off those
        sent: the withdrawal raised the base by them (``LinkSender.send``). Any other difference
        cannot be told apart (rounds locked while the table was not on the link, meters cleared,
        another controller), and latches LINK_MISMATCH naming the counts: the link's fault, as the
        link controller's is (decision 0039), refusing the progressive wagers, holding no base game.
        The first read of a run also takes the levels the controller holds frozen (``_hits_owed``)."""
        assert self.progressive is not None
        if self._frozen is None:  # the first read of this run: no award of it made yet
            levels, wins = self.progressive.levels, self.progressive.wins
            self._frozen = {level: (win.seat, controller.round) for level, win in wins.items()
                            if level in self.rates and level in levels and levels[level].frozen}  # fmt: skip
            self._frozen_by = self._unit()
        sent, base = self.sender.counts(), self.sender.device_base()
        fields: dict[str, object] = {
            "controller_round": controller.round, "locked": controller.locked, "in_cents": in_cents,
            "sent_contributions": sent.contributions, "sent_cents": sent.wagered_cents,
        }  # fmt: skip
        if base is None:  # the first read on this spool: what the controller took so far is not the link's
            base = in_cents - sent.wagered_cents
            try:
                self.sender.take_device_base(base)
            except Unspooled as exc:  # taken again at the next read of the controller
                self._unspooled("device base", f"the controller's base could not be kept: {exc}", exc)
                return
            self._notify(DEVICE_RECONCILED, "linked_device_base", base_cents=base, **fields)
            return
        accepted = in_cents - base
        unsent = accepted - sent.wagered_cents
        fields |= {"base_cents": base, "accepted_cents": accepted}
        if unsent == 0:
            self._notify(DEVICE_RECONCILED, "linked_device_checked", **fields)
            return
        if controller.locked and unsent == controller.count * controller.wager_cents:
            owed = self.contribute(controller)
            if owed is not None and (owed.number or not owed.sent):  # the locked round not spooled before
                now = {"sent_now": owed.number} if owed.sent else {"owed": controller.round}
                self._notify(DEVICE_RECONCILED, "linked_device_checked", **now, **fields)
                return
        self._device_differs = True
        detail = (
            f"link {self.link}: the progressive controller accepted {accepted} cents of progressive "
            f"wagers since the link first read it (its wagers-in meter {in_cents}, {base} before); "
            f"the table sent {sent.contributions} contributions of {sent.wagered_cents} cents "
            f"(controller round {controller.round}, {'locked' if controller.locked else 'open'})"
        )
        # the link's, as the link controller's LINK_MISMATCH: the wagers refused and the sensors locked
        # out (``refusal``), the base game played on; the money in question is the link's
        self.progressive.latch.latch(Fault(LINK_MISMATCH, detail, DEVICE_RECONCILED.clause, LINK_ORIGIN))

    def void(self, voided: RoundState) -> None:
        """The controller round ``voided`` was voided at the table, every wager returned, the
        progressive ones too: its contribution is withdrawn from the link, and any hit of it taken
        out of the order (the controller gives back what it froze). Sent once, and only for the
        round this table last contributed, named by the unit that numbered it (``_void_named``):
        a round with no progressive wager has nothing to take."""
        wagered = voided.count * voided.wager_cents
        if wagered:
            fields = {"round": voided.round, "wagered_cents": wagered}
            self._send(_Owed("void", fields, None, None, METERS_AGREE, "linked_void", fields,
                             voided=(voided.round, wagered)))  # fmt: skip

    def _void_named(self, owed: _Owed) -> None:
        """A void's unit, named as it is spooled: the unit kept with the round last contributed, the
        only round the spool withdraws (every contribution before the void spooled by then: ``flush``
        sends in order), not the unit answering now, which after a controller swapped during the run
        (DEVICE_SWAPPED) is another, whose round the link controller would never find the
        contribution of. With none kept (a version 2 spool's round, any unit's), the unit answering
        now. Unspooled if the spool
        cannot read it: the void stays owed."""
        assert owed.voided is not None
        kept = self.sender.linked_unit()
        unit = self._unit() if kept is None else unit_named(kept)
        owed.fields = owed.record = {**owed.fields, "controller": unit}
        owed.withdrawal = (unit_key(unit), *owed.voided)

    def require_level(self, level: int) -> None:
        """Before a hit of ``level`` is paid at the table: refused at once, naming the level and the
        link, when the controller's last state has no such level (it could never pay it)."""
        if self._link_levels is not None and level not in self._link_levels:
            raise RuleViolation(
                LINK_HEARD,
                f"link {self.link}: a hit on level {level} refused: the link has levels "
                f"{sorted(self._link_levels)} only",
            )

    async def hit(self, level: int, seat: int, round_: int) -> int:
        """Send a hit of ``level`` at ``seat`` and wait for the amount the controller froze for it,
        received in its order among every table's hits (the round waits, as for a supervisor); a
        hit the controller refuses (a level it cannot pay) raises HitRefused with its reason. A hit
        the spool cannot take yet is owed, and waited for until it is sent (``flush``)."""
        fields = {"level": level, "seat": seat, "round": round_, "controller": self._unit()}
        owed = self._send(
            _Owed("hit", fields, None, None, KEYED_RESET, "linked_hit", fields, hit=(level, seat, round_))
        )
        try:
            while not owed.sent:
                self.awaiting = (
                    f"link {self.link}: the level {level} hit at seat {seat} spooled ({SPOOL_UNWRITTEN_CODE})"
                )
                self._flushed.clear()
                await self._flushed.wait()
            number = owed.number
            self.awaiting = f"link {self.link}: the amount of the level {level} hit at seat {seat}"
            while True:
                refused = self._refused_hits.get(number)
                if refused is not None:
                    self._notify(LINK_HEARD, "linked_hit_refused", number=number, level=level, reason=refused)
                    raise HitRefused(LINK_HEARD, refused)
                for told in self.hits(level):
                    if told["table"] == self.table and told["number"] == number:
                        self._notify(
                            KEYED_RESET, "linked_hit_paid", number=number, level=level, seat=seat,
                            order=told["order"], amount_cents=told["amount_cents"],
                        )  # fmt: skip
                        return int(told["amount_cents"])
                self._told.clear()
                await self._told.wait()
        finally:
            self.awaiting = None

    def reset(self, level: int) -> None:
        """The keyed reset of this table's hit of ``level``: the controller lifts the level's lock
        once every hit on it is reset. One the spool cannot take yet is owed (``flush``)."""
        fields = {"level": level}
        self._send(_Owed("reset", fields, None, None, KEYED_RESET, "linked_reset", fields))

    # -- what the spool could not take yet ------------------------------------------------------
    def _send(self, owed: _Owed) -> _Owed:
        """Send ``owed`` after whatever is owed before it, or keep it owed."""
        self._owed.append(owed)
        self.flush()
        return owed

    @property
    def owed(self) -> list[str]:
        """The link messages the spool has not taken yet, by event, in order."""
        return [owed.event for owed in self._owed]

    def flush(self) -> bool:
        """Send what the spool could not take before, in order, each recorded as it is sent; whether
        nothing is owed now. Tried on each look (every second) and at the supervisor's clear of
        FLOOR_SPOOL_UNWRITTEN, which is refused while anything is owed. The first the spool refuses
        latches FLOOR_SPOOL_UNWRITTEN, which holds the table: a contribution, hit, reset or void not
        sent is not lost, and the table does not play on as if the link had it."""
        while self._owed:
            owed = self._owed[0]
            try:
                if owed.voided is not None:
                    self._void_named(owed)
                number = self.sender.send(
                    owed.event,
                    owed.fields,
                    contribution=owed.contribution,
                    withdrawal=owed.withdrawal,
                    hit=owed.hit,
                )
            except Unspooled as exc:
                self._unspooled(owed.event, f"a {owed.event} message for the floor could not be spooled: "
                                f"{exc}; kept, and sent once the spool takes it", exc)  # fmt: skip
                return False
            self._owed.pop(0)
            owed.sent, owed.number = True, number
            if number:
                self._notify(owed.rule, owed.kind, number=number, **owed.record)
            self._flushed.set()
        return True

    def _hits_owed(self) -> None:
        """The hit a stop lost, sent (on each look, so once the controller was read and the link
        controller heard after a start): a linked level the controller held frozen when this run
        first read it, for the last hit it froze for (its seat, from the controller's hit history,
        and the controller's round: a frozen level opens no round; an earlier hit of the level in
        that round, at another seat, was spooled before this one was paid). The controller froze
        the level at that hit's award, before the hit was sent, and a message the spool could not
        take lives in memory only; without it the link would never lock the level for it. It is
        recorded as ``linked_hit_owed`` when spooled, and the amount the link controller freezes
        for it is what the sign shows. Not sent:

        - twice, nor for a voided round: the spool sends a hit once for its level, seat and round
          (two seats may hit one level in a round), marked in the transaction that spooled it, and
          not for the round last withdrawn (a cut-off round cleared before the link was heard). A
          hit spooled by a release before that mark is found in the link's state (this table's and
          spool's, of that seat and round) or kept in the spool until applied, and not sent either:
          a second hit would freeze the level again and pay twice;
        - for a level reset since (its keyed reset turned: that hit is over, and sent now it would
          lock the level at every table with no key left to turn);
        - while DEVICE_SWAPPED is latched: the unit answering is not the one the table knew, and its
          frozen level is not this table's hit (dropped for good);
        - when the unit that answered that first read is not the unit of the round last contributed
          (``LinkSender.linked_unit``): a unit replaced while the table was stopped where no unit
          was kept to compare it with at the start (the first start after an upgrade, a newly
          configured controller: the table latches DEVICE_SWAPPED at the start only against a kept
          unit, decision 0017), also once a supervisor's clear took its base afresh (the spool keeps
          the unit across it); its frozen level is no hit of this table's round (dropped for good).
          Otherwise the hit names that unit, the one that contributed the round, and the link
          controller finds its round's contribution by unit and round (decision 0050), so a void
          of it takes it back.

        Looked for once: a level frozen later in the run is a hit of this run, sent by its award."""
        progressive = self.progressive
        assert progressive is not None
        if not self._frozen or self.heard_at is None:
            return
        unit = self._frozen_by
        assert unit is not None  # taken with the frozen levels
        swapped = any(fault.code == "DEVICE_SWAPPED" for fault in progressive.latch.faults)
        if not swapped and self.sender.linked_unit() in (None, unit_key(unit)):
            try:
                kept = self.sender.unapplied()
            except Unspooled:  # the spool unreadable now: looked for again at the next look
                return
            on_way = [(sent.get("event"), sent.get("level"), sent.get("seat"), sent.get("round"))
                      for sent in kept]  # fmt: skip
            for level, (seat, round_) in sorted(self._frozen.items()):
                info = progressive.levels.get(level)
                mine = (self.table, self.sender.identity, seat, round_)
                told = [hit for hit in self.hits(level)
                        if (hit["table"], hit["spool"], hit["seat"], hit["round"]) == mine]  # fmt: skip
                if info is None or not info.frozen or told or ("hit", level, seat, round_) in on_way:
                    continue
                fields = {"level": level, "seat": seat, "round": round_, "controller": unit}
                self._send(_Owed("hit", fields, None, None, KEYED_RESET, "linked_hit_owed", fields,
                                 hit=(level, seat, round_)))  # fmt: skip
        self._frozen = {}

    def _resets_owed(self) -> None:
        """The keyed reset a stop lost, sent (on each look, so once the controller was read and the
        link controller heard after a start): each hit of this table and spool sent before this start
        that the link still holds, on a level this table's controller does not keep frozen. The
        controller froze the level at that hit's award and only its key releases it, so the key was
        turned here and the reset was owed when the table stopped (a message the spool could not take
        lives in memory only); without it the level would stay locked at every linked table for good.
        Not sent:

        - while the controller is frozen on the level: its key not turned, for that hit or a newer
          one; the reset sent when it is turned lifts every hit of this table on the level at the
          link, so nothing else is owed for an older one;
        - while a hit of this start on the level is held: the controller froze for that one, and a
          reset now would lift it too (one still on its way finds the controller frozen for it, or
          its keyed reset on its way behind it: the link applies a table's messages in order);
        - while a reset of the level is on its way (kept in the spool until applied, or owed): the
          link applies each message by its number, and two would be one too many;
        - while DEVICE_SWAPPED is latched: the unit answering is not the one that froze the level and
          says nothing of its key. Once a supervisor accepts it as the table's unit (the clear), the
          table no longer holds for the old unit's level, and the link is told so the same way: every
          hit sent until then, in this run too, counts as sent before a start (unless a hit still
          waits for its amount: then at the first look after it is paid)."""
        progressive = self.progressive
        assert progressive is not None
        if any(fault.code == "DEVICE_SWAPPED" for fault in progressive.latch.faults):
            self._swapped = True
            return
        if self._swapped and self.awaiting is None:  # the new unit accepted, no hit waiting its amount:
            self._swapped = False  # the hits sent so far are the old unit's, as those before a start
            self._started = self.sender.counts().number
        if self.heard_at is None:
            return
        on_way: list[tuple[object, object]] | None = None
        for level in sorted(self.levels):
            mine = [hit for hit in self.hits(level)
                    if hit["table"] == self.table and hit["spool"] == self.sender.identity]  # fmt: skip
            before = [hit for hit in mine if hit["number"] <= self._started]
            info = progressive.levels.get(level)
            if not before or len(before) < len(mine) or info is None or info.frozen:
                continue
            if on_way is None:  # read only when a reset may be owed, not on every look
                on_way = [(owed.event, owed.fields.get("level")) for owed in self._owed]
                try:
                    kept_back = self.sender.unapplied()
                except Unspooled:  # the spool unreadable now: worked out again at the next look
                    return
                on_way += [(kept.get("event"), kept.get("level")) for kept in kept_back]
            if ("reset", level) in on_way:
                continue
            self._notify(
                KEYED_RESET, "linked_reset_owed", level=level,
                hits=[{"number": hit["number"], "order": hit["order"], "seat": hit["seat"],
                       "round": hit["round"]} for hit in before],
            )  # fmt: skip
            self.reset(level)

    def value(self, level: int) -> int | None:
        """What the sign shows for a linked level not frozen here: the amount frozen for the first
        hit while a hit locks it, else its value; None before the controller is heard."""
        told = self.levels.get(level)
        if told is None:
            return None
        hits = told["hits"]
        return int(hits[0]["amount_cents"] if hits else told["value_cents"])

    def paid(self, level: int) -> int | None:
        """The amount the controller froze for this table's hit of ``level`` not yet reset (what its
        win shows, also after a restart mid-hit); None before the controller is heard, or told it."""
        mine = [told for told in self.hits(level) if told["table"] == self.table]
        return int(mine[-1]["amount_cents"]) if mine else None

    # -- what the controller tells ------------------------------------------------------------
    def heard(self, state: Mapping[str, Any], *, retained: bool = False) -> None:  # Any: JSON fields
        """The controller's state for this table (read against its schema): values, locks, what it
        applied of this table. One with an amount its level could not hold raises ValueError, saying
        why, before anything of it is taken. A live state (MQTT retain flag 0: the controller published
        it while this table was subscribed) is the controller heard now, whatever the floor's clock
        wrote in its ``at``; a ``retained`` one (the broker's copy, handed over at subscribe, perhaps
        kept since the floor stopped) is as old as its ``at`` by this table's clock, so a floor that
        stopped is not taken for heard. A floor clock behind the table's can then only delay the link
        until the controller's next live state, never lock the wagers for good.

        A state whose revision (the link's order of publications, kept in the floor's store, whichever
        floor service made it) is below that of the state last taken is dropped, unheard: the floor
        sends them in order (decision 0050), but a broker that delivered them out of order would
        otherwise lift a jackpot lock, or take back a value, with an older state. The first state
        after this table starts is taken whatever its revision, and so is one under another name
        (``store`` names the store's count, named afresh at each floor service's start: a store
        restored from a backup counts on from the backup's revision), so a table never ignores the
        floor for good. A state naming neither (a floor service of the release before) is taken
        unordered, as that release's tables took it, and the next that names them is taken whatever
        its revision: tables upgraded before their floor go on hearing it (docs/floor.md)."""
        last = self._revision
        revision = (state["store"], state["revision"]) if "revision" in state and "store" in state else None
        if revision is not None and last is not None and revision[0] == last[0] and revision[1] < last[1]:
            structlog.get_logger("croupier.link").warning(
                "link: a state older than the one taken, dropped", table=self.table, link=self.link,
                revision=revision[1], taken=last[1])  # fmt: skip
            return
        for told in state["levels"]:
            if told["level"] in self.rates:
                self._check_amounts(told)
        self.heard_at, self._refused = time.monotonic() - (_age(state["at"]) if retained else 0.0), None
        self._revision = revision
        self._link_levels = {told["level"] for told in state["levels"]}
        self._refused_hits = {told["number"]: told["reason"] for told in state["refused"]}
        was_locked = set(self.locked_levels)
        self.levels = {told["level"]: told for told in state["levels"] if told["level"] in self.rates}
        rates = {told["level"]: told["rate_bp"] for told in state["levels"]}
        mine = {level: rates.get(level) for level in self.rates}
        self._rates_problem = None if mine == self.rates else (
            f"the controller applies rates {mine}, this table is configured for {self.rates} (basis points)"
        )  # fmt: skip
        applied, before = state.get("applied"), self.applied
        self.applied = Counts()
        if applied is not None and applied["spool"] == self.sender.identity:
            self.applied = Counts(applied["number"], applied["contributions"], applied["wagered_cents"])
        if self.applied.number > before.number:
            self.sender.applied(self.applied.number)
        for level in sorted(set(self.locked_levels) - was_locked):
            self._notify(
                KEYED_RESET, "linked_lock", level=level, hits=[dict(hit) for hit in self.hits(level)]
            )
        for level in sorted(was_locked - set(self.locked_levels)):
            self._notify(KEYED_RESET, "linked_lock_lifted", level=level)
        self._told.set()  # a hit waiting for its amount looks again
        self.look()
        self._show_changed()

    def refused(self, why: str) -> None:
        """The controller's state could not be taken (not what its schema says, or an amount out of
        bounds): the link is not heard, so the progressive wagers lock, until a state is taken."""
        self.heard_at, self._refused = None, why
        self.look()

    def _check_amounts(self, told: Mapping[str, Any]) -> None:  # Any: the controller's JSON fields
        """A level's value and each hit's amount are at least its reset value (a level restarts
        there and only grows) and at most the limit of the table's own controller for the level (the
        most its meters and sign hold): anything else is not the link's value, and is not shown or
        paid."""
        assert self.progressive is not None
        level, floor = told["level"], told["reset_cents"]
        own = self.progressive.levels.get(level)
        hits = [("a hit", hit["amount_cents"]) for hit in told["hits"]]
        for what, cents in [("a value", told["value_cents"]), *hits]:
            if cents < floor:
                raise ValueError(f"level {level}: {what} of {cents} cents, below its reset value of {floor}")
            if own is not None and cents > own.limit_cents:
                raise ValueError(
                    f"level {level}: {what} of {cents} cents, above the level's limit of {own.limit_cents}"
                )

    def look(self) -> None:
        """Reconcile, record the link's locks and unlocks of the progressive wagers, and have the
        controller's sensors follow the refusal (``Progressive.follow_refusal``): called on each state
        heard and every second (the controller falling silent is noticed here). Once the
        link was lost, what the table sent must all be applied before a wager is taken again; while
        it is up, a contribution on its way is not a difference. What the spool could not take
        before is sent first (``flush``)."""
        if self._owed:
            self.flush()
        self._hits_owed()
        self._resets_owed()
        self._reconcile()
        why = self.refusal()
        if why != self._locked:
            if why is None:
                self._notify(
                    LINK_HEARD, "linked_wagers_unlocked", **_fields(self.sender.counts(), self.applied)
                )
            else:
                self._notify(LINK_HEARD, "linked_wagers_locked", reason=why)
            self._locked = why
        assert self.progressive is not None
        self.progressive.follow_refusal()  # the controller's sensors locked out or re-enabled to match

    def cleared(self) -> None:
        """A supervisor clears LINK_MISMATCH: the difference as it stands is taken, the controller's
        (``check_device``) too, kept on the spool in one transaction (so a restart does not latch the
        same difference again) and recorded; only a new one latches it again. Unspooled when the
        spool cannot keep it: nothing is taken, and the fault stays."""
        assert self.progressive is not None
        sent = self.sender.counts()
        offset, base = sent - self.applied, None
        if self._device_differs and self.progressive.levels:  # the controller's meter as it stands, too
            base = self.progressive.in_meter() - sent.wagered_cents
        self.sender.take_difference(offset, base)
        self._offset, self._reconciled = offset, True
        if base is not None:
            self._device_differs = False
        self._notify(
            LINK_RECONCILED,
            "linked_reconciled",
            by="supervisor",
            taken_number=offset.number,
            taken_contributions=offset.contributions,
            taken_cents=offset.wagered_cents,
            **_fields(sent, self.applied),
        )

    def _reconcile(self) -> None:
        assert self.progressive is not None
        up = self.heard_at is not None and time.monotonic() - self.heard_at <= self.heard_within
        if not up or not self.sender.connected:
            self._reconciled, self._short_since = False, None
            return
        sent, applied = self._expected(), self.applied
        if applied == sent:
            if not self._reconciled:
                self._notify(LINK_RECONCILED, "linked_reconciled", by="table", **_fields(sent, applied))
            self._reconciled = True
            self._short_since = None
            return
        if applied.number < sent.number:
            now = time.monotonic()
            if self.sender.undelivered():
                self._short_since = None
                return
            self._short_since = self._short_since or now
            if now - self._short_since <= self.heard_within:
                return
            self._short_since = None
            if self._resent_after != applied.number:  # lost on the way (a floor stopped as it came)
                resent = self.sender.resend(applied.number)  # Unspooled: tried again on the next look
                self._resent_after = applied.number
                self._notify(LINK_RECONCILED, "linked_resent", after=applied.number, messages=resent)
                return
        self._short_since = None  # the latch keeps a LINK_MISMATCH already latched
        detail = (
            f"link {self.link}: the table sent {sent.number} link messages with {sent.contributions} "
            f"contributions of {sent.wagered_cents} cents; the controller applied {applied.number} with "
            f"{applied.contributions} of {applied.wagered_cents}"
        )
        # the link's: it refuses the progressive wagers (``refusal``), and holds no base game
        self.progressive.latch.latch(Fault(LINK_MISMATCH, detail, LINK_RECONCILED.clause, LINK_ORIGIN))

    def _expected(self) -> Counts:
        """What the controller should have applied of what was sent (less a cleared difference)."""
        return self.sender.counts() - self._offset

    def _show_changed(self) -> None:
        """Show each linked level whose amount changed on the sign (outside the table's step: the
        sign's calls are serialised by the progressive)."""
        assert self.progressive is not None
        progressive = self.progressive
        for level in sorted(self.levels):
            amount = self.value(level)
            if amount is not None and self._shown.get(level) != amount and level in progressive.levels:
                self._shown[level] = amount
                task = asyncio.get_running_loop().create_task(progressive.show_linked(level))
                self._shows.add(task)
                task.add_done_callback(self._shows.discard)

    def _mismatch_latched(self) -> bool:
        assert self.progressive is not None
        return any(fault.code == LINK_MISMATCH for fault in self.progressive.latch.faults)

    def _unspooled(self, event: str, detail: str, exc: Unspooled) -> None:
        """FLOOR_SPOOL_UNWRITTEN latched, holding the table, and recorded once: what the link must
        keep could not be written to the floor spool."""
        assert self.progressive is not None
        unwritten = Fault(SPOOL_UNWRITTEN_CODE, f"link {self.link}: {detail}", SPOOL_UNWRITTEN.clause, "host")
        if self.progressive.latch.latch(unwritten):
            self._notify(SPOOL_UNWRITTEN, "linked_unspooled", event=event, reason=str(exc))

    def _notify(self, rule: Rule, kind: str, **fields: object) -> None:
        """An equipment record of the progressive, citing the rule the step serves: a linked hit is
        frozen until the keyed reset as one at a table alone is (605a.7(a)), a contribution is the
        meter's increment, and only the link's own steps cite decision 0039."""
        assert self.progressive is not None
        self.progressive.notify(rule, kind, link=self.link, **fields)  # type: ignore[arg-type]


def _age(at: str) -> float:
    """Seconds since the controller published a state at ``at`` (ISO 8601, UTC), by this machine's
    clock; none for one stamped ahead of it (the clocks a little apart: it was just published)."""
    return max(0.0, (datetime.now(UTC) - datetime.fromisoformat(at)).total_seconds())


def _fields(sent: Counts, applied: Counts) -> dict[str, int]:
    return {
        "sent": sent.number, "sent_contributions": sent.contributions, "sent_cents": sent.wagered_cents,
        "applied": applied.number, "applied_contributions": applied.contributions,
        "applied_cents": applied.wagered_cents,
    }  # fmt: skip
