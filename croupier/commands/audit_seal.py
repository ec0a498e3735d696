"""``croupier audit keys`` and ``croupier audit head``: provisioning a table's sealing keys and
printing its trail's head for an outside witness (docs/audit.md §8, §9; docs/install.md)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from croupier.audit.record import AuditError
from croupier.audit.rotation import check_table, tables_in
from croupier.audit.sealing import PERIOD, generate, write_secret
from croupier.audit.verify import current_head
from croupier.audit.writer import utc_now

KEEP_OFF_THE_PC = """\
Keep the verification key OFF the table PC: copy {out} to the compliance department's medium (a USB
key kept in the compliance safe, or this hex printed and filed), then delete {out} from this machine.
Whoever holds it can check the trail (croupier audit verify --key FILE) and could also seal records,
so keep it as you keep the casino's seals. The table PC keeps only {sealing} (mode 0600), which
moves on every {minutes} minutes and at each new file and cannot seal anything earlier.
"""


def add_parsers(actions: argparse._SubParsersAction) -> None:
    keys = actions.add_parser(
        "keys",
        help="generate a table's verification key and its first sealing key",
        description="Generate the verification key (printed once, written to --out) and the table "
        "PC's first sealing key (--sealing-key, named by [audit] sealing_key). Existing files are "
        "never overwritten.",
    )
    keys.add_argument("--table", required=True, help="the table's name ([table] name)")
    keys.add_argument("--out", required=True, type=Path, metavar="VERIFY_KEY_FILE", help="verification key")
    keys.add_argument("--sealing-key", required=True, type=Path, metavar="PATH", help="the PC's sealing key")
    keys.add_argument("--period", type=int, default=PERIOD, help=f"seconds per epoch (default {PERIOD})")
    keys.set_defaults(handler=_keys)
    head = actions.add_parser(
        "head",
        help="print the trail's current head (file, seq, hash, epoch) to note outside the table PC",
        description="Verify the on-line files and print the newest record's position; exit 1 if they fail.",
    )
    where = head.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", type=Path, metavar="TABLE.toml", help="the table's configuration")
    where.add_argument("directory", nargs="?", type=Path, metavar="DIR", help="an audit directory")
    head.add_argument("--table", help="the table, when DIR holds the trails of several")
    head.add_argument("--json", action="store_true", help="one JSON object")
    head.set_defaults(handler=_head)


def _keys(args: argparse.Namespace) -> int:
    try:
        verify, first = generate(check_table(args.table), utc_now(), args.period)
    except AuditError as exc:
        print(f"croupier audit keys: {exc}")
        return 2
    for path in (args.out, args.sealing_key):
        if path.exists():
            print(f"croupier audit keys: {path} exists; a key is never overwritten")
            return 2
    try:
        fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        print(f"croupier audit keys: cannot write {exc.filename}: {exc.strerror}")
        return 2
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(verify.text())
            out.flush()
            os.fsync(out.fileno())
        write_secret(args.sealing_key, first)
    except OSError as exc:
        # Half a key pair is none: a verification key whose sealing key was never written would
        # be taken to the compliance department for a trail no table can seal, and would block
        # the next attempt ("never overwritten"). It is removed, so the command can be run again.
        args.out.unlink(missing_ok=True)
        print(
            f"croupier audit keys: cannot write {exc.filename or args.out}: {exc.strerror}; nothing was kept"
        )
        return 2
    print(f"table {verify.table}: key {verify.ident}, epoch 1 from {verify.start.isoformat()}")
    print(f"verification key (hex, for paper): {verify.seed.hex()}")
    print(f"verification key file: {args.out}")
    print(f"sealing key for the table PC: {args.sealing_key}\n")
    minutes = args.period // 60 if args.period % 60 == 0 else f"{args.period / 60:.1f}"
    print(KEEP_OFF_THE_PC.format(out=args.out, sealing=args.sealing_key, minutes=minutes), end="")
    return 0


def _head(args: argparse.Namespace) -> int:
    table: str | None
    if args.config is not None:
        from croupier.config import load_table_config  # only this form reads a configuration

        config = load_table_config(args.config)
        directory, table = config.service.audit_dir, config.name
    else:
        directory, tables = args.directory, tables_in(args.directory)
        table = args.table or (tables[0] if len(tables) == 1 else None)
        if table is None:
            found = ", ".join(tables) or "none"
            print(f"croupier audit head: {directory}: name the table with --table (found: {found})")
            return 2
    try:
        head = current_head(directory, table)
    except AuditError as exc:
        print(f"bad: {exc}")
        return 1
    if args.json:
        print(json.dumps({"table": table, **vars(head)}, sort_keys=True))
    else:
        print(f"head: table {table} {head}")
    return 0
