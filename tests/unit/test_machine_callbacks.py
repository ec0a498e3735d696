"""Every callback a machine names by string is a method (or property) its model class declares.

A transitions machine resolves a callback's name on the model only when the callback runs, so a
misspelt guard would otherwise surface as an AttributeError in the middle of a round, or never, on a
path no test walks. Here every round machine and every device machine is built from the same
definition it runs on, and every name in every transition (prepare, conditions, unless, before,
after), every state (on_enter, on_exit) and the machine's own callbacks is looked up on the class, which
must declare it (a method, a property, or an annotated flag).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest
from transitions import Machine

from devices import card_reader, progressive, shoe, shuffler
from games import registry

MACHINE_CALLBACKS = (
    "prepare_event",
    "before_state_change",
    "after_state_change",
    "finalize_event",
    "on_exception",
    "on_final",
)


def _named(callbacks: Any) -> Iterator[str]:
    for callback in callbacks:
        func = getattr(callback, "func", callback)  # a Condition wraps its callback
        if isinstance(func, str):
            yield func


def callback_names(machine: Machine) -> Iterator[tuple[str, str]]:
    """(where, name) for every callback the machine names by string."""
    for attribute in MACHINE_CALLBACKS:
        for name in _named(getattr(machine, attribute, ())):
            yield attribute, name
    for state in machine.states.values():
        for attribute in ("on_enter", "on_exit"):
            for name in _named(getattr(state, attribute)):
                yield f"{state.name}.{attribute}", name
    for event in machine.events.values():
        for transitions in event.transitions.values():
            for t in transitions:
                where = f"{event.name}: {t.source} -> {t.dest}"
                for attribute in ("prepare", "before", "after"):
                    for name in _named(getattr(t, attribute)):
                        yield f"{where} {attribute}", name
                for condition in t.conditions:
                    kind = "conditions" if condition.target else "unless"
                    for name in _named([condition]):
                        yield f"{where} {kind}", name


def declares(model: type, name: str) -> bool:
    """A method or property of ``model``, or a flag its class body declares (transitions reads a
    condition that is not callable as its value)."""
    found = getattr(model, name, None)
    if callable(found) or isinstance(found, property):
        return True
    return any(name in vars(cls).get("__annotations__", {}) for cls in model.__mro__)


def unresolved(machine: Machine, model: type) -> list[str]:
    return sorted(f"{where}: {name}" for where, name in callback_names(machine) if not declares(model, name))


def _round_machine(package: str) -> tuple[Machine, type]:
    game = importlib.import_module(package)
    return Machine(model=None, **game.machine_definition()), game.Round


#: Each device machine's definition as its class builds it (states, transitions, how callbacks are
#: called), and the class (tests/unit/test_machine_fastpath.py builds them too).
DEVICE_MACHINES: dict[str, tuple[dict[str, Any], type]] = {  # Any: transitions' keyword arguments
    "shoe": (dict(states=shoe.STATES, transitions=shoe.TRANSITIONS, send_event=True), shoe.Shoe),
    "shuffler": (
        dict(states=shuffler.STATES, transitions=shuffler.TRANSITIONS, send_event=True),
        shuffler.Shuffler,
    ),
    "card_reader": (
        dict(states=card_reader.STATES, transitions=card_reader.TRANSITIONS),
        card_reader.CardReader,
    ),
    "progressive": (
        dict(
            states=[progressive.OFFLINE, *progressive.ONLINE],
            transitions=progressive.TRANSITIONS,
            send_event=True,
        ),
        progressive.Progressive,
    ),
}


def _device_machines() -> dict[str, tuple[Machine, type]]:
    return {
        name: (Machine(model=None, auto_transitions=False, **definition), model)
        for name, (definition, model) in DEVICE_MACHINES.items()
    }


@pytest.mark.parametrize("package", sorted(game.package for game in registry.registered()))
def test_every_round_callback_resolves(package: str) -> None:
    machine, model = _round_machine(package)
    assert list(callback_names(machine)), "the walk found no callbacks"
    assert unresolved(machine, model) == []


@pytest.mark.parametrize("device", ["shoe", "shuffler", "card_reader", "progressive"])
def test_every_device_callback_resolves(device: str) -> None:
    machine, model = _device_machines()[device]
    assert list(callback_names(machine)), "the walk found no callbacks"
    assert unresolved(machine, model) == []


def test_a_misspelt_callback_is_found() -> None:
    machine, model = _round_machine("games.over_under")
    machine.add_transition("place_wager", "betting", None, conditions="wager_is_vaild")
    assert unresolved(machine, model) == ["place_wager: betting -> None conditions: wager_is_vaild"]
