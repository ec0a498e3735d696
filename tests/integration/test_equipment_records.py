"""Every equipment event is an audit record (decision 0027; 461a.10(s): the log of errors and access):
shuffles, the shoe's batches, doors, reboots, links lost and back, line errors, chip counts and
recounts, the table PC's own start and stop, each with the device's identity and its clause, and
every fault ``croupier sim --faults`` injects can be found in the trail it writes."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from croupier.audit.record import AuditRecord
from croupier.audit.writer import AuditTrail
from croupier.cli import main
from croupier.service.journal import TableJournal
from croupier.state import TableState
from firmware_sim.world import DEALER_HAND
from games import registry
from games.crazy_4_poker.inputs import Resolution
from games.crazy_4_poker.machine import COMPLETE
from simulator.players import simulated_players, table_options
from simulator.tables import simulated_table
from tests.integration.test_crazy_4_poker_table import reset_frozen, table_rig
from tests.links import FAST, run
from vocabulary.operators import Operator, Role
from vocabulary.rules import RuleViolation

GAMES = registry.slugs()

SUPERVISOR = Operator("floor-7", Role.SUPERVISOR)
IDENTITY = ("model", "serial", "firmware", "firmware_hash")


def trail(directory: Path) -> list[AuditRecord]:
    """Every record of the series in ``directory``, in order."""
    lines = [line for path in sorted(directory.glob("*.jsonl")) for line in path.read_bytes().splitlines()]
    return [AuditRecord.parse(line) for line in lines]


def simulated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, rounds: int, profile: str | None = None
) -> tuple[dict[str, Any], list[AuditRecord]]:
    """``croupier sim`` of ``rounds`` at ``game`` with its trail in tmp_path/audit (and the fault
    profile ``profile``, TOML text): its JSON summary and its records."""
    audit = tmp_path / "audit"
    args = ["--log-level", "error", "sim", "--json", "--game", game, "--rounds", str(rounds), "--seed", "3"]
    args += ["--audit", str(audit)]
    if profile is not None:
        (tmp_path / "faults.toml").write_text(profile)
        args += ["--faults", str(tmp_path / "faults.toml")]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    return summary, trail(audit)


def of(records: Iterable[AuditRecord], kind: str, **fields: Any) -> list[AuditRecord]:
    """The records of ``kind`` whose fields include ``fields``."""
    return [r for r in records if r.kind == kind and all(r.fields.get(k) == v for k, v in fields.items())]


def identified(record: AuditRecord) -> bool:
    """The record names the unit: its model, serial number, firmware and the firmware's hash."""
    return all(isinstance(record.fields.get(key), str) and record.fields[key] for key in IDENTITY) and bool(
        record.fields.get("clause")
    )


@pytest.mark.parametrize("game", GAMES)
def test_comar_every_shuffle_is_a_record_with_its_count_result_batch_and_commitment(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """COMAR 36.05.03.27(C) (analog), decision 0017: each shuffle's count against the batch's
    expected count, passed or failed, the batch and the order's sealed commitment, at every game —
    the shoe games shuffle between shoes, Crazy 4 Poker every round. Never the order itself. The
    record cites the equipment standard, never a game's clause: it cited Crazy 4 Poker's void rule,
    657a.9(f), at every game."""
    _, records = simulated(tmp_path, capsys, game, 3)
    shuffles = of(records, "batch_shuffled", device="shuffler")
    assert len(shuffles) >= (3 if game == "crazy-4-poker" else 1)  # one deck a round
    for shuffle in shuffles:
        fields = shuffle.fields
        assert fields["count"] == fields["expected"] > 0 and fields["result"] == "passed"
        assert isinstance(fields["batch"], str) and len(fields["commitment"]) == 64
        assert identified(shuffle) and "order" not in fields
        assert fields["clause"] == "COMAR 36.05.03.27(C) (analog); decision 0017"


def test_672a7d_the_shoes_batches_loaded_collected_counted_and_alternating_across_30_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """672a.7(a), (d)(1)-(2): each batch placed in the shoe (``batch_loaded``), each shoe's cards
    collected and counted against the batch (``batch_collected``) and the played batch shuffled again,
    all in the trail with their counts (on main none of them was, across 30 rounds)."""
    _, records = simulated(tmp_path, capsys, "free-bet-blackjack", 30)
    loaded, collected = of(records, "batch_loaded"), of(records, "batch_collected")
    assert len(loaded) >= 2 and collected
    for record in (*loaded, *collected):
        assert (
            record.fields["counted"] == record.fields["expected"] == 312
            and record.fields["result"] == "passed"
        )
        assert record.fields["device"] == "shoe" and identified(record)
    backs = [record.fields["batch"] for record in loaded]
    assert all(a != b for a, b in itertools.pairwise(backs))  # batches alternate
    assert collected[0].fields["batch"] == backs[0]
    after = records.index(collected[0])
    assert of(records[after:], "batch_shuffled", batch=backs[0])  # the played batch reshuffled
    # The opening's events, made before the service listened, are written in the order they were
    # made across the devices: each batch shuffled before it is loaded (found in review).
    first_shuffle = of(records, "batch_shuffled", batch=backs[0])[0]
    assert records.index(first_shuffle) < records.index(loaded[0])
    start_up = [r for r in of(records, "authenticity_check") if r.fields["trigger"] == "start-up"]
    assert start_up and max(map(records.index, start_up)) < records.index(first_shuffle), "handshakes first"


def test_677a10_the_auto_reshuffling_shoe_records_each_reshuffle_with_its_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Heads Up Hold 'Em's shoe takes each round's cards back and reshuffles: a ``shoe_reshuffled``
    record in each round, the whole batch counted back in."""
    _, records = simulated(tmp_path, capsys, "heads-up-holdem", 3)
    reshuffles = of(records, "shoe_reshuffled", result="passed")
    assert [r.round for r in reshuffles] == [1, 2, 3]
    assert all(r.fields["counted"] == r.fields["expected"] == 52 and identified(r) for r in reshuffles)


def shoe_refusal(game: str) -> RuleViolation:
    """What ``game``'s shoe answers, its table open and a round played, to a card asked for between
    rounds: refused by its rules before any command reaches the device."""

    async def scenario() -> RuleViolation:
        async with simulated_table(game, name="CLAUSES", settings=FAST) as sim:
            table = sim.table
            players = simulated_players(game, random.Random(5), **table_options(game, sim))
            await table.play_round(players)
            with pytest.raises(RuleViolation) as refused:
                await table.shoe.deal(face_up=True)
            assert refused.value.rule is table.shoe_clauses.round_first
            return refused.value

    return run(scenario(), timeout=60)


def test_686a7_an_over_under_shoe_cites_686a7_in_its_records_and_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """686a.7(a), (d)(1), (e): at an Over/Under table the shoe's batch placed in it
    (``batch_loaded``), its cards collected and counted after the cover card (``batch_collected``)
    and a card asked for outside a round are Over/Under's clauses, not Free Bet Blackjack's (on main
    they cited 672a.7(a), 672a.7(d)(1) and 672a.7(e))."""
    _, records = simulated(tmp_path, capsys, "over-under", 40)
    loaded, collected = of(records, "batch_loaded"), of(records, "batch_collected")
    assert loaded and collected
    assert {r.fields["clause"] for r in loaded} == {"686a.7(a)"}
    assert {r.fields["clause"] for r in collected} == {"686a.7(d)(1)"}
    assert shoe_refusal("over-under").rule.clause == "686a.7(e)"


def test_677a10_a_heads_up_holdem_shoe_cites_677a10_in_its_records_and_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """677a.10(a)(1), (a)(2), (g): at a Heads Up Hold 'Em table the deck placed in the automated
    dealing shoe (``batch_loaded``), the shoe's own reshuffle of each round's cards
    (``shoe_reshuffled``) and a card asked for before "no more bets" cite 677a.10 (on main they
    cited 672a.7(a), 672a.7(d)(2) and 672a.7(e), Free Bet Blackjack's)."""
    _, records = simulated(tmp_path, capsys, "heads-up-holdem", 3)
    loaded, reshuffled = of(records, "batch_loaded"), of(records, "shoe_reshuffled")
    assert loaded and reshuffled
    assert {r.fields["clause"] for r in loaded} == {"677a.10(a)(1)"}
    assert {r.fields["clause"] for r in reshuffled} == {"677a.10(g)"}
    assert shoe_refusal("heads-up-holdem").rule.clause == "677a.10(a)(2)"


def test_461a10s_a_door_opened_mid_round_is_an_access_record_and_holds_the_shoe_until_cleared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """461a.10(s): the shoe's loading gate opened during round 2 is in the trail in round 2 (door,
    device, identity), DOOR_OPEN latches, the gate closing is recorded too, and no card leaves the
    shoe from the opening until the supervisor's clear. On main no door event reached the trail."""
    profile = '[[script]]\nround = 2\nfault = "door"\ndevice = "shoe"\nseconds = 0.5\n'
    _, records = simulated(tmp_path, capsys, "free-bet-blackjack", 4, profile)
    [opened], [closed] = of(records, "door_opened", device="shoe"), of(records, "door_closed", device="shoe")
    assert opened.round == 2 and opened.fields["door"] == 1 and identified(opened)
    assert opened.fields["clause"].startswith("461a.10(s)")
    [latched] = of(records, "fault_latched", device="shoe", code="DOOR_OPEN")
    [released] = of(records, "fault_released", device="shoe", code="DOOR_OPEN")
    assert opened.seq < latched.seq and opened.seq < closed.seq < released.seq
    assert identified(latched) and identified(released), "a fault's records name the unit"
    assert released.fields["clause"] == latched.fields["clause"]
    held = [r for r in records if opened.seq < r.seq < released.seq]
    assert not [r for r in held if r.kind == "card" and r.fields.get("source") == "shoe"]


def test_461a10s_a_reboot_is_recorded_with_its_boot_ids_and_the_link_coming_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device's restart is recorded as what it is (``device_reboot``, old and new boot id), after the
    lost link (``fault_latched`` LINK_LOST, the one record of the loss) and with the link's return
    (``link_restored``), each naming the unit; on main only a generic LINK_LOST was."""
    profile = '[[script]]\nround = 2\nfault = "reboot"\ndevice = "shuffler"\n'
    _, records = simulated(tmp_path, capsys, "over-under", 16, profile)
    [lost] = of(records, "fault_latched", device="shuffler", code="LINK_LOST")
    [reboot] = of(records, "device_reboot", device="shuffler")
    back = of(records, "link_restored", device="shuffler")[0]  # (lost again as it came back: a second)
    assert lost.seq < reboot.seq < back.seq and identified(reboot) and identified(back)
    assert reboot.fields["old_boot_id"] != reboot.fields["new_boot_id"]
    assert back.fields["lost"] == lost.fields["detail"]


def test_461a10s_the_table_pcs_start_says_whether_the_run_before_stopped_cleanly(tmp_path: Path) -> None:
    """The service's own start (``service_start``) says how the run before it ended: none before
    (null), a clean stop (``service_stop`` written, the file closed: true), or a crash, a kill or a
    power loss (the file left open, closed at the restart with reason ``resumed``: false)."""

    def service_run(audit: Path, *, crash_to: Path | None = None) -> None:
        """One run of the service on ``audit``; with ``crash_to``, the power goes mid-run: the
        files as they then are on disk are copied there, never closed."""
        with TableState(tmp_path / f"{audit.name}.sqlite") as state, AuditTrail(audit, "T1") as trail:
            journal = TableJournal(trail, state, table="T1", game="free-bet-blackjack")
            journal.service_start()
            if crash_to is not None:
                shutil.copytree(audit, crash_to)
                return
            journal.service_stop("stopped")

    audit, crashed = tmp_path / "audit", tmp_path / "crashed"
    service_run(audit)
    service_run(audit, crash_to=crashed)
    service_run(crashed)
    records = trail(crashed)
    assert [r.fields["previous_clean"] for r in of(records, "service_start")] == [None, True, False]
    assert [r.fields["reason"] for r in of(records, "service_stop")] == ["stopped", "stopped"]
    assert [r.fields["reason"] for r in of(records, "close")] == ["shutdown", "resumed", "shutdown"]
    assert all(r.fields["clause"].startswith("461a.10(s)") for r in of(records, "service_start"))


def trail_of(tmp_path: Path) -> list[AuditRecord]:
    return trail(tmp_path / "audit")


def test_657a9a3_every_chip_count_and_recount_is_a_record_and_only_a_matching_recount_deals(
    tmp_path: Path,
) -> None:
    """657a.9(a)(3): each chip count is a record (counted, accepted, match), the first and every recount
    after a mismatch; no card is dealt, and no ruling is even asked for, until a recount matches. On
    main the recounts were taken but never recorded."""

    async def scenario() -> None:
        with TableState(tmp_path / "state.sqlite") as state, AuditTrail(tmp_path / "audit", "C4-1") as audit:
            async with table_rig() as rig:
                TableJournal(audit, state, table="C4-1", game="crazy-4-poker").keep(rig.table)
                rig.dealer.miscount = 1
                task = asyncio.create_task(rig.table.play_round(rig.players))
                await until(lambda: "CHIP_COUNT_MISMATCH" in {f.code for f in rig.table.faults})
                rig.dealer.miscount = 1  # the recount is wrong again
                await rig.table.clear("CHIP_COUNT_MISMATCH", SUPERVISOR)
                await until(lambda: "CHIP_COUNT_MISMATCH" in {f.code for f in rig.table.faults})
                assert rig.table.held_round is None  # nothing to rule on before a recount matches
                assert rig.world.count(DEALER_HAND) == 52  # no card left the hand
                await rig.table.clear("CHIP_COUNT_MISMATCH", SUPERVISOR)  # the third count matches
                await until(lambda: rig.table.held_round is not None)
                assert rig.world.count(DEALER_HAND) == 52
                rig.table.resolve(SUPERVISOR, Resolution.CONTINUE)
                round_ = await asyncio.wait_for(task, 10)
                assert round_.state == COMPLETE
                await reset_frozen(rig)
        counts = of(trail_of(tmp_path), "chips_counted", device="progressive")
        assert [(r.fields["count"], r.fields["match"]) for r in counts] == [(1, False), (2, False), (3, True)]
        assert all(r.round == 1 and r.fields["clause"] == "657a.9(a)(3)" and identified(r) for r in counts)
        accepted = counts[0].fields["accepted"]
        assert [r.fields["counted"] - accepted for r in counts] == [1, 1, 0]

    run(scenario())


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


# -- every fault croupier sim injects is in the trail ----------------------------------------------------
def found(records: list[AuditRecord], fault: str, device: str, at: int) -> bool:
    """Whether the trail shows ``fault`` struck on ``device`` at round ``at``, from that round on."""
    later = [r for r in records if r.round is None or r.round >= at]
    on = [r for r in later if r.fields.get("device") == device]
    codes = {r.fields.get("code") for r in later if r.kind == "fault_latched"}
    line = [r.fields for r in on if r.kind == "link_errors"]
    match fault:
        case "unplug":
            return bool(
                of(on, "fault_latched", code="LINK_LOST") or [f for f in line if f.get("retransmissions")]
            )
        case "reboot":
            return bool(of(on, "device_reboot"))
        case "corrupt":
            return any(f.get("naks_out") or f.get("noise_bytes") for f in line)
        case "drop":
            return any(f.get("retransmissions") or f.get("duplicate_events") for f in line)
        case "door":
            return bool(of(on, "door_opened") and of(on, "door_closed"))
        case "jam":
            return bool(of(on, "fault_latched", code="JAM"))
        case "miscount" | "foreign-card":  # the dealer's: a count or a foreign card the rules caught
            caught = {"WRONG_COUNT", "FOREIGN_CARD", "CHIP_COUNT_MISMATCH"}
            return bool(
                codes & caught or [r for r in later if r.kind in ("irregularity", "device_irregularity")]
            )
    raise AssertionError(f"no evidence known for {fault}")


#: Each kind of fault, where it strikes at each game: the shoe games deal from the shoe, Crazy 4
#: Poker from the hand (its shuffler and controller then), and only the shoe and the shuffler have doors.
def strikes(game: str) -> list[tuple[str, str]]:
    dealing = "shuffler" if game == "crazy-4-poker" else "shoe"
    other = "progressive" if game == "crazy-4-poker" else "shuffler"
    return [
        ("door", dealing),
        ("reboot", other),
        ("unplug", dealing),
        ("corrupt", other),
        ("drop", dealing),
        ("jam", dealing),
        ("reboot", "meter-sign" if game == "crazy-4-poker" else dealing),
        ("miscount", "dealer"),
        # At Hold 'Em a foreign card waits in the shuffler's input for the next deck, which an
        # auto-reshuffling shoe calls for only after a removal: nothing to find until then.
        *([] if game == "heads-up-holdem" else [("foreign-card", "dealer")]),
    ]


@pytest.mark.parametrize("game", GAMES)
def test_461a10s_every_fault_croupier_sim_injects_is_found_in_the_trail(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """decision 0027: each fault of every kind, struck on a script (two rounds apart, so each is
    seen before the next), is found in the trail from its round on: a door by its access records,
    a reboot by ``device_reboot``, an unplugged device by its lost link, a corrupted or lost frame
    by the line's ``link_errors``, a jam by its fault, the dealer's slips by what the rules caught."""
    plan = strikes(game)
    script = "".join(
        f'[[script]]\nround = {2 * n + 1}\nfault = "{fault}"\ndevice = "{device}"\nseconds = 2.0\n'
        for n, (fault, device) in enumerate(plan)
    )
    summary, records = simulated(tmp_path, capsys, game, 2 * len(plan) + 2, script)
    assert sum(summary["injected"].values()) == len(plan)
    missing = [(f, d, 2 * n + 1) for n, (f, d) in enumerate(plan) if not found(records, f, d, 2 * n + 1)]
    assert not missing, f"faults not found in the trail: {missing}"


@pytest.mark.parametrize("game", GAMES)
def test_461a10s_random_faults_of_every_kind_are_found_in_the_trail(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``croupier sim`` with random faults of every kind: every kind it injected is in the trail, on
    some device, and the trail verifies, passes the procedure auditor and replays."""
    profile = 'rate = 0.4\nseed = 5\nkinds = ["unplug", "reboot", "corrupt", "drop", "door", "jam"]\n'
    summary, records = simulated(tmp_path, capsys, game, 24, profile)
    devices = {r.fields["device"] for r in records if isinstance(r.fields.get("device"), str)}
    for fault in summary["injected"]:
        assert any(found(records, fault, device, 1) for device in devices), f"{fault} not in the trail"
    files = sorted((tmp_path / "audit").glob("*.jsonl"))
    assert main(["audit", "verify", *map(str, files)]) == 0
    assert main(["audit", "procedure", *map(str, files)]) == 0
    assert main(["replay", *map(str, files)]) == 0
