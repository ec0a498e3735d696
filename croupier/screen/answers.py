"""How a table takes what people tell it: the players' wagers and decisions, the dealer's counts.

A simulated player answers at once, with a plain value. At a real table the answer is keyed on the
dealer's screen some time later, and the round may refuse it, with the clause it breaks; the person
who keyed it must hear that refusal, and the table must ask again, nothing changed. So a source of
answers may return a value or an awaitable of one, and a keyed answer comes as an ``Offer`` that the
table accepts (once the round has taken it and its records are on disk) or refuses (with the
round's ``RuleViolation``). A refused plain value is a bug of the simulation, and is raised.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeAlias, TypeVar

from croupier.screen.errors import BadRequest
from games.common.messages import InputError
from vocabulary.rules import RuleViolation

T = TypeVar("T")
Value = TypeVar("Value", covariant=True)  # an offer of a Play is an offer of a game's Message


@dataclass(eq=False)
class Offer(Generic[Value]):
    """An answer keyed by a person: whoever keyed it awaits ``outcome()``, which returns once the
    round has taken it, or raises the refusal."""

    value: Value
    _outcome: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def accept(self) -> None:
        if not self._outcome.done():
            self._outcome.set_result(None)

    def refuse(self, refusal: BaseException) -> None:
        if not self._outcome.done():
            self._outcome.set_exception(refusal)

    async def outcome(self) -> None:
        await asyncio.shield(self._outcome)


#: One answer: given at once, keyed, or still to come.
Answer: TypeAlias = T | Offer[T] | Awaitable[T | Offer[T]]
#: Answers given all at once (a simulation), or keyed one by one until closed.
Answers: TypeAlias = Iterable[T] | AsyncIterator[T | Offer[T]]


async def answered(answer: Answer[T]) -> T | Offer[T]:
    """The answer itself, waited for when it is still to come."""
    return await answer if inspect.isawaitable(answer) else answer


def take(got: T | Offer[T], apply: Callable[[T], object]) -> bool:
    """Give one answer to the round through ``apply``: True when taken. A keyed answer the round
    refuses goes back to who keyed it (False: ask again); a simulated one is raised. So does one the
    round's message cannot be made of (a hand keyed with a card twice: InputError), as a bad
    request naming what was wrong, rather than ending the round."""
    offer = got if isinstance(got, Offer) else None
    try:
        apply(offer.value if offer is not None else got)  # type: ignore[arg-type]
    except (RuleViolation, InputError) as refusal:
        if offer is None:
            raise
        offer.refuse(refusal if isinstance(refusal, RuleViolation) else BadRequest(str(refusal)))
        return False
    if offer is not None:
        offer.accept()
    return True


async def ask(question: Callable[[], Answer[T]], apply: Callable[[T], object]) -> None:
    """Ask until an answer is taken by ``apply`` (which hands it to the round)."""
    while not take(await answered(question()), apply):
        pass


async def received(question: Callable[[], Answer[T]]) -> T:
    """An answer the table checks itself rather than the round (a recount): taken as it comes."""
    got = await answered(question())
    if isinstance(got, Offer):
        got.accept()
        return got.value
    return got


async def each(answers: Answers[T]) -> AsyncIterator[T | Offer[T]]:
    """A list of answers given at once (simulated players' wagers), or answers keyed one by one
    until the dealer closes them ("no more bets"), as one stream."""
    if isinstance(answers, AsyncIterator):
        async for answer in answers:
            yield answer
    else:
        for answer in answers:
            yield answer
