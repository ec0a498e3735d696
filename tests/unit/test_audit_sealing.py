"""The sealed trail (docs/audit.md §8, §9; docs/decisions/0021): a full rewrite with the chain
recomputed is caught by the verification key, the key on the PC cannot reseal an earlier epoch, the
newest files removed are caught by the state database's last position, and only canonical bytes are
valid."""

from __future__ import annotations

import stat
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

import pytest

from croupier.audit import AuditError, AuditRecord, AuditTrail, Rotation, verify_series
from croupier.audit.record import digest
from croupier.audit.rotation import series_files
from croupier.audit.sealing import SealingKey, VerificationKey, evolve, generate, tag
from croupier.state import TableState
from tests.unit.test_audit_chain import START, Clock

SETTLEMENT = {"seat": 1, "wager": "main", "movement": "collect", "amount": 1000, "clause": "672a.7(m)"}


@dataclass
class Table:
    """A provisioned table: k(0) with the verifier, k(1) written where the PC keeps it."""

    directory: Path
    verify: VerificationKey
    sealing: Path
    clock: Clock

    def trail(self, **kwargs: object) -> AuditTrail:
        return AuditTrail(
            self.directory, "T1", clock=self.clock, sealing=SealingKey.read(self.sealing), **kwargs
        )

    def files(self) -> list[Path]:
        return series_files(self.directory, "T1")


@pytest.fixture
def table(tmp_path: Path) -> Table:
    verify, first = generate("T1", START)
    (tmp_path / "sealing.key").write_bytes(first)
    return Table(tmp_path / "audit", verify, tmp_path / "sealing.key", Clock())


def play(table: Table, rounds: int = 4, **kwargs: object) -> Path:
    """A closed sealed file: each round a wager and a collected settlement, five minutes apart, so
    that the rounds run over two epochs."""
    with table.trail(**kwargs) as trail:
        for number in range(1, rounds + 1):
            trail.append("wager", number, {"seat": 1, "wager": "main", "amount": 1000})
            trail.append("settlement", number, SETTLEMENT)
            table.clock.now += timedelta(minutes=5)
    return table.files()[-1]


def records_of(path: Path) -> list[AuditRecord]:
    return [AuditRecord.parse(line) for line in path.read_bytes().splitlines()]


def rechained(records: list[AuditRecord], retag: bytes | None = None) -> bytes:
    """What someone who can write the audit directory does: renumber, recompute every hash and
    ``prev`` and the closing count, keeping each record's epoch; without the epoch's key the tag is
    the old one, or one made with ``retag`` (a key they hold)."""
    prev, out = records[0].prev, []
    for seq, record in enumerate(records, records[0].seq):
        fields = {**record.fields, "records": len(records)} if record.kind == "close" else record.fields
        body = {**record.body(), "seq": seq, "fields": fields, "prev": prev}
        moved = replace(record, seq=seq, fields=fields, prev=prev, hash=digest(body))
        if retag is not None:
            moved = replace(moved, tag=tag(retag, moved.sealed_bytes()))
        prev = moved.hash
        out.append(moved.line())
    return b"".join(out)


def test_every_record_is_sealed_and_verifies_with_the_verification_key(table: Table) -> None:
    path = play(table)
    records = records_of(path)
    assert records[0].fields["sealed"] is True and records[0].fields["key"] == table.verify.ident
    assert all(record.tag is not None and record.epoch >= 1 for record in records)
    assert {record.epoch for record in records} == {2, 3}  # the file's own epoch, then 15 minutes on
    report = verify_series([path], key=table.verify)
    assert report.ok and report.sealed and report.seals_checked


def test_a_collect_turned_into_a_pay_with_the_chain_recomputed_is_caught_by_the_key(table: Table) -> None:
    """The reproduced attack: the chain alone says ok; the seal of the changed record does not verify."""
    path = play(table)
    records = records_of(path)
    index = next(i for i, r in enumerate(records) if r.kind == "settlement" and r.round == 2)
    records[index] = replace(records[index], fields={**SETTLEMENT, "movement": "pay"})
    path.write_bytes(rechained(records))
    assert verify_series([path]).ok  # without the key a recomputed chain is whole
    found = verify_series([path], key=table.verify).problem
    assert found is not None and (found.line, found.seq) == (index + 1, index + 1)
    assert found.reason.startswith("altered: the seal does not verify")


def test_round_3s_settlements_deleted_and_the_chain_recomputed_are_caught_by_the_key(table: Table) -> None:
    path = play(table)
    records = [r for r in records_of(path) if not (r.kind == "settlement" and r.round == 3)]
    path.write_bytes(rechained(records))
    assert verify_series([path]).ok
    found = verify_series([path], key=table.verify).problem
    first_moved = next(i for i, r in enumerate(records) if r.round == 4)
    assert found is not None and found.line == first_moved + 1 and "seal does not verify" in found.reason


def test_the_key_taken_from_the_pc_cannot_reseal_an_earlier_epoch(table: Table) -> None:
    """Forward security: an attacker holding the PC's key (epoch e) rewrites a record sealed in an
    earlier epoch and reseals everything with it; the verifier's key of that epoch differs."""
    path = play(table)
    stolen = SealingKey.read(table.sealing)
    records = records_of(path)
    assert stolen.epoch == records[-1].epoch == 3
    index = next(i for i, r in enumerate(records) if r.kind == "settlement" and r.epoch < stolen.epoch)
    records[index] = replace(records[index], fields={**SETTLEMENT, "movement": "pay"})
    path.write_bytes(rechained(records, retag=stolen.key))
    found = verify_series([path], key=table.verify).problem
    assert found is not None and "seal does not verify under epoch 2" in found.reason


def test_the_sealing_key_moves_on_and_keeps_no_earlier_key(table: Table) -> None:
    """The PC holds only the current epoch's key, mode 0600; k(0) is never given to it."""
    first = SealingKey.read(table.sealing)
    assert first.epoch == 1 and first.key == evolve(table.verify.seed) and first.key != table.verify.seed
    play(table)
    now = SealingKey.read(table.sealing)
    assert now.epoch == 3 and now.key == evolve(evolve(first.key))
    text = table.sealing.read_bytes()
    assert first.key.hex().encode() not in text and evolve(first.key).hex().encode() not in text
    assert stat.S_IMODE(table.sealing.stat().st_mode) == 0o600
    assert not table.sealing.with_name("sealing.key.new").exists()


def test_an_idle_trail_erases_an_ended_epochs_key(table: Table) -> None:
    with table.trail() as trail:
        trail.append("wager", 1, {"seat": 1})
        assert SealingKey.read(table.sealing).epoch == 2
        table.clock.now += timedelta(minutes=31)
        trail.evolve()  # what the trail's own thread does every EVOLVE_CHECK seconds
        assert SealingKey.read(table.sealing).epoch == 4


def test_each_new_file_begins_a_new_epoch(table: Table) -> None:
    with table.trail(rotation=Rotation(max_bytes=4096, period=None)) as trail:
        while len(table.files()) < 3:
            trail.append("card", 1, {"place": "seat 1", "source": "shoe", "card": "As", "pad": "x" * 200})
    ends = [(records_of(path)[0].epoch, records_of(path)[-1].epoch) for path in table.files()]
    assert ends[0][1] < ends[1][0] and ends[1][1] < ends[2][0]
    assert verify_series(table.files(), key=table.verify).ok


def test_an_epoch_going_back_is_named_with_file_and_seq(table: Table) -> None:
    path = play(table)
    records = records_of(path)
    last = len(records) - 2  # the last settlement, in epoch 3, claims epoch 2
    records[last] = replace(records[last], epoch=2)
    path.write_bytes(rechained(records, retag=table.verify.keys().key(2)))
    found = verify_series([path]).problem
    assert found is not None and (found.path, found.seq) == (path, last + 1)
    assert found.reason == "epoch 2 goes back from epoch 3"


def test_seals_stripped_and_the_file_marked_unsealed_are_caught(table: Table) -> None:
    path = play(table)
    records = [replace(r, epoch=None, tag=None) for r in records_of(path)]
    records[0] = replace(records[0], fields={**records[0].fields, "sealed": False})
    path.write_bytes(rechained(records))
    found = verify_series([path], key=table.verify).problem
    assert found is not None and found.line == 1 and found.reason.startswith("not sealed")


def test_a_sealed_trail_is_not_continued_without_its_key(table: Table) -> None:
    play(table)
    with pytest.raises(AuditError, match=r"it is sealed \(epoch \d+\) and no sealing key is configured"):
        AuditTrail(table.directory, "T1", clock=table.clock)


def test_newest_file_removed_is_caught_by_the_state_databases_last_position(
    table: Table, tmp_path: Path
) -> None:
    with TableState(tmp_path / "state.db") as state:
        with table.trail(rotation=Rotation(max_bytes=4096, period=None), heads=state) as trail:
            while len(table.files()) < 3:
                trail.append("card", 1, {"place": "seat 1", "source": "shoe", "card": "As", "pad": "x" * 200})
        files = table.files()
        saved = state.load_head("T1")
        assert saved is not None and saved.file == files[-1].name and saved == trail.head
        assert verify_series(files, head=saved).ok
        files[-1].unlink()
        found = verify_series(files[:-1], head=saved, key=table.verify).problem
        assert found is not None and found.path == files[-2] and found.reason.startswith("removed")
        assert "ends before the state database's last sealed position" in found.reason
        with pytest.raises(AuditError, match="ends before the state database's last sealed position"):
            table.trail(heads=state)


def test_the_head_is_saved_only_once_its_record_is_on_disk(table: Table, tmp_path: Path) -> None:
    """Durable first, then the head: a head ahead of the trail would make an honest trail look cut."""

    class Heads:
        def __init__(self) -> None:
            self.saved: list[tuple[int, bytes]] = []

        def load_head(self, name: str) -> None:
            return None

        def save_head(self, name: str, head: object) -> None:
            self.saved.append((head.seq, table.files()[-1].read_bytes().splitlines()[-1]))

    heads = Heads()
    with table.trail(heads=heads) as trail:
        written = trail.append("wager", 1, {"seat": 1})
    _seq, last_line = next(entry for entry in heads.saved if entry[0] == written.seq)
    assert AuditRecord.parse(last_line) == written
