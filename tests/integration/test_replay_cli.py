"""``croupier replay`` on a trail written as the daemon writes it (croupier/commands/run.py): rounds
really played on the simulated Free Bet Blackjack table by basic-strategy players, each recorded
with ``record_round``; the command rebuilds each hand as the round held it, refuses a tampered
trail and names the rounds present when asked for another."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from croupier.audit.adapter import record_round
from croupier.audit.writer import AuditTrail
from croupier.cli import main
from simulator.games.free_bet_blackjack import BasicStrategyPlayers, simulated_free_bet_blackjack
from tests.links import FAST, run

ROUNDS = 6


def play_rounds(directory: Path) -> list:
    async def scenario() -> list:
        rounds = []
        with AuditTrail(directory, "sim-table") as trail:
            async with simulated_free_bet_blackjack(settings=FAST) as sim:
                players = BasicStrategyPlayers(random.Random(7))
                for _ in range(ROUNDS):
                    round_ = await sim.table.play_round(players)
                    record_round(trail, "free-bet-blackjack", round_.records)
                    rounds.append(round_)
        return rounds

    return run(scenario(), timeout=90)


def replay_json(capsys, *args: str) -> tuple[int, str]:
    capsys.readouterr()  # the table's own log lines, written while playing
    code = main(["replay", *args])
    return code, capsys.readouterr().out


def test_replay_rebuilds_played_rounds_refuses_tampering_and_unknown_rounds(tmp_path, capsys):
    rounds = play_rounds(tmp_path / "audit")
    files = [str(path) for path in sorted((tmp_path / "audit").glob("*.jsonl"))]

    code, out = replay_json(capsys, *files, "--json")
    assert code == 0, out
    rebuilt = json.loads(out)["rounds"]
    assert [r["round"] for r in rebuilt] == [r.number for r in rounds]
    for round_, replayed in zip(rounds, rebuilt, strict=True):
        expected = {
            f"seat {seat} hand {hand.number}": [str(card) for card in hand.cards]
            for seat, position in round_.positions.items()
            for hand in position.hands
        }
        assert {h["place"]: [c["face"] for c in h["cards"]] for h in replayed["hands"]} == expected
        assert [c["face"] for c in replayed["dealer"]["cards"]] == [str(c) for c in round_.dealer_cards]
        assert [
            (s["fields"]["seat"], s["fields"]["movement"], s["fields"]["amount"])
            for s in replayed["settlements"]
        ] == [(a.seat, a.movement.value, a.amount) for a in round_.actions]
        assert replayed["dealers"] == ["D-1"] and replayed["outcome"] == "complete"

    last = rounds[-1]
    code, text = replay_json(capsys, *files, "--round", str(last.number))
    assert code == 0 and text.startswith(f"Round {last.number} - free-bet-blackjack - dealer D-1")
    hole = str(last.hole_face)
    reveal = re.search(rf"turned up at dealer: {hole}\b", text)
    assert reveal, text
    before = text[: reveal.start()]
    down = re.search(r"card to dealer from the shoe: face down \((\w+)…\)", before)
    assert down, "the hole card is shown face down, by its commitment"
    # Six decks hold the hole card's face more than once: what must not appear is that card's face
    # beside its commitment before the reveal.
    beside = [line for line in before.splitlines() if down.group(1) in line]
    assert beside and not any(re.search(rf"\b{hole}\b", line) for line in beside)

    code, text = replay_json(capsys, *files, "--round", "999")
    present = ", ".join(str(r.number) for r in rounds)
    assert code == 1 and f"round 999 is not in the trail (rounds present: {present})" in text

    path = Path(files[0])
    lines = path.read_bytes().splitlines(keepends=True)
    lines[5] = (
        lines[5].replace(b'"amount":', b'"amount":1', 1) if b'"amount":' in lines[5] else b"x" + lines[5]
    )
    path.write_bytes(b"".join(lines))
    code, text = replay_json(capsys, *files)
    assert code == 1 and f"{path}:6 (seq 6): altered" in text and "Round" not in text
