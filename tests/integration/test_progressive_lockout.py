"""The controller's lockout of wager acceptance (docs/protocol.md §11.4 SetLockout; decision 0043):
while the table refuses progressive wagers (here a linked progressive whose link is lost), the
controller's sensors are locked out too, so a chip dropped on a sensor anyway is not accepted at the
lock and no contribution is sent for it; the dealer's PlaceWagers with a progressive is refused,
naming the link; the sensors are re-enabled once the wagers are taken again. The product's simulated
Crazy 4 Poker table, its progressive controller behind a real pseudo-terminal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from croupier.screen.answers import Offer
from croupier.tables.crazy_4_poker import Crazy4PokerTable
from devices.equipment import EquipmentEvent
from devices.linked import Counts, LinkedLevels
from devices.progressive_rules import LINK_HEARD, SENSORS_LOCKED_OUT
from firmware_sim.device import SimulatedDevice
from firmware_sim.progressive import ControllerPersonality
from games.crazy_4_poker import RuleSet
from games.crazy_4_poker.evaluator import Category
from games.crazy_4_poker.inputs import PlaceWagers
from games.crazy_4_poker.machine import COMPLETE
from simulator.games.crazy_4_poker import PROGRESSIVE_CHIP, RULES
from tests.integration.test_crazy_4_poker_table import Rig, reset_frozen, table_rig
from tests.links import run
from tests.unit.test_linked_levels import Sender, heard_open
from vocabulary.rules import RuleViolation

STAKE = 500


class Keyed:
    """Seat 1's wagers keyed on the dealer's screen, as ``wagers`` lists them for each round; each
    refusal the table gives the dealer is kept. Decisions are the simulated players'."""

    def __init__(
        self, players: object, *wagers: PlaceWagers, then: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """``then``: what happens once the wagers are keyed, before the dealer calls no more bets."""
        self.players, self.wagers_keyed, self.refusals = players, list(wagers), list[str]()
        self.then = then

    async def wagers(self, round_number: int, positions: int) -> AsyncIterator[Offer[PlaceWagers]]:
        for wager in self.wagers_keyed:
            offer = Offer(wager)
            yield offer
            try:
                await offer.outcome()
            except RuleViolation as refusal:
                self.refusals.append(str(refusal))
        if self.then is not None:
            await self.then()

    def decide(self, seat: int) -> object:
        return self.players.decide(seat)  # type: ignore[attr-defined]


def _linked(table: Crazy4PokerTable) -> tuple[LinkedLevels, Sender]:
    sender = Sender()
    link = LinkedLevels(table.name, "c4p", {1: 500}, 3.0, sender)
    table.progressive.attach(link)
    return link, sender


def _records(table: Crazy4PokerTable) -> list[EquipmentEvent]:
    return [event for event in table.progressive.take_unheard() if isinstance(event, EquipmentEvent)]


async def _until(what: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not what():
            await asyncio.sleep(0.01)


def _chip_on(controller: SimulatedDevice, seat: int) -> None:
    """A player drops a chip on the seat's progressive sensor."""
    controller.call(lambda engine: engine.personality.cover(engine, seat))


def _personality(rig: Rig) -> ControllerPersonality:
    personality = rig.controller.engine.personality
    assert isinstance(personality, ControllerPersonality)
    return personality


#: Only four aces pay the progressive, from level 2, which is not on the link: no round of these
#: tests waits for the link controller's amount of a hit (the link here is the table's side alone).
FOUR_ACES_UNLINKED = RuleSet.example(**{**RULES, "progressive_pay_table": {"four_aces": "100%"}})


def test_a_lost_link_locks_the_sensors_out_and_a_chip_dropped_anyway_is_not_accepted_or_sent():
    async def scenario() -> None:
        async with table_rig(FOUR_ACES_UNLINKED, {"four_aces": 2}) as rig:
            table = rig.table
            link, sender = _linked(table)
            heard_open(link)
            await _until(lambda: table.progressive.sensors_locked_out is False)
            _records(table)
            sender.connected = False  # the floor's broker gone
            link.look()
            await _until(lambda: table.progressive.sensors_locked_out is True)
            assert _personality(rig).locked_out, "the controller itself was told"
            (locked,) = [r for r in _records(table) if r.kind == "sensors_locked_out"]
            assert locked.clause == SENSORS_LOCKED_OUT.clause
            assert locked.fields["reason"] == "link c4p: the floor's broker is not reachable"

            _chip_on(rig.controller, 1)
            players = Keyed(
                rig.players,
                PlaceWagers(1, STAKE, STAKE, 0, progressive=PROGRESSIVE_CHIP),
                PlaceWagers(1, STAKE, STAKE, 0),
            )
            round_ = await table.play_round(players)
            unreachable = "link c4p: the floor's broker is not reachable"
            assert players.refusals == [f"seat 1: progressive wager refused: {unreachable} ({LINK_HEARD})"]
            assert round_.state == COMPLETE
            assert table.progressive.round is not None and table.progressive.round.count == 0
            assert sender.sent == Counts(), "no contribution for a wager the controller refused"
            irregular = table.progressive.irregularities
            await _until(lambda: any("wagering locked out" in i.detail for i in irregular))
            (refused,) = [i for i in irregular if "wagering locked out" in i.detail]
            assert refused.rule is SENSORS_LOCKED_OUT and refused.detail.startswith("seat 1:")
            await reset_frozen(rig)

            sender.connected = True  # the broker back; the controller heard, nothing to reconcile
            heard_open(link)
            await _until(lambda: table.progressive.sensors_locked_out is False)
            assert not _personality(rig).locked_out
            assert "sensors_enabled" in [r.kind for r in _records(table)]
            players = Keyed(rig.players, PlaceWagers(1, STAKE, STAKE, 0, progressive=PROGRESSIVE_CHIP))
            round_ = await table.play_round(players)
            assert players.refusals == [] and round_.state == COMPLETE
            assert table.progressive.round is not None and table.progressive.round.count == 1
            assert sender.sent.contributions == 1

    run(scenario(), 60)


#: Every hand pays the progressive, so a seat with a progressive wager always has an award due.
EVERY_HAND_PAYS = RuleSet.example(
    **{**RULES, "progressive_pay_table": {category.name.lower(): 100 for category in Category}}
)


def test_a_link_lost_after_the_progressive_wager_was_placed_refuses_it_at_the_lock_and_pays_no_award():
    """The progressive wager placed while the link was up, the link lost before "no more bets": the
    sensors are locked out, so the lock accepts none; the dealer returns the chip (and counts none),
    and the round settles the wager returned, not collected, with no award and no Envy Bonus."""

    async def scenario() -> None:
        async with table_rig(EVERY_HAND_PAYS) as rig:
            table = rig.table
            link, sender = _linked(table)
            heard_open(link)
            await _until(lambda: table.progressive.sensors_locked_out is False)

            async def link_lost() -> None:
                sender.connected = False
                link.look()
                await _until(lambda: table.progressive.sensors_locked_out is True)

            _chip_on(rig.controller, 1)
            rig.dealer.miscount = -1  # the dealer returns the chip the system refused: none counted
            players = Keyed(
                rig.players, PlaceWagers(1, STAKE, STAKE, 0, progressive=PROGRESSIVE_CHIP), then=link_lost
            )
            round_ = await table.play_round(players)
            assert players.refusals == [] and round_.state == COMPLETE
            assert not round_.awards and not round_.awards_paid
            assert table.progressive.round is not None and table.progressive.round.count == 0
            assert sender.sent == Counts()
            seat1 = [(a.wager.value, a.movement.value, a.amount) for a in round_.actions if a.seat == 1]
            on_progressive = [s for s in seat1 if s[0] in ("progressive", "envy_bonus")]
            assert on_progressive == [("progressive", "push", PROGRESSIVE_CHIP)]

    run(scenario(), 60)
