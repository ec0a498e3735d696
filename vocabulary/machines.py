"""The Machine every rule machine is built on: a device's (devices/) and a game round's (games/).

transitions adds a method to the model for every trigger (``go``, ``may_go``) and state
(``is_ready``) unless told otherwise; a type checker cannot see those, and a misspelt call fails only
when it runs. ``model_override=True`` turns that round: the machine binds only the names the model
class declares, and adds nothing else. A class declares a trigger it fires as a method by name and
type (``start_round: Trigger``), and ``trigger`` or ``may_trigger`` if it fires or checks one by a
name it holds. transitions logs a warning for each name it leaves unbound; here leaving them
unbound is the point, so it is silent.

Firing a trigger takes the compiled path (``CompiledEvent``; decision 0041): transitions' generic
path looks every condition and callback up by name on every trigger, through several layers of
calls that log each step, and that was some 40 % of a simulated round's CPU (decision 0014). The
compiled path runs the same transitions in the same order, from the same table: each trigger's
transitions per source state, their conditions and callbacks resolved once per machine and model
class. The Machine stays a transitions Machine: the diagrams, docs/conformance.md and ``may_``
checks read the same table, and tests/unit/test_machine_fastpath.py runs both paths over the same
inputs.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from transitions import EventData, Machine
from transitions.core import Event, State, Transition

if TYPE_CHECKING:
    from transitions.core import Callback, CallbackFunc  # declared in transitions' stubs only

#: transitions' keyword arguments for one transition or a whole machine (Any: transitions takes
#: names, lists of names, guard objects and flags alike).
Spec = dict[str, Any]  # Any: names, lists of names, guard objects, flags

#: A trigger (or ``may_<trigger>``, ``trigger``, ``may_trigger``) the machine binds to its model,
#: declared on the model's class: it takes the trigger's keyword data and says whether it fired.
Trigger = Callable[..., bool]


#: A condition or callback resolved for a model class: called with the model and the EventData.
Step = Callable[[object, EventData], Any]  # Any: a condition's answer or a callback's ignored result


def _resolved(machine: Machine, cls: type, callback: Callback) -> Step:
    """``callback`` (a name on the model or a callable) as one call: a method the class defines is
    taken as its function, called with the model and what transitions would pass the bound method
    (the EventData with ``send_event``, else the trigger's arguments); anything else (a callable, a
    property, a flag, a dotted path) goes through transitions' own lookup at each call, so that it
    reads exactly what the generic path reads."""
    found = inspect.getattr_static(cls, callback, None) if isinstance(callback, str) else None
    if not inspect.isfunction(found):
        return lambda model, event: _called(machine, callback, event)
    if machine.send_event:
        return found  # a function of the class: (model, event)
    return lambda model, event: found(model, *event.args, **event.kwargs)


def _called(machine: Machine, callback: Callback, event: EventData) -> Any:  # Any: what it returns
    """What ``Condition.check`` and ``Machine.callback`` call: the callback resolved now, given the
    EventData or the trigger's arguments."""
    function = machine.resolve_callable(callback, event)
    return function(event) if machine.send_event else function(*event.args, **event.kwargs)


@dataclasses.dataclass(frozen=True)
class CompiledTransition:
    """One transition with everything it runs in the order transitions runs it (``Transition.execute``:
    prepare, conditions, the machine's and the transition's before, on a change of state the
    source's exit, the new state and the destination's enter, then after and the machine's after)."""

    transition: Transition
    prepare: tuple[Step, ...]
    conditions: tuple[tuple[Step, bool], ...]
    before: tuple[Step, ...]
    change: tuple[Step, ...]  # the source's on_exit, then (after the state is set) the dest's on_enter
    exits: int  # how many of ``change`` are the source's on_exit
    dest: State | None
    after: tuple[Step, ...]
    #: How many of the transitions after this one (from the same source) open with the same first
    #: condition (the same function, wanting the same answer) and prepare nothing: when that
    #: condition fails here, it fails for them too, as nothing ran in between and a guard reads the
    #: round, not which of its transitions asks (Free Bet Blackjack's three ``completes_deal``
    #: transitions, tried for every card of the deal; decision 0042).
    shares_first: int = 0

    def may(self, model: object, event: EventData) -> bool:
        """Whether its conditions pass (``Machine._can_trigger``: prepare, then the conditions)."""
        for step in self.prepare:
            step(model, event)
        return all(check(model, event) == target for check, target in self.conditions)

    def run(self, model: object, event: EventData, attribute: str) -> int:
        """Fire if the conditions pass, answering 0; else how many transitions on the next one to try
        is: 1, or past those that share the first condition (``shares_first``) when it failed."""
        # ``may`` written out again: a round tries some three transitions a message, and the call
        # and the generator ``all`` took were some 6 % of a math round (decision 0042).
        event.transition = self.transition
        for step in self.prepare:
            step(model, event)
        first = True
        for check, target in self.conditions:
            if check(model, event) != target:
                return 1 + self.shares_first if first else 1
            first = False
        for step in self.before:
            step(model, event)
        if self.dest is not None:
            for step in self.change[: self.exits]:
                step(model, event)
            setattr(model, attribute, self.dest.value)
            event.state = self.dest
            for step in self.change[self.exits :]:
                step(model, event)
        for step in self.after:
            step(model, event)
        return 0


def _sharing_first(transitions: tuple[CompiledTransition, ...]) -> tuple[CompiledTransition, ...]:
    """``transitions`` with each one's ``shares_first`` counted: the run of transitions after it whose
    first condition is its own and that prepare nothing."""
    counted = []
    for index, transition in enumerate(transitions):
        shares = 0
        if transition.conditions:
            for later in transitions[index + 1 :]:
                if later.prepare or not later.conditions or later.conditions[0] != transition.conditions[0]:
                    break
                shares += 1
        counted.append(dataclasses.replace(transition, shares_first=shares))
    return tuple(counted)


class CompiledEvent(Event):
    """A trigger whose transitions are compiled per model class on first use (decision 0041). Only
    the path that fires is compiled: a source the trigger does not leave is left to transitions'
    generic path, which raises its MachineError (or ignores the trigger) as it always has. Adding a
    transition compiles again; the states' callbacks are read once, as a rule machine's never change
    after it is built (decision 0019)."""

    def __init__(self, name: str, machine: Machine) -> None:
        super().__init__(name, machine)
        self._compiled: dict[type, dict[str, tuple[State, tuple[CompiledTransition, ...]]]] = {}

    def add_transition(self, transition: Transition) -> None:
        super().add_transition(transition)
        self._compiled.clear()

    def trigger(self, model: object, *args: object, **kwargs: object) -> bool:
        found = self._from(model)
        if found is None:
            return bool(super().trigger(model, *args, **kwargs))
        state, transitions = found
        attribute = self.machine.model_attribute
        event = EventData(state, self, self.machine, model, args, kwargs)
        index, count = 0, len(transitions)
        while index < count:
            on = transitions[index].run(model, event, attribute)
            if not on:
                event.result = True
                break
            index += on
        return bool(event.result)

    def may(self, model: object, args: tuple[object, ...], kwargs: dict[str, object]) -> bool:
        """``may_<trigger>``: whether one of the transitions from the model's state would pass."""
        found = self._from(model)
        if found is None:
            return False
        state, transitions = found
        event = EventData(state, self, self.machine, model, args, kwargs)
        for transition in transitions:
            event.transition = transition.transition
            if transition.may(model, event):
                return True
        return False

    def _from(self, model: object) -> tuple[State, tuple[CompiledTransition, ...]] | None:
        """The model's state and this trigger's transitions from it (None: it takes none from there)."""
        compiled = self._compiled.get(type(model)) or self._compile(type(model))
        return compiled.get(getattr(model, self.machine.model_attribute))

    def _compile(self, cls: type) -> dict[str, tuple[State, tuple[CompiledTransition, ...]]]:
        machine = self.machine
        unsupported = [
            name for name in ("prepare_event", "finalize_event", "on_exception") if getattr(machine, name)
        ]
        assert not machine.has_queue and not unsupported, f"not compiled: queued or {unsupported}"

        def steps(callbacks: Iterable[Callback]) -> tuple[Step, ...]:
            return tuple(_resolved(machine, cls, callback) for callback in callbacks)

        def compiled(transition: Transition) -> CompiledTransition:
            dest = None if transition.dest is None else machine.get_state(transition.dest)
            exits = steps(machine.get_state(transition.source).on_exit) if dest is not None else ()
            enters = (
                () if dest is None else steps(dest.on_enter) + (steps(machine.on_final) if dest.final else ())
            )
            return CompiledTransition(
                transition=transition,
                prepare=steps(transition.prepare),
                conditions=tuple((_resolved(machine, cls, c.func), c.target) for c in transition.conditions),
                before=steps([*machine.before_state_change, *transition.before]),
                change=exits + enters,
                exits=len(exits),
                dest=dest,
                after=steps([*transition.after, *machine.after_state_change]),
            )

        table = {
            source: (machine.get_state(source), _sharing_first(tuple(compiled(t) for t in transitions)))
            for source, transitions in self.transitions.items()
            if transitions
        }
        self._compiled[cls] = table
        return table


class DeclaredMachine(Machine):
    """A Machine built with ``model_override=True``: it binds the names a model declares, quietly;
    its triggers fire through the compiled path (``CompiledEvent``)."""

    event_cls = CompiledEvent

    def _can_trigger(self, model: object, trigger: str, *args: object, **kwargs: object) -> bool:
        event = self.events.get(trigger)
        return isinstance(event, CompiledEvent) and event.may(model, args, kwargs)

    def _checked_assignment(self, model: object, name: str, func: CallbackFunc) -> None:
        if name in _declared(type(model)):
            setattr(model, name, func)


def _declared(cls: type) -> frozenset[str]:
    """The names ``cls`` declares: its attributes and methods, and its annotations (``Trigger``)."""
    names = _DECLARED.get(cls)
    if names is None:
        annotated = {name for klass in cls.__mro__ for name in vars(klass).get("__annotations__", {})}
        names = _DECLARED[cls] = frozenset(dir(cls)) | annotated
    return names


_DECLARED: dict[type, frozenset[str]] = {}
