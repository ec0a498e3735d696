"""The API's replies as models (pydantic v2, decision 0022): the handlers build each reply with its
model, and the OpenAPI document takes its response schemas from the same models."""

from __future__ import annotations

from typing import Any, Literal

from aiohttp import web
from pydantic import BaseModel, ConfigDict


class Reply(BaseModel):
    """Exactly the fields the model names (a handler cannot add one the document does not show)."""

    model_config = ConfigDict(extra="forbid")


class PromptShown(BaseModel):
    """What the table waits for from the screen; each kind adds its own fields (docs/api.md)."""

    model_config = ConfigDict(extra="allow")
    id: int
    kind: str
    seat: int | None
    answers: list[str]


class Error(Reply):
    """Every error: the message, the clause a refusal cites (null when none), and for an answer to a
    prompt no longer shown, the prompt shown now."""

    error: str
    clause: str | None
    prompt: PromptShown | None = None


class Taken(Reply):
    """An answer taken (or, repeated, the reply the first was given)."""

    taken: str
    answered: int
    by: str
    prompt: PromptShown | None


class Fault(Reply):
    code: str
    detail: str
    clause: str
    origin: str


class Faults(Reply):
    faults: list[Fault]


class Cleared(Reply):
    cleared: str
    by: str
    faults: list[Fault]


class Ruled(Reply):
    resolution: str
    by: str


class DealerChanged(Reply):
    dealer: str


class Opened(Reply):
    open: bool
    by: str


class Opening(Reply):
    """The day's opening on real equipment as it stands (decision 0037): the open's 202 reply, and
    ``opening`` in the table's state. ``state``: "opening" while it runs, "held" while a latched
    fault holds it (``reason`` names the fault and its clause; it goes on once cleared), "open" once
    the table is open, "refused" when it stopped (``reason`` and ``clause`` say why). ``by``: the
    supervisor who started it."""

    state: Literal["opening", "held", "open", "refused"]
    steps: list[str]
    by: str
    reason: str | None
    clause: str | None


class LevelReset(Reply):
    reset: int
    by: str


class Traced(Reply):
    device: str
    trace: bool
    by: str


class Verified(Reply):
    """An on-demand firmware authenticity check (58 Pa. Code § 461a.20(b)), as the trail records it."""

    device: str
    check: str
    trigger: str
    result: str
    detail: str
    model: str
    serial: str
    firmware: str
    firmware_hash: str
    nonce: str
    expected: list[str]
    reported: str
    next_due: str
    clause: str
    by: str
    faults: list[Fault]


class SignedIn(Reply):
    """A browser session (docs/decisions/0033-browser-sign-in.md): who is signed in, in which role,
    and for how many more seconds (null: signed in by a bearer token, no session); the session itself
    is only in the HttpOnly cookie."""

    operator: str
    role: str
    expires_in: int | None


class SignedOut(Reply):
    signed_out: str


class PromptReply(Reply):
    prompt: PromptShown | None


class HeldRound(Reply):
    """The round held for a supervisor's ruling: the irregularity and its clause, the rulings the
    irregularity offers (VOID, CONTINUE or both) and what CONTINUE does (null: not offered)."""

    round: int
    clause: str
    irregularity: str
    kind: str
    resolutions: list[str]
    on_continue: str | None


class LinkError(Reply):
    """The last error a device's link met: the driver's error class and its message, which names the
    device, the command and the link, never a card (docs/protocol.md §11.2)."""

    error: str
    detail: str


class Device(Reply):
    """One device as the supervisor's console shows it: its link state, and the last error of its
    link (null until one happened; kept after the link came back, so a flapping link shows why)."""

    name: str
    link: str
    last_error: LinkError | None


class Devices(Reply):
    devices: list[Device]


class Level(Reply):
    """One progressive level's meters (605a.7(a)) and, while a hit froze it until its keyed reset,
    the win it shows."""

    level: int
    value_cents: int
    reset_cents: int
    limit_cents: int
    hits: int
    wins_cents: int
    frozen: bool
    win_seat: int | None
    win_cents: int | None


class ProgressiveLevels(Reply):
    levels: list[Level]


class Verification(Reply):
    """The trail's last verification by the service: when it opened the trail it verified every file
    it continues (the chain, and the head the state database saved); null for a new series."""

    at: str
    files: int
    records: int
    last_hash: str


class AuditStatus(Reply):
    """The audit trail's head (its newest record on disk, as ``croupier audit head`` prints it),
    whether the trail is sealed, and its last verification."""

    file: str | None
    seq: int | None
    hash: str | None
    epoch: int | None
    sealed: bool
    verified: Verification | None


class Meter(Reply):
    """One progressive level as its meters stand: its value now, and whether a hit froze it."""

    level: int
    value_cents: int
    frozen: bool


class Progressive(Reply):
    """The progressive system: ``locked`` from "no more bets" until the round's chips are settled
    (657a.9(a)(3)); ``jackpot_locked`` the levels a hit froze until their keyed reset (605a.7(a))."""

    locked: bool
    jackpot_locked: list[int]
    meters: list[Meter]


class CurrentRound(Reply):
    """The round in play, or the last one played, as the event stream carried its records: a
    face-down card by its commitment until the record that turns it up (decision 0018). For a page
    that (re)loads mid-round."""

    round: int | None
    ended: str | None
    records: list[dict[str, Any]]  # Any: JSON values


class TableState(BaseModel):
    """The table's state; ``dealer``, ``shoe`` and ``progressive`` only at tables that have them."""

    model_config = ConfigDict(extra="forbid")
    name: str
    game: str
    open: bool
    opening: Opening | None = None
    rounds: int
    round_in_progress: bool
    prompt: PromptShown | None
    devices: dict[str, str]
    faults: list[Fault]
    held_round: HeldRound | None
    dealer: str | None = None
    shoe: dict[str, Any] | None = None  # Any: JSON values
    progressive: Progressive | None = None


def reply(model: type[BaseModel], /, **fields: Any) -> web.Response:  # Any: JSON values
    """``fields`` checked by ``model`` and sent as JSON (fields left at their default are left out)."""
    return web.json_response(model(**fields).model_dump(mode="json", exclude_unset=True))
