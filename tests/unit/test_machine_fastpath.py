"""The compiled trigger path (vocabulary/machines.py, decision 0041) does what transitions' generic
path does: same states, same records, same refusals, over the same inputs.

Every game's simulated table plays a few rounds on its simulated devices (the compiled path, as in
production), and each round's construction and messages are kept. Each kept round is then played
again twice, once on the game's shared (compiled) machine and once on a generic transitions machine
built from the same definition, and at every step of the round each of the game's kinds of message
(one of each trigger the round was given) is tried out of turn on both: refused, set aside,
held or taken, the two must agree, and so must the round's state and records after each real
message. The device machines fire their triggers on the same path, under each device's rules tests
and the tables' end-to-end tests; the second test here checks, for every round and device machine,
that each trigger's compiled transitions from each state are transitions' own, in its order, each
callback resolved to the function transitions would call.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import random
from collections.abc import Iterator
from typing import Any

import pytest
from transitions import Machine
from transitions.core import Event

from games import registry
from games.common.messages import Message
from games.common.records import Record
from games.common.round_base import RoundBase
from simulator.floor import FloorSupervisor, controller_key, keyed_resets, on_the_floor
from simulator.players import simulated_players, table_options
from simulator.summary import Tally
from simulator.tables import simulated_table
from tests.unit.test_machine_callbacks import DEVICE_MACHINES
from vocabulary.machines import CompiledEvent, DeclaredMachine
from vocabulary.rules import RuleViolation

ROUNDS = 2
SEED = 11

Round = RoundBase[Any]  # Any: each game settles its own kind of action


class GenericMachine(DeclaredMachine):
    """The same Machine with transitions' own Event and ``may_`` check: the generic path."""

    event_cls = Event
    _can_trigger = Machine._can_trigger


@functools.cache
def generic_machine(package: str) -> Machine:
    """The game's round machine on the generic path, built from the definition its own is built from."""
    definition = importlib.import_module(package).machine_definition()
    machine = GenericMachine(model=None, model_override=True, **definition)
    assert not any(isinstance(e, CompiledEvent) for e in machine.events.values())
    return machine


class Kept:
    """One played round: how it was made and the messages it was given, in order."""

    def __init__(self, cls: type[Round], args: tuple[object, ...], kwargs: dict[str, object]) -> None:
        self.cls, self.args, self.kwargs = cls, args, kwargs
        self.messages: list[Message] = []

    def made(self, generic: bool) -> Round:
        round_ = self.cls(*self.args, **self.kwargs)
        if generic:  # a round never joins its machine: it fires the machine's events as their model
            machine = generic_machine(self.cls.__module__.rpartition(".")[0])  # the game's package
            round_.shared_machine = lambda: machine  # type: ignore[assignment]  # this round's machine only
        return round_


def played(slug: str, monkeypatch: pytest.MonkeyPatch) -> list[Kept]:
    """``ROUNDS`` rounds of ``slug`` on its simulated table, each kept."""
    game = registry.game(slug)
    kept: dict[int, Kept] = {}
    made = game.round.__init__
    handle = RoundBase.handle

    def keep_init(self: Round, *args: Any, **kwargs: Any) -> None:  # Any: the game's own arguments
        kept[id(self)] = Kept(type(self), args, kwargs)
        made(self, *args, **kwargs)

    def keep_handle(self: Round, message: Message) -> tuple[Record, ...]:
        if id(self) in kept:
            kept[id(self)].messages.append(message)
        return handle(self, message)

    monkeypatch.setattr(game.round, "__init__", keep_init)
    monkeypatch.setattr(RoundBase, "handle", keep_handle)

    async def play() -> None:
        async with simulated_table(slug, name="fastpath", shuffler_seed=SEED) as sim:
            options = table_options(slug, sim)
            players: Any = simulated_players(slug, random.Random(SEED), **options)  # Any: per game
            async with on_the_floor(FloorSupervisor(sim.table, Tally(), None)):
                for _ in range(ROUNDS):
                    await keyed_resets(sim.table, controller_key(sim), None)
                    await sim.table.prepare_round()
                    await sim.table.play_round(players)

    asyncio.run(play())
    monkeypatch.undo()
    return [k for k in kept.values() if k.messages]


def outcome(round_: Round, message: Message) -> tuple[object, ...]:
    """What handling ``message`` did: the records and state, or the refusal with its rule."""
    try:
        records = round_.handle(message)
    except RuleViolation as refused:
        return ("refused", refused.rule, str(refused), round_.state, round_.records)
    return ("taken", records, round_.state)


def probes(messages: list[Message]) -> list[Message]:
    """One message of each trigger the round was given, the first of each."""
    return list({m.trigger: m for m in reversed(messages)}.values())


@pytest.mark.parametrize("slug", registry.slugs())
def test_both_paths_agree_on_played_rounds(slug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rounds = played(slug, monkeypatch)
    assert rounds, "the table played its rounds"
    tried = refused = 0
    for kept in rounds:
        fast, generic = kept.made(generic=False), kept.made(generic=True)
        assert fast.shared_machine() is not generic.shared_machine()
        for step, message in enumerate(kept.messages):
            for probe in probes(kept.messages):
                a, b = _replayed(kept, step), _replayed(kept, step, generic=True)
                got = outcome(a, probe)
                assert got == outcome(b, probe), f"{slug} step {step}: {probe!r}"
                tried, refused = tried + 1, refused + (got[0] == "refused")
            assert outcome(fast, message) == outcome(generic, message), f"{slug} step {step}: {message!r}"
        assert fast.state == generic.state and fast.records == generic.records
    assert refused and tried > refused, "the probes met both refusals and messages taken"


def _replayed(kept: Kept, steps: int, *, generic: bool = False) -> Round:
    round_ = kept.made(generic)
    for message in kept.messages[:steps]:
        outcome(round_, message)  # a message the table had refused is refused again
    return round_


def _machines() -> Iterator[tuple[str, Machine, type]]:
    for name, (definition, model) in DEVICE_MACHINES.items():
        yield (
            name,
            DeclaredMachine(model=None, model_override=True, auto_transitions=False, **definition),
            model,
        )
    for game in registry.registered():
        yield game.slug, game.round.shared_machine(), game.round


@pytest.mark.parametrize(
    ("name", "machine", "model"), list(_machines()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_trigger_compiles_to_its_transitions(name: str, machine: Machine, model: type) -> None:
    """For every trigger and source state, the compiled path holds the generic path's transitions in
    its order, each condition and callback resolved to what transitions resolves on a model of the
    class (the function behind the bound method transitions would call)."""
    walked = skips = 0
    for trigger, event in machine.events.items():
        assert isinstance(event, CompiledEvent), trigger
        table = event._compile(model)
        assert set(table) == {source for source, ts in event.transitions.items() if ts}, trigger
        for source, (state, compiled) in table.items():
            assert state is machine.get_state(source)
            assert [c.transition for c in compiled] == event.transitions[source]
            for c in compiled:
                t = c.transition
                assert [target for _, target in c.conditions] == [cond.target for cond in t.conditions]
                named = [
                    (step, cond.func) for (step, _), cond in zip(c.conditions, t.conditions, strict=True)
                ]
                named += zip(c.before, [*machine.before_state_change, *t.before], strict=True)
                named += zip(c.after, [*t.after, *machine.after_state_change], strict=True)
                named += zip(c.prepare, t.prepare, strict=True)
                for step, callback in named:
                    found = (
                        inspect.getattr_static(model, callback, None) if isinstance(callback, str) else None
                    )
                    if machine.send_event and inspect.isfunction(found):
                        assert step is found, f"{trigger} {source}: {callback}"
                    walked += 1
                assert c.dest is (None if t.dest is None else machine.get_state(t.dest))
            for index, c in enumerate(compiled):  # skipped on a failed first condition: the same one
                shared = compiled[index + 1 : index + 1 + c.shares_first]
                assert all(s.conditions[0] == c.conditions[0] and not s.prepare for s in shared), trigger
                after = compiled[index + 1 + c.shares_first : index + 2 + c.shares_first]
                assert not (c.conditions and after and after[0].conditions[:1] == c.conditions[:1]), trigger
                skips += c.shares_first
    assert walked, "the walk found callbacks"
    if name == "free-bet-blackjack":  # the deal's last card: three transitions open with completes_deal
        assert skips, "a failed completes_deal skips the transitions that open with it"
