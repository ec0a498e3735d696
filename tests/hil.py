"""``pytest --hil RIG_TOML [--record DIR]``: the conformance suite against the real devices a rig
file names (docs/hil.md), instead of the simulated ones.

Only tests marked ``hil`` run on a rig; the rest need the simulator and are deselected. A check
that needs an injected fault (a silenced device, a pulled cable, a dropped response) cannot inject
it into real hardware, so it is reported skipped with ``FAULTS_SKIP``, never silently left out.

Before anything connects, a preflight looks for each device (its /dev node, its USB VID:PID and
serial number): one that is absent is named once in the run's header, saying what to do, and its
checks are skipped with that line as the reason, rather than each check waiting out its
reconnects. A serial device server (``socket://``, ``rfc2217://``) can only be found by connecting,
so it is always tried.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from croupier.config.devices import DeviceConfig
from croupier.config.rig import RigConfig, load_rig_config
from croupier.errors import ConfigError

FAULTS_SKIP = "needs injected faults: simulator only"
_RIG = pytest.StashKey[RigConfig | None]()
_RECORD = pytest.StashKey[Path | None]()
_ABSENT = pytest.StashKey[dict[str, str]]()
F = TypeVar("F", bound=Callable[..., Any])


def needs_injected_faults(test: F) -> F:
    """Mark a conformance check that reaches into the simulator: skipped on a rig, saying why."""
    test.needs_injected_faults = True  # type: ignore[attr-defined]
    return test


@dataclass(frozen=True)
class RigTarget:
    """One real device of the rig, and where its exchanges are recorded (None: not recorded)."""

    device: DeviceConfig
    record: Path | None

    def __str__(self) -> str:
        return f"{self.device.name}@{self.device.url.url}"

    def recording_path(self) -> Path:
        """A new fixture file for this device in the running test: one per connection."""
        assert self.record is not None
        current = os.environ.get("PYTEST_CURRENT_TEST", "exchange").split(" ")[0].split("::")[-1]
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{self.device.name}-{current}").strip("-")
        for n in range(1, 1000):
            path = self.record / f"{stem}-{n}.jsonl"
            if not path.exists():
                return path
        raise RuntimeError(f"too many recordings named {stem} in {self.record}")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hardware-in-the-loop rig (docs/hil.md)")
    group.addoption(
        "--hil",
        metavar="RIG_TOML",
        help="run the conformance suite against the real devices the rig file names, not simulated ones",
    )
    group.addoption(
        "--record",
        metavar="DIR",
        help="with --hil: record each device's byte exchanges into DIR as replayable fixtures",
    )


def configure(config: pytest.Config) -> None:
    """Read the rig file once, before collection: a bad file stops the run naming file and key."""
    path, record = config.getoption("hil"), config.getoption("record")
    if record and not path:
        raise pytest.UsageError("--record needs --hil RIG_TOML: only real devices are recorded")
    try:
        found = config.stash[_RIG] = load_rig_config(path) if path else None
    except ConfigError as exc:
        raise pytest.UsageError(f"--hil: {exc}") from None
    config.stash[_RECORD] = Path(record).resolve() if record else None
    config.stash[_ABSENT] = preflight(found) if found is not None else {}


def preflight(found: RigConfig) -> dict[str, str]:
    """What is wrong with each rig device that is not there, by name: the line a person reads."""
    # Imported here: the transports are half a second of imports that a run without --hil (every
    # run of the suite loads this module) does not need.
    from croupier.service.hardware import transport_for

    return {
        name: f"{name}: {device.url.url} not found — connect it or edit {found.source}"
        for name, device in found.devices.items()
        if not transport_for(device).present()
    }


def report_header(config: pytest.Config) -> list[str]:
    """The preflight's lines, one per absent device, at the top of the run."""
    return [f"hil preflight: {line}" for line in config.stash.get(_ABSENT, {}).values()]


def rig(config: pytest.Config) -> RigConfig | None:
    return config.stash.get(_RIG, None)


def deselect(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a rig, only ``hil`` tests run: the others need the simulator throughout."""
    if rig(config) is None:
        return
    keep = [item for item in items if item.get_closest_marker("hil")]
    dropped = [item for item in items if not item.get_closest_marker("hil")]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def rig_cases(config: pytest.Config, test: Callable[..., Any], profiles: Sequence[Any]) -> list[Any]:
    """``(profile, RigTarget)`` params for each rig device, or an empty list without ``--hil``."""
    found = rig(config)
    if found is None:
        return []
    faults = getattr(test, "needs_injected_faults", False)
    absent = config.stash.get(_ABSENT, {})
    by_class = {profile.device_class: profile for profile in profiles}
    cases = []
    for device in found.devices.values():
        target = RigTarget(device, config.stash.get(_RECORD, None))
        profile = by_class.get(device.kind.device_class)
        marks = []
        if profile is None:
            reason = f"no conformance profile for {device.kind}: add one under tests/conformance/profiles/"
            marks.append(pytest.mark.skip(reason=reason))
        elif device.name in absent:
            marks.append(pytest.mark.skip(reason=f"hil preflight: {absent[device.name]}"))
        elif faults:
            marks.append(pytest.mark.skip(reason=FAULTS_SKIP))
        cases.append(pytest.param(profile, target, id=f"{device.name}-hil", marks=marks))
    return cases
