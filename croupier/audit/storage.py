"""How a closed trail file is kept: gzip, in members of whole lines, read back byte for byte.

A closed file (``T1-000004.jsonl``) is compressed to ``T1-000004.jsonl.gz`` (docs/audit.md §7,
decision 0025). What is hashed and sealed is the decompressed lines, unchanged: ``gzip.decompress``,
``zcat`` or any gzip reader gives back exactly the bytes the writer fsync'd, so every check of the
chain and the seals reads a compressed file as it read the plain one.

The file is a series of gzip members, each holding whole lines and about ``MEMBER`` bytes of them
(the way BGZF keeps sequence data seekable): a gzip reader reads the members one after the other as
one stream, and the index (croupier.audit.index) can read one round by decompressing only the
member that holds it. Where each member starts is kept beside the file, in its index; it is a
convenience, checked on use, never evidence.

Compression is atomic: the members go to a temporary file, which is fsync'd, read back and compared
with the plain file, then renamed to its name (directory fsync'd), and only then is the plain file
removed (directory fsync'd). A crash at any point leaves one complete copy at least; when both
remain, the series reads the plain one and the next compression finishes the job.
"""

from __future__ import annotations

import bisect
import gzip
import os
import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from croupier.audit.record import AuditError

#: The plain bytes per gzip member: small enough that one round is one or two members to
#: decompress, large enough that the compression ratio is near that of one stream (the deflate
#: window is 32 KiB).
MEMBER = 64 * 1024
COMPRESSED = ".gz"
INDEX = ".idx"
_LEVEL = 6
_TAIL = 4096  # bytes read from a file's end to find its close record, far longer than one
_MAGIC = b"\x1f\x8b\x08"  # a gzip member's first bytes (RFC 1952: ID1, ID2, deflate)
_READ = 64 * 1024  # bytes read at a time by ``lines_of``


def is_compressed(path: Path) -> bool:
    return Path(path).name.endswith(COMPRESSED)


def plain_name(path: Path | str) -> str:
    """The file's name as the writer made it (``T1-000004.jsonl``), compressed or not: the name the
    state database's head and a manifest use, so compressing a file changes no reference to it."""
    name = Path(path).name
    return name[: -len(COMPRESSED)] if name.endswith(COMPRESSED) else name


def index_path(path: Path) -> Path:
    """The index kept beside a series file (``T1-000004.idx`` for ``T1-000004.jsonl`` and its
    compressed copy): archiving, exporting and deleting move it with the file."""
    return Path(path).with_name(plain_name(path).removesuffix(".jsonl") + INDEX)


def read_bytes(path: Path) -> bytes:
    """The file's lines as written, decompressed if it is compressed. OSError if it cannot be read;
    AuditError naming the file if the compressed data is damaged (a changed byte fails gzip's CRC
    or the deflate stream)."""
    data = Path(path).read_bytes()
    if not is_compressed(path):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise AuditError(f"{path}: the compressed file is damaged ({exc})") from None


def lines_of(path: Path) -> Generator[bytes, None, None]:
    """The file's lines as written, each with its newline (the last without, if the file was cut
    mid-line), one at a time: what ``read_bytes(path).split(b"\n")`` holds, without holding the
    file (an export of a month, decision 0025). A compressed file is decompressed a member at a
    time and a member's lines given only once its CRC has checked, so a damaged member raises the
    same AuditError as ``read_bytes`` before any of its bytes are used. OSError if it cannot be read."""
    with Path(path).open("rb") as file:
        if not is_compressed(path):
            yield from file
            return
        cut = b""  # a line begun in one member and ended in the next (a gzip not written here)
        for member in _members_of(file, path):
            lines = (cut + member).split(b"\n")
            cut = lines.pop()
            for line in lines:
                yield line + b"\n"
        if cut:
            yield cut


def check_members(path: Path) -> None:
    """AuditError naming the file if any member of the compressed file is damaged, as
    ``read_bytes`` would, without holding more than one member."""
    with Path(path).open("rb") as file:
        for _ in _members_of(file, path):
            pass


def _members_of(file: BinaryIO, path: Path) -> Iterator[bytes]:
    """Each gzip member's decompressed bytes, once its CRC and length have checked; a damaged one
    is named with the reason ``gzip.decompress`` gives for it, as ``read_bytes`` names it."""
    inflate, out, fed = zlib.decompressobj(wbits=31), bytearray(), bytearray()
    try:
        while packed := file.read(_READ):
            while packed:
                fed += packed
                out += inflate.decompress(packed)
                if not inflate.eof:
                    break
                yield bytes(out)
                packed, inflate = inflate.unused_data, zlib.decompressobj(wbits=31)
                out.clear()
                fed.clear()
        if fed:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    except (EOFError, zlib.error) as exc:
        try:
            gzip.decompress(bytes(fed))
            reason: Exception = exc
        except (OSError, EOFError, zlib.error) as said:
            reason = said
        raise AuditError(f"{path}: the compressed file is damaged ({reason})") from None


def members(data: bytes) -> list[bytes]:
    """``data`` (whole lines) cut into members of about ``MEMBER`` bytes, each ending at a line's
    end; a line longer than a member is a member of its own, and so is the last line (the close
    record), so that it can be read from the file's end alone (``last_line``)."""
    last = data.rfind(b"\n", 0, len(data) - 1) + 1  # where the last line starts
    chunks, start = [], 0
    while start < last:
        end = data.rfind(b"\n", start, min(start + MEMBER, last)) + 1
        if end <= start:  # no line ends within MEMBER bytes: take the whole long line
            end = data.find(b"\n", start) + 1
        chunks.append(data[start:end])
        start = end
    return [*chunks, data[last:]] if last < len(data) else chunks


@dataclass(frozen=True)
class MemberMap:
    """Where each member of a compressed file starts: in the lines as written and in the file."""

    plain: list[int]
    packed: list[int]


def compress(path: Path) -> tuple[Path, MemberMap]:
    """Compress the closed plain file ``path`` to ``path.gz`` and remove ``path``; return the new
    path and its member map. Atomic as the module says; a copy that does not read back identical is
    removed and AuditError raised, the plain file kept."""
    path = Path(path)
    target = path.with_name(path.name + COMPRESSED)
    temporary = path.with_name(f".{path.name}{COMPRESSED}.tmp")
    data = path.read_bytes()
    offsets, plain, packed = MemberMap([], []), 0, 0
    with temporary.open("wb") as out:
        for chunk in members(data):
            offsets.plain.append(plain)
            offsets.packed.append(packed)
            member = gzip.compress(chunk, compresslevel=_LEVEL, mtime=0)
            out.write(member)
            plain, packed = plain + len(chunk), packed + len(member)
        out.flush()
        os.fsync(out.fileno())
    if gzip.decompress(temporary.read_bytes()) != data:
        temporary.unlink()
        raise AuditError(f"{path}: not compressed: the compressed copy does not read back identical")
    os.rename(temporary, target)
    sync_directory(path.parent)
    path.unlink()
    sync_directory(path.parent)
    return target, offsets


def first_and_last_lines(path: Path) -> tuple[bytes, bytes]:
    """The file's first line (its header, far shorter than ``_TAIL``) and last line (its close
    record, once closed) from its first and last ``_TAIL`` bytes, without reading the rest. In a
    compressed file the first line is at the first member's start and the last line is a member of
    its own, found by scanning back for a gzip header whose member runs exactly to the end of the
    file. The last line is b"" if none is found (a plain file cut mid-line)."""
    with Path(path).open("rb") as file:
        head = file.read(_TAIL)
        size = file.seek(0, os.SEEK_END)
        file.seek(max(0, size - _TAIL))
        tail = file.read()
    if not is_compressed(path):
        last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1] if tail.endswith(b"\n") else b""
        return head.split(b"\n", 1)[0], last
    try:
        head = zlib.decompressobj(wbits=31).decompress(head, _TAIL)
    except zlib.error as exc:
        raise AuditError(f"{path}: the compressed file is damaged ({exc})") from None
    return head.split(b"\n", 1)[0], _last_member_line(tail)


def last_line(path: Path) -> bytes:
    """The file's last line: see ``first_and_last_lines``."""
    return first_and_last_lines(path)[1]


def _last_member_line(tail: bytes) -> bytes:
    start = tail.rfind(_MAGIC)
    while start >= 0:
        try:
            inflate = zlib.decompressobj(wbits=31)
            line = inflate.decompress(tail[start:])
            if inflate.eof and not inflate.unused_data and line.count(b"\n") == 1 and line.endswith(b"\n"):
                return line[:-1]
        except zlib.error:
            pass
        start = tail.rfind(_MAGIC, 0, start)
    return b""


def read_range(path: Path, offset: int, length: int, member_map: MemberMap | None) -> bytes:
    """``length`` bytes from ``offset`` of the file's lines as written. A plain file is read there
    directly; a compressed one decompresses only the members covering the range, found in
    ``member_map`` (a wrong map gives wrong bytes, which the caller's checks refuse)."""
    if not is_compressed(path):
        with Path(path).open("rb") as file:
            file.seek(offset)
            return file.read(length)
    if member_map is None or not member_map.plain:
        return read_bytes(path)[offset : offset + length]
    plain, packed_at = member_map.plain, member_map.packed
    first = max(0, bisect.bisect_right(plain, offset) - 1)
    out, start = bytearray(), plain[first]
    with Path(path).open("rb") as file:
        file.seek(packed_at[first])
        for index in range(first, len(plain)):
            if start + len(out) >= offset + length:
                break
            end = packed_at[index + 1] if index + 1 < len(plain) else None
            packed = file.read(end - packed_at[index]) if end is not None else file.read()
            try:
                out += gzip.decompress(packed)
            except (OSError, EOFError, zlib.error) as exc:
                raise AuditError(f"{path}: the compressed file is damaged ({exc})") from None
    return bytes(out[offset - start : offset - start + length])


def sync_directory(directory: Path) -> None:
    """A rename or removal is durable only once the directory's entries are on disk."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
