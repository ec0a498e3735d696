"""``croupier audit``: verify an audit trail (or an export against its manifest), show its records
readably, or judge its rounds against their games' dealing procedure (docs/audit.md §6, §11);
provision a table's sealing keys and print the trail's head (docs/audit.md §8, §9); export a period
(croupier.commands.audit_export)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from croupier.audit.export import verify_export
from croupier.audit.lookup import find_round
from croupier.audit.record import AuditError, read_records
from croupier.audit.rotation import table_of
from croupier.audit.sealing import VerificationKey
from croupier.audit.verify import verify_series
from croupier.commands import audit_export, audit_seal
from croupier.state import StateError, TableState


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="verify or show an audit trail", description="Audit trail tools.")
    actions = p.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    verify = actions.add_parser(
        "verify",
        help="check the hash chain of a file or a rotation series",
        description="Exit 0 if the chain is intact; exit 1 naming the first bad record. With "
        "--manifest, exit 3 if every record checks but the export is not proven complete at the end "
        "of its period (no record after the period in the manifest).",
    )
    verify.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="files in series order (oldest first)"
    )
    verify.add_argument(
        "--expect-closed",
        action="store_true",
        help="the newest file must end with its closing record too (detects its last lines cut)",
    )
    verify.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        help="the table's verification key: every record must be sealed and its seal verify",
    )
    verify.add_argument(
        "--state",
        type=Path,
        metavar="DB",
        help="the table's state database: the files must reach the last position it saved",
    )
    verify.add_argument(
        "--manifest",
        type=Path,
        metavar="FILE",
        help="FILE is an export (croupier audit export): check it against this manifest",
    )
    verify.set_defaults(handler=_verify)
    audit_seal.add_parsers(actions)
    audit_export.add_parser(actions)
    show = actions.add_parser(
        "show",
        help="print records readably",
        description="Print the records of audit files (plain or compressed), one a line.",
    )
    show.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="files in series order (oldest first)"
    )
    show.add_argument("--round", type=int, default=None, help="only the records of this round")
    show.set_defaults(handler=_show)
    procedure = actions.add_parser(
        "procedure",
        help="judge every round against its game's dealing procedure",
        description="Judge each round of the trail against the clauses of its game's section: exit 0 "
        "when every round is clean, 1 when any is not, 2 when the files cannot be read.",
    )
    procedure.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="files in series order (oldest first)"
    )
    procedure.add_argument("--json", action="store_true", help="the verdict as JSON (docs/audit.md)")
    procedure.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="TABLE.toml",
        help="the table configuration whose [rules] were in force, for a trail that does not record them",
    )
    procedure.set_defaults(handler=_procedure)


def _verify(args: argparse.Namespace) -> int:
    try:
        key = VerificationKey.read(args.key) if args.key is not None else None
        if args.manifest is not None:
            return _verify_export(args, key)
        saved = TableState.read_head(args.state, table_of(args.files[-1])) if args.state else None
    except (AuditError, StateError) as exc:
        print(f"croupier audit: {exc}")
        return 2
    report = verify_series(args.files, expect_closed=args.expect_closed, key=key, head=saved)
    if report.problem is not None:
        print(f"bad: {report.problem}")
        return 1
    notes = []
    if not report.anchored:
        notes.append("series starts after earlier files (not from genesis)")
    if report.seals_checked:
        notes.append(f"every record sealed, every seal verified (key {key.ident if key else ''})")
    elif report.sealed:
        notes.append("sealed, but the seals were not checked (no --key): a recomputed chain passes")
    else:
        notes.append("not sealed (files of a simulated table, or written before sealing)")
    if saved is not None:
        notes.append(f"reaches the state database's last position (seq {saved.seq})")
    elif not report.closed:
        notes.append("newest file still open: records cut from its end cannot be detected")
    suffix = "".join(f"; {note}" for note in notes)
    print(f"ok: {report.records} records, chain intact, last hash {report.last_hash}{suffix}")
    return 0


def _verify_export(args: argparse.Namespace, key: VerificationKey | None) -> int:
    if len(args.files) != 1 or args.state is not None:
        print("croupier audit: with --manifest give the one exported file (and no --state)")
        return 2
    report = verify_export(args.files[0], args.manifest, key)
    if report.problem is not None:
        print(f"bad: {report.problem}")
        return 1
    verdict = "ok" if report.unproven is None else "unproven"
    print(
        f"{verdict}: {report.records} exported records, each a record of the series"
        + "".join(f"; {n}" for n in report.notes)
    )
    return 0 if report.unproven is None else 3


def _procedure(args: argparse.Namespace) -> int:
    from croupier.audit.procedure import judge, lines

    try:
        verdict = judge(read_records(args.files), args.config)
    except AuditError as exc:
        print(f"croupier audit procedure: {exc}")
        return 2
    if args.json:
        print(json.dumps(verdict.as_json(), indent=2))
    else:
        print("\n".join(lines(verdict)))
    return 0 if not verdict.violations else 1


def _show(args: argparse.Namespace) -> int:
    """Every record of the files, or round N's; with ``--round`` the files' indexes find the round
    (croupier.audit.lookup), and the files are read whole when they cannot."""
    found = find_round(args.files, args.round) if args.round is not None else None
    records = found.records if found is not None else read_records(args.files)
    try:
        for record in records:
            if args.round is None or record.round == args.round:
                where = "" if record.round is None else f" round {record.round}"
                fields = " ".join(f"{key}={json.dumps(value)}" for key, value in record.fields.items())
                print(f"#{record.seq} {record.at}{where} {record.kind}: {fields}")
    except AuditError as exc:
        print(f"croupier audit: {exc}")
        return 1
    return 0
