"""What five years of trail cost on disk, and how fast one round is found in a long trail.

    python bench/trail_storage.py [--rounds N] [--per-game M] [--trail DIR] [--repeat R]

1. Bytes per round stored, raw and compressed (croupier.audit.storage, as the table service keeps
   closed files), for each game at six seats: ``--per-game`` simulated rounds (default 100) each,
   with ``croupier sim --seats 6 --audit``.
2. A trail of ``--rounds`` (default 10,000) Free Bet Blackjack rounds at six seats, played once
   into ``--trail`` (a temporary directory by default; a directory holding a trail is reused, so a
   second run skips the minutes of play), its closed files compressed but the newest, as the
   service leaves them. On it, best of ``--repeat``:

   - ``croupier replay --round N`` for a round in the middle, the command's work once its
     arguments are parsed (``croupier.commands.replay``: every file's ends checked, the index
     read, the round's records read, checked and rebuilt, the text written), in this process;
   - the floor: the same records read directly, from the same file at the place the index gives
     (the gzip members that hold them decompressed, each line parsed), and nothing checked;
   - once, the same replay with the indexes removed: every file read and verified, as before.

Prints bytes per round for each game, the three times, and last ``ratio=<replay time / direct read
time>``. Target: 5 or less.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import tempfile
import time
from pathlib import Path

from _common import best, simulated_trail  # the bench directory is on sys.path when a script in it runs

from croupier.audit.index import load
from croupier.audit.record import AuditRecord
from croupier.audit.rotation import compress_closed, series_files, table_of
from croupier.audit.storage import compress, index_path, last_line, read_range
from croupier.commands.replay import _replay
from games import registry

SEATS = 6


def per_round(directory: Path, game: str, rounds: int) -> tuple[float, float]:
    """Raw and compressed bytes per round of ``rounds`` rounds of ``game``."""
    files = simulated_trail(directory, game, rounds, SEATS)
    raw = sum(path.stat().st_size for path in files)
    packed = sum(compress(path)[0].stat().st_size for path in files)  # every file closed by the sim
    return raw / rounds, packed / rounds


def round_runs(files: list[Path], number: int) -> list[tuple[Path, object, list]]:
    """Where the index says round ``number``'s records are: (file, its index, runs)."""
    found = []
    for path in files:
        close = AuditRecord.parse(last_line(path))
        index = load(path, close.fields["index"]) if close.kind == "close" else None
        if index is None:
            continue
        for position, chunk in enumerate(index.chunks):
            if chunk.holds(number):
                found.append((path, index, [r for r in index.runs(position) or [] if r.round == number]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000, help="rounds of the long trail (default 10000)")
    parser.add_argument("--per-game", type=int, default=100, help="rounds per game for bytes per round")
    parser.add_argument("--trail", type=Path, default=None, help="play the long trail into (or reuse) this")
    parser.add_argument("--repeat", type=int, default=7, help="timings of each, the best kept (default 7)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"bytes per round at {SEATS} seats (raw / compressed):")
        for game in registry.slugs():
            (Path(scratch) / game).mkdir()
            raw, packed = per_round(Path(scratch) / game, game, args.per_game)
            print(f"  {game:<20} {raw:>9,.0f} / {packed:>8,.0f}  ({raw / packed:.1f}x)")
        directory = args.trail or Path(scratch) / "long"
        directory.mkdir(parents=True, exist_ok=True)
        files = simulated_trail(directory, registry.slugs()[0], args.rounds, SEATS)
        compress_closed(directory, table_of(files[0]))
        files = series_files(directory, table_of(files[0]))
        size = sum(path.stat().st_size for path in files)
        print(f"long trail: {args.rounds} rounds in {len(files)} files, {size / 1e6:.0f} MB stored")
        number = args.rounds // 2
        command = argparse.Namespace(files=files, round=number, json=False)

        def replay_round() -> None:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert _replay(command) == 0, out.getvalue()

        located = round_runs(files, number)
        assert located, f"round {number} is not in the index"

        def direct() -> None:
            for path, index, runs in located:
                for run in runs:
                    for line in read_range(path, run.offset, run.length, index.members).splitlines():
                        AuditRecord.parse(line)

        records = sum(len(runs) for _, _, runs in located)
        replay_time, direct_time = best(args.repeat, replay_round), best(args.repeat, direct)
        hidden = Path(scratch) / "indexes"
        hidden.mkdir()
        for path in files:
            if index_path(path).exists():
                shutil.move(index_path(path), hidden / index_path(path).name)
        started = time.perf_counter()
        replay_round()
        whole = time.perf_counter() - started
        for moved in hidden.iterdir():
            shutil.move(moved, directory / moved.name)
    print(f"replay --round {number}: {replay_time * 1e3:.2f} ms through the index ({records} run(s))")
    print(f"direct read of its records: {direct_time * 1e3:.2f} ms")
    print(f"replay --round {number} without indexes: {whole:.2f} s (every file read and verified)")
    print(f"ratio={replay_time / direct_time:.2f}")


if __name__ == "__main__":
    main()
