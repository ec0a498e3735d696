"""How a link tells the log that its device is away: a warning when it goes, then at most one line
per interval while it stays away (with how many attempts have failed and for how long), and the
count once it is back. A shoe unplugged overnight is a line a minute, not two per back-off."""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog


class OutageLog:
    """The log lines of one device's outages; ``failed`` at each failed attempt, ``ended`` once
    the link is up (or given up) again."""

    def __init__(
        self,
        log: structlog.typing.FilteringBoundLogger,
        repeat: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log, self.repeat, self.clock = log, repeat, clock
        self.failures = 0  # attempts failed in this outage
        self._began = 0.0
        self._said: float | None = None  # when the last line of this outage was logged

    @property
    def ongoing(self) -> bool:
        return self.failures > 0

    def failed(self, reason: str) -> None:
        """An attempt failed (``reason``): said at once in a new outage, then once per ``repeat``."""
        now = self.clock()
        if not self.failures:
            self._began = now
        self.failures += 1
        if self._said is None:
            self.log.warning("link state", state="backoff", reason=reason, retrying=True)
        elif now - self._said >= self.repeat:
            down = round(now - self._began, 1)
            self.log.warning("link still down", reason=reason, failures=self.failures, down_s=down)
        else:
            return
        self._said = now

    def ended(self) -> dict[str, float]:
        """The outage is over: its failed attempts and length for the line saying so ({} if none)."""
        if not self.failures:
            return {}
        summary = {"failures": self.failures, "down_s": round(self.clock() - self._began, 1)}
        self.failures, self._said = 0, None
        return summary
