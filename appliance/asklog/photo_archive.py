"""Photos students sent, kept under the data dir so a teacher can see them, for a while.

Each photo is stored once as ``<folder>/<sha256><ext>``: the name is the hash of the
bytes (no user text ever becomes a path) and the extension follows the content.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

DAY_S = 86_400
_SHA = re.compile(r"^[0-9a-f]{64}$")
_MAGIC = ((b"\xff\xd8\xff", ".jpg"), (b"\x89PNG", ".png"), (b"GIF8", ".gif"), (b"BM", ".bmp"))


class PhotoArchive:
    def __init__(self, folder: Path, retention_days: int = 90, clock: Callable[[], float] = time.time):
        self.folder = Path(folder)
        self.retention_days = retention_days
        self.clock = clock

    def save(self, data: bytes) -> str:
        """Store the photo (atomically, once) and return its sha256. With a retention of
        0 days nothing is stored."""
        sha = hashlib.sha256(data).hexdigest()
        if self.retention_days > 0 and self.find(sha) is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.folder / f"{sha}{_suffix(data)}"
            partial = target.with_name(target.name + ".part")
            partial.write_bytes(data)
            os.replace(partial, target)
        return sha

    def find(self, sha: str | None) -> Path | None:
        if not sha or not _SHA.match(sha) or not self.folder.is_dir():
            return None
        matches = sorted(p for p in self.folder.glob(f"{sha}.*") if not p.name.endswith(".part"))
        return matches[0] if matches else None

    def prune(self) -> int:
        """Delete photos older than the retention; returns how many went."""
        if self.retention_days <= 0 or not self.folder.is_dir():
            return 0
        cutoff = self.clock() - self.retention_days * DAY_S
        removed = 0
        for path in self.folder.iterdir():
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
                removed += 1
        if removed:
            log.info("removed %d photos older than %d days", removed, self.retention_days)
        return removed


def _suffix(data: bytes) -> str:
    for magic, suffix in _MAGIC:
        if data.startswith(magic):
            return suffix
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    if data[4:8] == b"ftyp":
        return ".heic"
    return ".bin"
