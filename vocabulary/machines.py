"""The Machine every rule machine is built on: a device's (devices/) and a game round's (games/).

transitions adds a method to the model for every trigger (``go``, ``may_go``) and state
(``is_ready``) unless told otherwise; a type checker cannot see those, and a misspelt call fails only
when it runs. ``model_override=True`` turns that round: the machine binds only the names the model
class declares, and adds nothing else. A class declares a trigger it fires as a method by name and
type (``start_round: Trigger``), and ``trigger`` or ``may_trigger`` if it fires or checks one by a
name it holds. transitions logs a warning for each name it leaves unbound; here leaving them
unbound is the point, so it is silent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from transitions import Machine

if TYPE_CHECKING:
    from transitions.core import CallbackFunc  # declared in transitions' stubs only

#: transitions' keyword arguments for one transition or a whole machine (Any: transitions takes
#: names, lists of names, guard objects and flags alike).
Spec = dict[str, Any]  # Any: names, lists of names, guard objects, flags

#: A trigger (or ``may_<trigger>``, ``trigger``, ``may_trigger``) the machine binds to its model,
#: declared on the model's class: it takes the trigger's keyword data and says whether it fired.
Trigger = Callable[..., bool]


class DeclaredMachine(Machine):
    """A Machine built with ``model_override=True``: it binds the names a model declares, quietly."""

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
