"""``croupier run`` end to end, for every game: the real daemon (every device simulated over real
ptys and the simulated USB bus) started from the game's own configuration (config/tables/), its rounds
driven from the dealer's screen over the local API with a dealer's and a supervisor's token, then
stopped with SIGTERM; its audit trail verified closed and replayed.

Each game's daemon is started once (test_daemon_end_to_end) and exercises, through the API:
- whole rounds keyed as a dealer keys them, the counts included: the stub count of Heads Up Hold 'Em
  (677a.10(c)-(e), due every ``stub_count_interval`` rounds, (d)) and the progressive chip count of
  Crazy 4 Poker (657a.9(a)(3));
- the refusals: a decision out of turn (672a.7(h), 686a.7(f), the deal order), an answer the table
  does not wait for (decision 0011), a wager after no more bets (672a.7(e); 686a.7(e); 677a.10(a);
  657a.9(a)), a malformed body (400, the field named, nothing changed), a dealer closing the table
  (403, vocabulary.operators.SUPERVISOR_CLEARS), a closed table taking no wager (decision 0013);
- for Heads Up Hold 'Em, a wrong stub count: the misdeal finding, the round void (677a.10(f));
- after SIGTERM: exit 0, ``audit verify --expect-closed``, ``replay --json`` of every round, the
  operator actions audited, and (Free Bet Blackjack) no hole card's face before its reveal (672a.7(c)).
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from croupier.audit.sealing import generate
from croupier.config.limits import TABLE_LIMITS
from croupier.screen.prompts import AWAITED, NO_MORE_BETS, TABLE_CLOSED
from croupier.tables.crazy_4_poker import CRAZY_4_IN_TURN
from games import registry
from games.free_bet_blackjack.clauses import PLAY_ORDER
from games.heads_up_holdem.clauses import DECISION_ORDER as HOLDEM_ORDER
from games.over_under.clauses import DECISION_ORDER as OU_ORDER
from simulator.games.registry import simulation
from tests.integration.test_run_command import ROOT, croupier
from tests.screen import Screen, answer_for, dealer_counts, jackpot_held
from tests.tokens import DEALER_TOKEN, SUPERVISOR_TOKEN, write_token_file
from vocabulary.operators import SUPERVISOR_CLEARS

DEALER = {"Authorization": f"Bearer {DEALER_TOKEN}"}
SUPERVISOR = {"Authorization": f"Bearer {SUPERVISOR_TOKEN}"}
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][cdhs]\b")
SEATS = (1, 2, 3)
#: Rounds keyed whole, per game (Hold 'Em's stub is counted every STUB_INTERVAL rounds).
ROUNDS = 3
STUB_INTERVAL = 2
#: The turn rule of each game's decision prompt.
TURN = {
    "free-bet-blackjack": PLAY_ORDER.clause,
    "over-under": OU_ORDER.clause,
    "heads-up-holdem": HOLDEM_ORDER.clause,
    "crazy-4-poker": CRAZY_4_IN_TURN.clause,
}
#: Wagers as keyed, Crazy 4 Poker's with a progressive chip at odd seats (657a.9(a)(3)).
KEYED = {
    **{slug: simulation(slug).keyed for slug in registry.slugs()},
    "crazy-4-poker": lambda seat: {
        "seat": seat,
        "ante": 1000,
        "super_bonus": 1000,
        "progressive": 100 * (seat % 2),
    },
}
#: The wager kind each game's configuration posts limits for here (decision 0022).
LIMITED = {
    "free-bet-blackjack": "blackjack",
    "over-under": "ante",
    "heads-up-holdem": "ante",
    "crazy-4-poker": "ante",
}
#: A malformed wager per game: a field missing, of the wrong type, unknown — and the field named.
MALFORMED = {
    "free-bet-blackjack": [({"seat": 1}, "blackjack"), ({"seat": "1", "blackjack": 500}, "seat")],
    "over-under": [({"seat": 1}, "ante"), ({"seat": 1, "ante": "10"}, "ante")],
    "heads-up-holdem": [
        ({"seat": 1, "ante": 1000}, "odds"),
        ({"seat": 1.5, "ante": 1000, "odds": 1000}, "seat"),
    ],
    "crazy-4-poker": [
        ({"seat": 1, "ante": 1000}, "super_bonus"),
        ({"seat": 1, "ante": [], "super_bonus": 0}, "ante"),
    ],
}


#: Device keys of a serial line, which a simulated device does not take.
SERIAL_ONLY = {"baudrate", "parity", "bytesize", "stopbits"}


def daemon_config(tmp_path: Path, game: str) -> tuple[Path, str]:
    """The game's configuration with its devices simulated, its trail and state under ``tmp_path``,
    and the API on a free port with a dealer's and a supervisor's token."""
    tokens = write_token_file(tmp_path / "tokens.toml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lines, section = [], ""
    text = (ROOT / "config" / "tables" / f"{game}.toml").read_text()
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]").split("]")[0]
        if section == "service":
            continue
        if section.startswith("devices.") and line.split(" ")[0] in SERIAL_ONLY:
            continue
        if section.startswith("devices.") and line.startswith("url ="):
            line = f'url = "sim://{section.removeprefix("devices.")}"'
        if section == "rules" and line.startswith("stub_count_interval"):
            line = f"stub_count_interval = {STUB_INTERVAL}"
        if section == "audit" and line.startswith("sealing_key"):  # the table's own keys, sealed
            sealing = tmp_path / "sealing.key"
            sealing.write_bytes(generate(tomllib.loads(text)["table"]["name"], datetime.now(UTC))[1])
            line = f'sealing_key = "{sealing}"'
        lines.append(line)
    lines += [
        "",
        "[limits]",
        f"{LIMITED[game]} = {{min = 100, max = 100000}}",
        "",
        "[service]",
        f'api_bind = "127.0.0.1:{port}"',
        f'api_tokens = "{tokens}"',
        f'audit_dir = "{tmp_path / "audit"}"',
        f'state_db = "{tmp_path / "state.sqlite3"}"',
    ]
    path = tmp_path / f"{game}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path, f"http://127.0.0.1:{port}"


async def until_up(screen: Screen, process: subprocess.Popen[str], log: Path) -> None:
    async with asyncio.timeout(60):
        while True:
            try:
                await screen.state()
                return
            except aiohttp.ClientConnectionError:
                assert process.poll() is None, log.read_text()
                await asyncio.sleep(0.1)


async def refused(screen: Screen, path: str, body: object, status: int, clause: str | None) -> str:
    """Key an answer that must be refused with ``status`` and ``clause``; returns the error."""
    before = await screen.state()
    got, reply = await screen.post(path, body)
    assert (got, reply["clause"]) == (status, clause), (path, body, reply)
    after = await screen.state()
    assert (after["rounds"], after["prompt"]) == (before["rounds"], before["prompt"]), "nothing changed"
    return str(reply["error"])


async def watched_round(screen: Screen, game: str, shown: list[Any]) -> int:
    """A whole round, every state the API shows while it plays kept in ``shown``."""
    played = asyncio.create_task(screen.play_round(game, SEATS, wagers=KEYED[game]))
    while not played.done():
        shown.append(await screen.state())
        await asyncio.sleep(0.005)
    return await played


async def refusals_rounds(screen: Screen, game: str) -> list[int]:
    """Rounds keyed with every refusal on the way (out of turn, not awaited, malformed, late) until
    one asked a player to decide (a dealer Blackjack asks nobody); their numbers."""
    played: list[int] = []
    while True:
        number, decided = await refusals_round(screen, game)
        played.append(number)
        if decided:
            return played


async def refusals_round(screen: Screen, game: str) -> tuple[int, bool]:
    """One round keyed with every refusal on the way; its number, and whether a player was asked
    to decide (and refused out of turn first)."""
    state = await screen.wait_for("wagers")
    betting = state["prompt"]["id"]
    decision = {"prompt": betting, "seat": 1, "action": "stand"}
    await refused(screen, "/v1/decisions", decision, 409, AWAITED.clause)
    for body, name in MALFORMED[game] + [({**KEYED[game](1), "tip": 5}, "tip")]:
        error = await refused(screen, "/v1/wagers", {"prompt": betting, **body}, 400, None)
        assert repr(name) in error or name in error, (body, error)
    over = {"prompt": betting, **KEYED[game](1), LIMITED[game]: 10**12}
    error = await refused(screen, "/v1/wagers", over, 409, TABLE_LIMITS.clause)
    assert f"limits.{LIMITED[game]}.max" in error, error
    assert (await screen.state())["rounds"] == state["rounds"], "no round begun by a malformed wager"
    for seat in SEATS:
        await screen.ok("/v1/wagers", {"prompt": betting, **KEYED[game](seat)})
    await screen.ok("/v1/rounds/no-more-bets", {"prompt": betting})
    status, reply = await screen.post("/v1/wagers", {"prompt": betting, **KEYED[game](4)})
    assert status == 409 and reply["clause"] in (NO_MORE_BETS.clause, AWAITED.clause), reply
    out_of_turn = False
    async with asyncio.timeout(30):
        while True:
            state = await screen.state()
            prompt = state["prompt"]
            if jackpot_held(state) or (prompt is not None and prompt["kind"] == "wagers"):
                return int(state["rounds"]), out_of_turn
            if prompt is None:
                await asyncio.sleep(0.01)
            elif prompt["kind"] in ("stub_count", "chip_count"):
                count = {"prompt": prompt["id"], "count": screen.count(prompt["kind"])}
                await screen.ok("/v1/" + prompt["kind"].replace("_", "-"), count)
            else:
                route, body = answer_for(prompt)
                if prompt["kind"] != "insurance" and not out_of_turn:
                    other = {**body, "seat": prompt["seat"] % len(SEATS) + 1}
                    error = await refused(screen, route, other, 409, TURN[game])
                    assert f"seat {prompt['seat']} is" in error
                    out_of_turn = True
                await screen.ok(route, body)


async def close_and_open(screen: Screen, game: str) -> None:
    """A dealer may not close the table (403); a supervisor closes it, no wager is taken, then opens
    it and betting goes on (decision 0017)."""
    betting = await screen.betting()
    status, reply = await screen.post("/v1/table/close", {}, headers=DEALER)
    assert status == 403 and reply["clause"] == SUPERVISOR_CLEARS.clause, reply
    assert (await screen.state())["open"]
    assert (await screen.post("/v1/table/close", {}, headers=SUPERVISOR))[0] == 200
    assert not (await screen.state())["open"]
    error = await refused(
        screen, "/v1/wagers", {"prompt": betting, **KEYED[game](1)}, 409, TABLE_CLOSED.clause
    )
    assert "closed" in error
    assert (await screen.post("/v1/table/open", {}, headers=SUPERVISOR))[0] == 200
    assert (await screen.state())["open"]


async def misdeal_round(screen: Screen, game: str) -> int:
    """677a.10(f): a wrong stub count keyed; the dealer counts the deck (52: no misdeal found), the
    round is void, every wager returned, the deck removed, counted whole as it leaves (nothing
    latched: before, the removed deck was counted missing and a WRONG_COUNT no card had caused
    held the table for a supervisor), and the table goes on with a new deck."""
    right = dealer_counts(game, len(SEATS))
    keyed: list[int] = []
    betting = await screen.betting()
    for seat in SEATS:
        await screen.ok("/v1/wagers", {"prompt": betting, **KEYED[game](seat)})
    await screen.ok("/v1/rounds/no-more-bets", {"prompt": betting})
    # A new deck is shuffled, counted and let into the shoe before betting opens: on a loaded
    # machine that alone can take longer than an ordinary prompt's wait.
    async with asyncio.timeout(60):
        while True:
            state = await screen.state()
            assert not state["faults"] and state["held_round"] is None, state
            prompt = state["prompt"]
            if prompt is not None and prompt["kind"] == "wagers" and not state["round_in_progress"]:
                break
            if prompt is not None and prompt["kind"] == "stub_count":
                keyed.append(right("stub_count") + (1 if not keyed else 0))
                await screen.ok("/v1/stub-count", {"prompt": prompt["id"], "count": keyed[-1]})
            elif prompt is not None:
                await screen.ok(*answer_for(prompt))
            else:
                await asyncio.sleep(0.01)
    assert len(keyed) == 2, "the wrong count, then the deck counted for the misdeal finding"
    return int(state["rounds"])


async def drive(base: str, game: str, shown: list[Any]) -> dict[str, Any]:
    progressive = sum(1 for seat in SEATS if KEYED[game](seat).get("progressive"))
    async with aiohttp.ClientSession(base_url=base) as session:
        counts = dealer_counts(game, len(SEATS), progressive=progressive)
        screen = Screen(session, DEALER, counts, supervisor=SUPERVISOR)
        played = [await watched_round(screen, game, shown) for _ in range(ROUNDS)]
        played.extend(await refusals_rounds(screen, game))
        await close_and_open(screen, game)
        played.append(await screen.play_round(game, SEATS, wagers=KEYED[game]))
        misdeal = None
        if game == "heads-up-holdem":
            misdeal = await misdeal_round(screen, game)
            played.append(misdeal)
            played.append(await screen.play_round(game, SEATS, wagers=KEYED[game]))
        assert played == list(range(1, len(played) + 1)), "round numbers go on"
        return {"played": played, "misdeal": misdeal, "resets": len(screen.resets)}


def croupier_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "croupier", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("game", registry.slugs())
def test_daemon_end_to_end(tmp_path: Path, game: str) -> None:
    """Rounds, counts (677a.10(c)-(f); 657a.9(a)(3)), refusals (672a.7(e),(h); 686a.7(e),(f);
    677a.10(a); 657a.9(a); decisions 0011, 0013), SIGTERM, audit verify and replay, hole card secrecy
    (672a.7(c)) — see the module docstring."""
    config, base = daemon_config(tmp_path, game)
    log = tmp_path / "daemon.log"
    shown: list[Any] = []
    with log.open("w") as err:  # a file, not a pipe nobody reads while it plays
        process = croupier("run", "--config", str(config), stderr=err)

    async def scenario() -> dict[str, Any]:
        async with aiohttp.ClientSession(base_url=base) as session:
            await until_up(Screen(session, DEALER), process, log)
        try:
            async with asyncio.timeout(50):  # within the test's own time, so the daemon's log is shown
                return await drive(base, game, shown)
        except TimeoutError:
            tail = "\n".join(log.read_text().splitlines()[-40:])
            last = shown[-1:]
            raise AssertionError(f"the table stopped answering; last state {last}; log:\n{tail}") from None

    try:
        outcome = asyncio.run(scenario())
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    assert process.returncode == 0, log.read_text()

    files = sorted(map(str, (tmp_path / "audit").glob("*.jsonl")))
    state = str(tmp_path / "state.sqlite3")
    verify = croupier_cli("audit", "verify", "--expect-closed", "--state", state, *files)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "sealed, but the seals were not checked" in verify.stdout  # a real table's trail is sealed
    replay = croupier_cli("replay", *files, "--json")
    assert replay.returncode == 0, replay.stderr
    rounds = json.loads(replay.stdout)["rounds"]
    assert [r["round"] for r in rounds] == outcome["played"], "every round played is rebuilt"
    assert all(r["outcome"] == "complete" for r in rounds), [r["outcome"] for r in rounds]
    voided = [r["round"] for r in rounds if any(s["fields"].get("dest") == "voided" for s in r["states"])]
    assert voided == ([outcome["misdeal"]] if outcome["misdeal"] else []), "only the misdealt round void"
    records = [json.loads(line) for path in files for line in Path(path).read_text().splitlines()]
    actions = [r["fields"]["action"] for r in records if r["kind"] == "operator_action"]
    expected = ["table_close", "table_open"]
    # a progressive hit in an unseeded shuffle freezes a level, which the supervisor resets (605a.7(a))
    assert [action for action in actions if action != "progressive_reset"] == expected, actions
    assert actions.count("progressive_reset") == outcome["resets"], actions
    if outcome["misdeal"] is not None:
        voided = [r for r in records if r["round"] == outcome["misdeal"] and r["kind"] == "misdeal"]
        assert voided and voided[0]["fields"]["clause"] == "677a.10(f)", voided
        collected = [r["fields"] for r in records if r["kind"] == "batch_collected"]
        assert [(c["clause"], c["counted"], c["result"]) for c in collected] == [("677a.10(f)", 52, "passed")]
        assert all(
            r["fields"].get("clause") != "677a.10(f)" for r in records if r["round"] != outcome["misdeal"]
        )
    if game == "heads-up-holdem":  # 677a.10(d)-(e): counted every STUB_INTERVAL rounds, 52 - 8 - 5
        counted = {r["round"]: r["fields"]["counted"] for r in records if r["kind"] == "stub"}
        due = [n for n in outcome["played"] if counted.get(n) is not None and n != outcome["misdeal"]]
        assert len(due) >= 2 and all(counted[n] == 39 for n in due), counted
    if game == "crazy-4-poker":  # 657a.9(a)(3): the chips keyed, one a progressive wager
        chips = [r["fields"] for r in records if r["kind"] == "chip_count"]
        assert len(chips) == len(outcome["played"]) and all(c["chips"] == c["accepted"] == 2 for c in chips)
    if game == "free-bet-blackjack":
        hole_cards_stay_sealed(records, shown)


def hole_cards_stay_sealed(records: list[dict[str, Any]], shown: list[dict[str, Any]]) -> None:
    """672a.7(c): the hole card is audited by its commitment only until it is turned up, and no
    state the API showed carries a card but the prompt's face-up ones."""
    sealed = [r for r in records if r["kind"] == "card" and r["fields"].get("card") is None]
    assert len(sealed) >= ROUNDS, "one hole card a round, by its commitment only"
    for hole in sealed:
        commitment = hole["fields"]["commitment"]
        revealed = [
            i
            for i, r in enumerate(records)
            if r["kind"] == "hole_revealed" and r["fields"].get("commitment") == commitment
        ]
        assert len(revealed) == 1 and revealed[0] > records.index(hole)
        before = records[: revealed[0]]
        assert all(
            r["fields"].get("commitment") != commitment or r["fields"].get("card") is None for r in before
        )
    face_up = {
        (r["fields"]["place"], r["fields"]["card"])
        for r in records
        if r["kind"] == "card" and r["fields"].get("card")
    }
    for state in shown:
        prompt = state.pop("prompt")
        assert not CARD_TOKEN.search(json.dumps(state)), state
        if prompt:
            cards = [("dealer", prompt.get("dealer_up"))] if "dealer_up" in prompt else []
            cards += [(prompt["hand"], card) for card in prompt.get("cards", [])]
            assert set(cards) <= face_up, prompt
