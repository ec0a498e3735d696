"""``croupier audit export``: a period of the trail, with its manifest, for the Gaming Control
Board (docs/audit.md §11; 465a.6). ``croupier audit verify EXPORT --manifest MANIFEST`` checks it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from croupier.audit.export import FORMATS, Period, export, parse_moment
from croupier.audit.record import AuditError, check_kind


def add_parser(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "export",
        help="write a period's records, with a manifest to verify them by",
        description="Verify the series, then write the records whose time is in the period (UTC) to "
        "--out, with a manifest (JSON) that `croupier audit verify EXPORT --manifest MANIFEST` checks.",
    )
    p.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="the series, oldest first (archive first)"
    )
    p.add_argument(
        "--from", dest="start", required=True, metavar="DATE", help="first day (YYYY-MM-DD, UTC) or time"
    )
    p.add_argument(
        "--to", dest="end", required=True, metavar="DATE", help="last day, included (or a time, excluded)"
    )
    p.add_argument(
        "--kind", action="append", default=None, metavar="K", help="only records of this kind (repeat)"
    )
    p.add_argument(
        "--format", choices=FORMATS, default="jsonl", help="jsonl: the records' own lines (default); csv"
    )
    p.add_argument(
        "--out", type=Path, default=Path("."), metavar="DIR", help="where to write (default: here)"
    )
    p.set_defaults(handler=_export)


def _export(args: argparse.Namespace) -> int:
    try:
        period = Period(parse_moment(args.start, end=False), parse_moment(args.end, end=True))
        kinds = [check_kind(kind) for kind in args.kind] if args.kind else None
        written = export(args.files, period, kinds, args.format, args.out)
    except AuditError as exc:
        print(f"croupier audit export: {exc}")
        return 1
    except OSError as exc:
        print(f"croupier audit export: cannot write {exc.filename}: {exc.strerror}")
        return 2
    print(f"exported {written.records} records to {written.data}")
    print(f"manifest: {written.manifest}")
    print(
        f"check with: croupier audit verify {written.data} --manifest {written.manifest} [--key VERIFY_KEY]"
    )
    for warning in written.unproven:
        print(f"croupier audit export: WARNING: {warning}", file=sys.stderr)
    return 0
