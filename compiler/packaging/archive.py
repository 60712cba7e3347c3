"""A reproducible sdist: the same files give the same bytes, on every run.

Members are sorted by name under `<dist>-<version>/`, with a fixed modification time
(`SOURCE_DATE_EPOCH`, else 1980-01-01), owner 0:0 with empty owner names, mode 0644 (0755 for
executables), no folder entries; gzip carries no file name and time 0. The archive's name
hashes the uncompressed tar stream, so a different zlib (another machine) cannot rename an
unchanged tree; on one machine the .tar.gz bytes are identical too.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from collections.abc import Callable, Iterable
from typing import BinaryIO

DEFAULT_MTIME = 315532800  # 1980-01-01T00:00:00Z, what reproducible-build tools use


def source_date_epoch(env: dict[str, str] | None = None) -> int:
    """SOURCE_DATE_EPOCH (reproducible-builds.org) if set to a whole number, else 1980-01-01."""
    value = (os.environ if env is None else env).get("SOURCE_DATE_EPOCH", "")
    return int(value) if value.isdigit() else DEFAULT_MTIME


class _Sink(io.RawIOBase):
    """Where tarfile writes: hashes the tar stream and passes it on to gzip."""

    def __init__(self, gz: gzip.GzipFile):
        self.gz, self.sha, self.offset = gz, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.offset

    def write(self, data) -> int:  # type: ignore[override]
        self.sha.update(data)
        self.gz.write(data)
        self.offset += len(data)
        return len(data)


class _Null(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[override]
        return len(data)


def write(prefix: str, members: Iterable[tuple[str, bool, Callable[[], bytes]]],
          out: BinaryIO | None, mtime: int) -> str:
    """Write the archive of `members` ((path, executable, read bytes), sorted by the caller)
    under folder `prefix` to `out` (None: only hash it). Returns the sha256 of the tar stream."""
    target = out if out is not None else _Null()
    with gzip.GzipFile(filename="", mode="wb", fileobj=target, compresslevel=9, mtime=0) as gz:
        sink = _Sink(gz)
        with tarfile.open(fileobj=sink, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path, executable, read in members:
                data = read()
                info = tarfile.TarInfo(f"{prefix}/{path}")
                info.size, info.mtime = len(data), mtime
                info.mode = 0o755 if executable else 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))
        return sink.sha.hexdigest()
