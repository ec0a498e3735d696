"""The procedure auditor's speed beside the chain check's, on the same simulated trail.

    python bench/audit_procedure.py [--rounds N] [--game GAME] [--trail DIR] [--repeat R]

Plays ``--rounds`` (default 2,000) simulated rounds with ``croupier sim --audit`` into ``--trail``
(a temporary directory by default; a directory that already holds a trail is reused as it is, so a
second run skips the minutes of play), then times, best of ``--repeat``, ``croupier audit verify``'s
work (``verify_series``: every record parsed and hashed, the chain followed) and ``croupier audit
procedure``'s (``read_records`` and ``judge``: every record parsed, every round judged against its
section), in this process. Prints records, rounds and records per second of each, then, last,
``ratio=<procedure time / verify time>``. Target: 3 or less.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import best, simulated_trail  # the bench directory is on sys.path when a script in it runs

from croupier.audit.procedure import judge
from croupier.audit.record import read_records
from croupier.audit.verify import verify_series


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="simulated rounds (default 2000)")
    parser.add_argument(
        "--game", default="free-bet-blackjack", help="the game played (default Free Bet Blackjack)"
    )
    parser.add_argument("--trail", type=Path, default=None, help="play into (or reuse) this directory")
    parser.add_argument("--repeat", type=int, default=3, help="timings of each, the best kept (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.trail or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        files = simulated_trail(directory, args.game, args.rounds)
        report = verify_series(files)
        assert report.ok, report.problem
        verdict = judge(read_records(files))
        records = report.records
        verify = best(args.repeat, lambda: verify_series(files))
        procedure = best(args.repeat, lambda: judge(read_records(files)))
    print(
        f"trail: {records} records, {verdict.checked} rounds ({verdict.clean} clean) in {len(files)} file(s)"
    )
    print(f"audit verify:    {verify:.3f} s, {records / verify:,.0f} records/s")
    print(f"audit procedure: {procedure:.3f} s, {records / procedure:,.0f} records/s")
    print(f"ratio={procedure / verify:.2f}")


if __name__ == "__main__":
    main()
