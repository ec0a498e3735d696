"""How a table takes answers (croupier.screen.answers): a keyed answer the round refuses goes back to
who keyed it with the clause, and the table asks again; a simulated one that is refused is a bug."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from croupier.screen.answers import Offer, answered, ask, each, received, take
from tests.links import run
from vocabulary.rules import Rule, RuleViolation

ODD_ONLY = Rule("TEST(a)", "only odd numbers are taken")


def odd_only(taken: list[int]):
    def apply(value: int) -> None:
        if value % 2 == 0:
            raise RuleViolation(ODD_ONLY, f"{value} is even")
        taken.append(value)

    return apply


def test_plain_answer_is_taken_and_a_refused_one_raises() -> None:
    taken: list[int] = []
    assert take(3, odd_only(taken)) is True
    with pytest.raises(RuleViolation, match="TEST"):
        take(4, odd_only(taken))
    assert taken == [3]


def test_keyed_answers_are_refused_back_and_asked_again() -> None:
    async def main() -> None:
        taken: list[int] = []
        keyed: asyncio.Queue[Offer[int]] = asyncio.Queue()
        table = asyncio.create_task(ask(keyed.get, odd_only(taken)))
        wrong, right = Offer(2), Offer(5)
        await keyed.put(wrong)
        with pytest.raises(RuleViolation) as refusal:
            await wrong.outcome()
        assert refusal.value.rule is ODD_ONLY and taken == []
        assert not table.done()  # still waiting for an answer it can take
        await keyed.put(right)
        await right.outcome()
        await table
        assert taken == [5]

    run(main())


def test_received_accepts_a_keyed_count_as_it_comes() -> None:
    async def main() -> None:
        offer = Offer(52)
        assert await received(lambda: offer) == 52
        await offer.outcome()
        assert await received(lambda: 7) == 7
        assert await answered(asyncio.sleep(0, result=9)) == 9

    run(main())


def test_each_streams_a_list_or_keyed_answers() -> None:
    async def keyed() -> AsyncIterator[int]:
        for value in (1, 2):
            yield value

    async def main() -> None:
        assert [a async for a in each([4, 5])] == [4, 5]
        assert [a async for a in each(keyed())] == [1, 2]

    run(main())
