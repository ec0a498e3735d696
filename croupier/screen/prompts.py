"""The dealer's screen: what the table waits for from a person, and the answers keyed for it.

At a real table the players' wagers and decisions and the dealer's counts reach the service through
the dealer's screen (or the table management system), over the local API. The table asks one thing
at a time (``ask``) and the screen shows it as the current ``Prompt``: whose turn, what is allowed.
An answer keyed for it is parsed (a malformed one is refused before it reaches the table, naming the
field), checked against the seat in turn, and handed to the table as an ``Offer``; the request
returns once the round has taken it, its records on disk, or with the round's refusal and clause.

Betting is one prompt that takes any number of wagers until the dealer calls "no more bets"; the
service shows it before a round begins, so that a round (and its number) exists only once a wager
has been keyed.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from croupier.screen.answers import Offer
from croupier.screen.bodies import JsonBody, empty_body
from croupier.screen.errors import PromptNotCurrent
from vocabulary.events import Event, Events
from vocabulary.rules import Rule, RuleViolation

Json = dict[str, Any]  # Any: JSON values
Parse = Callable[[JsonBody], Any]  # Any: each kind of answer is read as its own type

AWAITED = Rule(
    "decision 0011",
    "the table takes, from the screen, only the answer it is waiting for",
)
NO_MORE_BETS = Rule("672a.7(e); 686a.7(e); 677a.10(a); 657a.9(a)", "no wager is taken after no more bets")
NO_WAGER = Rule(
    "672a.7(e); 686a.7(e); 677a.10(a); 657a.9(a)", "the deal follows the wagers: a round has at least one"
)
TABLE_CLOSED = Rule("decision 0013", "a closed table takes no wager")
ONCE = Rule(
    "decision 0022",
    "an answer names the prompt it answers; one to a prompt no longer shown is refused, naming the one shown",
)
#: The answer that ends betting.
CLOSE_BETTING = "no_more_bets"
#: How many answered prompts keep their first result, for a repeated answer (decision 0022).
KEPT = 64


#: "No more bets" carries only the prompt it answers.
NO_MORE_BETS_BODY = empty_body("NoMoreBets")


@dataclass(eq=False)
class Prompt:
    """One thing the table waits for. ``answers`` maps each kind of answer it takes to the parser of
    its JSON body; ``seat`` is the seat in turn (an answer naming another is refused with ``turn``)."""

    id: int
    kind: str
    answers: Mapping[str, Parse]
    seat: int | None = None
    turn: Rule | None = None
    context: Json = field(default_factory=dict)
    offers: asyncio.Queue[Offer[Any]] = field(default_factory=asyncio.Queue)  # Any: as Parse
    keyed: asyncio.Event = field(default_factory=asyncio.Event)  # an answer has been keyed
    pending: Offer[Any] | None = None  # Any: as Parse
    taken: int = 0  # answers the round has taken
    #: The first result of each kind of answer that closes the prompt (decision 0022).
    results: dict[str, Any] = field(default_factory=dict)  # Any: the replies, JSON values
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # the pending answer's outcome known

    @property
    def single(self) -> bool:
        """Taking one answer (not betting, which takes any number of wagers)."""
        return CLOSE_BETTING not in self.answers

    def closes(self, kind: str) -> bool:
        """Whether an answer of ``kind`` closes the prompt: any answer of a single one; of betting,
        "no more bets"."""
        return self.single or kind == CLOSE_BETTING

    def as_json(self) -> Json:
        shown = {"id": self.id, "kind": self.kind, "seat": self.seat, "answers": sorted(self.answers)}
        return {**shown, **self.context}


@dataclass(frozen=True)
class PromptShown(Event):
    """What the screen shows now: a prompt as JSON, None when nothing is awaited. A prompt names no
    face-down card's face."""

    prompt: Json | None


@dataclass(frozen=True)
class DealerStep(Event):
    """A physical step the table asks of the dealer now (croupier.screen.dealer): its name, as a
    method of the dealer's, and its arguments."""

    step: str
    arguments: JsonBody


class Screen:
    """The dealer's screen of one table; its ``events`` hub publishes each prompt shown
    (``PromptShown``) and each step asked of the dealer (``DealerStep``), decision 0031."""

    def __init__(self) -> None:
        self.prompt: Prompt | None = None
        self.closed = False
        self.events = Events()
        self._ids = itertools.count(1)
        self._betting: Prompt | None = None
        self._recent: OrderedDict[int, Prompt] = OrderedDict()  # the last prompts shown, by id

    # -- the table's side -----------------------------------------------------------------------
    async def ask(
        self,
        kind: str,
        parse: Parse,
        *,
        seat: int | None = None,
        turn: Rule | None = None,
        **context: Any,  # Any: JSON values
    ) -> Offer[Any]:  # Any: as Parse
        """Show a prompt taking one answer of ``kind`` and wait for it to be keyed."""
        prompt = Prompt(next(self._ids), kind, {kind: parse}, seat, turn, dict(context))
        self._show(prompt)
        try:
            return await prompt.offers.get()
        finally:
            self._show(None)

    async def first_wager(self, parse: Parse, **context: Any) -> None:  # Any: JSON values
        """Show the betting prompt (``context``: what it shows beside its answers) and wait until a
        wager is keyed (the service then begins a round)."""
        betting = self._betting = Prompt(
            next(self._ids), "wagers", {"wager": parse, CLOSE_BETTING: NO_MORE_BETS_BODY}, context=context
        )
        self._show(betting)
        await betting.keyed.wait()

    async def betting(self) -> AsyncIterator[Offer[Any]]:  # Any: as Parse
        """The wagers keyed for the round, until "no more bets"; any keyed after it is refused."""
        betting = self._betting
        assert betting is not None, "first_wager shows the betting prompt before a round begins"
        try:
            while True:
                offer = await betting.offers.get()
                if offer.value is CLOSE_BETTING:
                    offer.accept()
                    return
                yield offer
        finally:
            self._betting = None
            self._show(None)
            while not betting.offers.empty():
                betting.offers.get_nowait().refuse(RuleViolation(NO_MORE_BETS, "no more bets was called"))

    def step(self, step: str, arguments: JsonBody) -> None:
        """Show the dealer a physical step to do now (place a card, burn, pick up...)."""
        self.events.publish(DealerStep(step, arguments))

    @property
    def shown(self) -> Prompt | None:
        """What the screen shows: the prompt awaited, but no betting at a closed table before a
        round has begun."""
        betting = self._betting
        if self.closed and self.prompt is betting and betting is not None and not betting.keyed.is_set():
            return None
        return self.prompt

    def close(self) -> None:
        """The table closes: no betting prompt is shown until it opens again."""
        self.closed = True
        self._announce()

    def open(self) -> None:
        self.closed = False
        self._announce()

    # -- the person's side ----------------------------------------------------------------------
    def kind(self, prompt_id: int, kinds: tuple[str, ...]) -> str:
        """Which of ``kinds`` (the kinds one route keys) an answer to ``prompt_id`` is."""
        prompt = self._recent.get(prompt_id)
        return next((kind for kind in kinds if prompt is not None and kind in prompt.answers), kinds[0])

    async def answer(
        self, kind: str, body: JsonBody, reply: Callable[[], object] | None = None
    ) -> Any:  # Any: the reply's JSON, else the answer's own type
        """Key an answer to the prompt ``body["prompt"]`` names; returns ``reply()`` (else the value)
        once the round has taken it, or raises its refusal (a RuleViolation with the clause) or, for a
        malformed body, the parser's error. Nothing changes on a refusal. An answer to a prompt an
        answer has closed changes nothing and returns that answer's result (decision 0022)."""
        prompt_id = body.get("prompt")
        asked = self._recent.get(prompt_id) if isinstance(prompt_id, int) else None
        if asked is not None and asked.closes(kind) and asked.pending is not None:
            await asked.settled.wait()  # the same answer keyed twice at once: the first one's outcome
        if asked is not None and kind in asked.results:
            return asked.results[kind]
        prompt = self.prompt
        betting = self._betting
        if kind == "wager" and self.closed and (betting is None or not betting.keyed.is_set()):
            raise RuleViolation(TABLE_CLOSED, f"{kind} refused: the table is closed")  # a round begun ends
        shown = self.shown
        if prompt is None or prompt.id != prompt_id:
            if asked is not None and not asked.single and kind == "wager":
                raise RuleViolation(
                    NO_MORE_BETS, f"wager refused: no more bets was called (prompt {prompt_id})"
                )
            showing = "no prompt" if shown is None else f"{shown.kind} (prompt {shown.id})"
            refused = f"{kind} to prompt {prompt_id!r} refused: it is not shown; the screen shows {showing}"
            raise PromptNotCurrent(ONCE, refused, None if shown is None else shown.as_json())
        if kind not in prompt.answers:
            raise RuleViolation(
                AWAITED, f"{kind} refused: the table is waiting for {prompt.kind} (prompt {prompt.id})"
            )
        value = prompt.answers[kind](body)  # a malformed body is refused first, by its parser
        if prompt.seat is not None and body.get("seat") != prompt.seat:
            rule = prompt.turn or AWAITED
            raise RuleViolation(rule, f"seat {body.get('seat')!r} is not in turn: seat {prompt.seat} is")
        if kind == CLOSE_BETTING and prompt.taken == 0:
            raise RuleViolation(NO_WAGER, "no more bets refused: no wager has been taken for this round")
        offer = Offer(CLOSE_BETTING if kind == CLOSE_BETTING else value)
        if prompt.closes(kind):
            prompt.pending, prompt.settled = offer, asyncio.Event()
        prompt.offers.put_nowait(offer)
        prompt.keyed.set()
        try:
            await offer.outcome()
            prompt.taken += 1
            result = value if reply is None else reply()
            if prompt.closes(kind):
                prompt.results[kind] = result
            return result
        finally:
            if prompt.pending is offer:
                prompt.pending = None
                prompt.settled.set()

    def _show(self, prompt: Prompt | None) -> None:
        self.prompt = prompt if prompt is not None else self._betting
        if prompt is not None:
            self._recent[prompt.id] = prompt
            while len(self._recent) > KEPT:
                self._recent.popitem(last=False)
        self._announce()

    def _announce(self) -> None:
        """Tell the listeners what the screen shows now."""
        shown = self.shown
        self.events.publish(PromptShown(None if shown is None else shown.as_json()))
