"""The dealer's screen (croupier.screen.prompts), one layer: what it takes, from whom, and when —
every answer refused before it reaches the round names its rule; nothing is left waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from croupier.screen.answers import answered, ask, take
from croupier.screen.errors import BadRequest
from croupier.screen.prompts import AWAITED, NO_MORE_BETS, NO_WAGER, ONCE, TABLE_CLOSED, Screen
from croupier.tables.crazy_4_poker import Crazy4ScreenDealer
from games.crazy_4_poker.inputs import ReportHand
from tests.links import run
from vocabulary.cards import Card
from vocabulary.rules import Rule, RuleViolation

IN_TURN = Rule("TEST(h)", "players act in turn")


def seat_of(body: Mapping[str, Any]) -> int:
    return int(body["seat"])


async def refused(screen: Screen, kind: str, body: Mapping[str, Any]) -> Rule:
    with pytest.raises(RuleViolation) as refusal:
        await screen.answer(kind, body)
    return refusal.value.rule


def test_an_answer_nobody_waits_for_or_from_the_wrong_seat_is_refused_with_its_rule() -> None:
    async def main() -> None:
        screen = Screen()
        assert await refused(screen, "decision", {"prompt": 1, "seat": 1}) is ONCE, "nothing is shown"
        asking = asyncio.create_task(screen.ask("decision", seat_of, seat=2, turn=IN_TURN))
        await asyncio.sleep(0)
        assert screen.prompt is not None and screen.prompt.as_json()["seat"] == 2
        shown = screen.prompt.id
        assert await refused(screen, "decision", {"prompt": shown, "seat": 1}) is IN_TURN
        assert await refused(screen, "insurance", {"prompt": shown, "seat": 2}) is AWAITED
        # a malformed body: the parser's error, before the table
        with pytest.raises(ValueError, match=r"invalid literal for int\(\).*'two'"):
            await screen.answer("decision", {"prompt": shown, "seat": "two"})
        keyed = asyncio.create_task(screen.answer("decision", {"prompt": shown, "seat": 2}))
        await asyncio.sleep(0)
        again = asyncio.create_task(screen.answer("decision", {"prompt": shown, "seat": 2}))
        await asyncio.sleep(0)
        assert not again.done(), "the same answer keyed twice at once waits for the first one's outcome"
        take(await asking, lambda value: None)
        assert await keyed == 2 and screen.prompt is None
        assert await again == 2, "and is given its result"

    run(main())


def test_betting_needs_a_wager_taken_before_no_more_bets_and_refuses_late_wagers() -> None:
    async def main() -> None:
        screen = Screen()
        opening = asyncio.create_task(screen.first_wager(seat_of))
        await asyncio.sleep(0)
        betting = {"prompt": 1}
        assert await refused(screen, "no_more_bets", betting) is NO_WAGER, "no round without a wager"
        first = asyncio.create_task(screen.answer("wager", {**betting, "seat": 1}))
        await opening  # a wager keyed: the service begins the round
        stream = screen.betting()
        take(await answered(await anext(stream)), lambda wager: None)
        assert await first == 1
        closing = asyncio.create_task(screen.answer("no_more_bets", betting))
        late = asyncio.create_task(screen.answer("wager", {**betting, "seat": 2}))
        await asyncio.sleep(0)
        with pytest.raises(StopAsyncIteration):
            await anext(stream)
        await closing
        with pytest.raises(RuleViolation) as refusal:
            await late
        assert refusal.value.rule is NO_MORE_BETS and screen.prompt is None

    run(main())


def test_a_closed_table_takes_no_wager_until_a_round_has_begun() -> None:
    async def main() -> None:
        screen = Screen()
        opening = asyncio.create_task(screen.first_wager(seat_of))
        await asyncio.sleep(0)
        screen.close()
        assert await refused(screen, "wager", {"prompt": 1, "seat": 1}) is TABLE_CLOSED
        assert screen.shown is None, "no betting shown at a closed table"
        screen.open()
        assert screen.shown is screen.prompt is not None
        first = asyncio.create_task(screen.answer("wager", {"prompt": 1, "seat": 1}))
        await opening
        screen.close()  # closed with a round begun: its betting goes on to the end
        stream = screen.betting()
        take(await answered(await anext(stream)), lambda wager: None)
        second = asyncio.create_task(screen.answer("wager", {"prompt": 1, "seat": 2}))
        take(await answered(await anext(stream)), lambda wager: None)
        assert (await first, await second) == (1, 2)
        closing = asyncio.create_task(screen.answer("no_more_bets", {"prompt": 1}))
        with pytest.raises(StopAsyncIteration):
            await anext(stream)
        await closing

    run(main())


def test_a_hand_keyed_with_a_card_twice_goes_back_to_the_dealer_and_the_round_goes_on() -> None:
    """A hand keyed with a card twice passes the screen's own checks (five cards, each a card) but
    cannot be the round's message (``ReportHand`` refuses it: InputError): the dealer is told so, as
    a bad request naming it, and asked again; the table's ``ask`` goes on. Before, the InputError
    left ``take`` and ended the table's round, its wagers neither settled nor returned."""

    async def main() -> None:
        screen = Screen()
        dealer = Crazy4ScreenDealer(screen)
        taken: list[ReportHand] = []

        def reported(cards: tuple[Card, ...]) -> None:  # as the table gives it to the round
            taken.append(ReportHand(1, cards))

        asking = asyncio.create_task(ask(lambda: dealer.report_hand("seat 1"), reported))
        await asyncio.sleep(0)
        prompt = screen.prompt.as_json()
        twice = ["Kc", "Kc", "9h", "6s", "2c"]
        with pytest.raises(BadRequest, match="a card appears twice"):
            await screen.answer("hand_report", {"prompt": prompt["id"], "cards": twice})
        assert not asking.done() and not taken
        await asyncio.sleep(0)
        prompt = screen.prompt.as_json()
        hand = ["Kc", "Kd", "9h", "6s", "2c"]
        await screen.answer("hand_report", {"prompt": prompt["id"], "cards": hand})
        await asyncio.wait_for(asking, 1)
        assert taken == [ReportHand(1, tuple(Card.parse(word) for word in hand))]

    run(main())


def test_657a_1_the_dealer_keys_a_hand_turned_up_or_says_it_is_not_reported() -> None:
    """657a.1 (Hand): at a Crazy 4 Poker table whose shuffler reports no order the dealer keys each
    hand turned up (``hand_report``): five cards, the Six Card Bonus card alone, or null for a hand
    not reported (the round then holds); a malformed hand is refused before the table."""

    async def main() -> None:
        screen = Screen()
        dealer = Crazy4ScreenDealer(screen)
        asking = asyncio.create_task(dealer.report_hand("seat 1"))
        await asyncio.sleep(0)
        prompt = screen.prompt.as_json()
        assert prompt["kind"] == "hand_report" and prompt["place"] == "seat 1"
        with pytest.raises(BadRequest, match="5 cards"):
            await screen.answer("hand_report", {"prompt": prompt["id"], "cards": ["Kc", "Kd"]})
        hand = ["Kc", "Kd", "9h", "6s", "2c"]
        keyed = asyncio.create_task(screen.answer("hand_report", {"prompt": prompt["id"], "cards": hand}))
        await asyncio.sleep(0)
        got: list[object] = []
        take(await asking, got.append)
        await keyed
        assert got == [tuple(Card.parse(word) for word in hand)]
        asking = asyncio.create_task(dealer.report_hand("six-card"))
        await asyncio.sleep(0)
        prompt = screen.prompt.as_json()
        keyed = asyncio.create_task(screen.answer("hand_report", {"prompt": prompt["id"], "cards": None}))
        await asyncio.sleep(0)
        take(await asking, got.append)
        await keyed
        assert got[-1] is None

    run(main())
