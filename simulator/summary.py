"""The simulator's tally, taken from the rounds' own records as they are made: what the audit trail
holds is what the summary counts, so a summary never disagrees with the evidence.

The house result per wager type is minus the players' net on that wager (every settlement record
carries the wager and its net), so the summary proves the books balance rather than assuming it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from croupier.tables.events import HeardRound, RoundListener
from games.common.machine_parts import VOIDED
from games.common.records import Record

#: The version of the JSON summary's layout (docs/sim.md); raised when a key changes meaning.
SCHEMA = 1


class Tally(RoundListener):
    """A table listener (croupier.tables.events) counting rounds, hands, settlements by wager and
    movement, irregularities by code, supervisors' rulings, voided rounds and the faults the floor
    cleared."""

    def __init__(self) -> None:
        self.rounds = 0
        self.hands = 0
        self.players_net = 0
        self.outcomes: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.house: defaultdict[str, int] = defaultdict(int)
        self.wagered: defaultdict[str, int] = defaultdict(int)
        self.irregularities: Counter[str] = Counter()
        self.rulings: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.voided_rounds = 0

    # -- RoundListener ---------------------------------------------------------------------------

    def record(self, record: Record) -> None:
        kind, fields = record.kind.value, record.fields
        if kind == "settlement":
            wager = str(fields["wager"])
            net = int(fields["net"] or 0)
            self.outcomes[wager][str(fields["movement"])] += 1
            self.house[wager] -= net
            self.wagered[wager] += int(fields.get("amount") or 0)
        elif kind == "irregularity":
            self.irregularities[str(fields["code"])] += 1
        elif kind == "resolution":
            self.rulings[str(fields.get("resolution", "ruling"))] += 1
        elif kind == "state" and fields.get("dest") == VOIDED:  # by a ruling or by the rules (a misdeal)
            self.voided_rounds += 1

    def round_ended(self, round_: HeardRound) -> None:
        self.rounds += 1
        self.hands += len(round_.positions)
        self.players_net += sum(round_.net(seat) for seat in round_.positions)

    # -- the floor ------------------------------------------------------------------------------
    def fault_cleared(self, code: str) -> None:
        """The simulated floor supervisor cleared a latched fault (simulator.floor)."""
        self.faults[code] += 1

    # -- the summary ----------------------------------------------------------------------------
    def summary(
        self, *, game: str, seed: int | None, seats: int, seconds: float
    ) -> dict[str, Any]:  # Any: a JSON summary
        """The JSON summary (docs/sim.md). Everything but ``timing`` is a function of the seed."""
        house = {wager: self.house[wager] for wager in sorted(self.house)}
        return {
            "schema": SCHEMA,
            "game": game,
            "seed": seed,
            "seats": seats,
            "rounds": self.rounds,
            "hands": self.hands,
            "outcomes": {w: dict(sorted(self.outcomes[w].items())) for w in sorted(self.outcomes)},
            "house": {"by_wager": house, "total": sum(house.values())},
            "players_net": self.players_net,
            "irregularities": dict(sorted(self.irregularities.items())),
            "rulings": dict(sorted(self.rulings.items())),
            "voided_rounds": self.voided_rounds,
            "faults": dict(sorted(self.faults.items())),
            "timing": {"seconds": round(seconds, 3)},
        }


#: The summary's keys that depend on the machine's speed: the wall time, and the links' figures (a
#: command is sent again when its answer is late, and the wire's own faults are drawn as bytes pass).
MACHINE_DEPENDENT = ("timing", "links")


def without_timing(summary: dict[str, Any]) -> dict[str, Any]:  # Any: a JSON summary
    """The summary less what depends on the machine's speed: equal for equal seeds."""
    return {key: value for key, value in summary.items() if key not in MACHINE_DEPENDENT}
