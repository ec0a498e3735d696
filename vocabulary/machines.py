"""The Machine every rule machine is built on: a device's (devices/) and a game round's (games/).

transitions adds a method to the model for every trigger (``go``, ``may_go``) and state
(``is_ready``) unless told otherwise; a type checker cannot see those, and a misspelt call fails only
when it runs. ``model_override=True`` turns that round: the machine binds only the names the model
class declares (with the signature the class gives them) and adds nothing else. transitions logs a
warning for each name it leaves unbound; here leaving them unbound is the point, so it is silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import Machine

if TYPE_CHECKING:
    from transitions.core import CallbackFunc  # declared in transitions' stubs only


class DeclaredMachine(Machine):
    """A Machine built with ``model_override=True``: it binds the names a model declares, quietly."""

    def _checked_assignment(self, model: object, name: str, func: CallbackFunc) -> None:
        if getattr(model, name, None) is not None:
            setattr(model, name, func)
