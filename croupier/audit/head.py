"""The head of a trail: its newest record, named by file, seq and hash (docs/audit.md §9).

The writer keeps the last head it made durable in the state database; ``croupier audit head``
prints it for anyone to note outside the table PC. A trail that no longer reaches a head noted
earlier, or holds another record there, was cut or rewritten after that head was noted.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Head:
    file: str  # the file's name (``T1-000004.jsonl``): archiving moves files, never renames them
    seq: int
    hash: str
    epoch: int | None  # the sealing epoch of the record; None when unsealed

    def __str__(self) -> str:
        epoch = "unsealed" if self.epoch is None else f"epoch {self.epoch}"
        return f"{self.file} seq {self.seq} hash {self.hash} {epoch}"
