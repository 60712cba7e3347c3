"""The safe file reader every command shares (specs, the repo config, review's sides): regular
files only, bounded, names escaped for output; every refusal a located diagnostic."""

from __future__ import annotations

import os
import stat

from ..diagnostics import Diagnostic, Position, printable

MAX_BYTES = 1024 * 1024  # a real spec is a few KiB; args are at most 100,000 characters a pool
STDIN = "-"  # the path that means "read the spec from standard input"
STDIN_NAME = "<stdin>"  # how diagnostics name it

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def shown(path: str) -> str:
    """`path` as diagnostics print it: control characters (a newline in a file name would
    forge output lines) escaped."""
    return printable(path)


def read_bytes(path: str) -> tuple[bytes | None, Diagnostic | None]:
    """The bytes of spec file `path` (at most MAX_BYTES + 1), or why it cannot be a spec.

    Only regular files are opened (symbolic links to them are followed): a named pipe would
    block, a device (/dev/zero) never ends. The type is checked before opening and again on the
    open descriptor (opened non-blocking), so a file swapped in between changes nothing.
    """
    name = shown(path)

    def refuse(code: str, message: str) -> tuple[None, Diagnostic]:
        return None, Diagnostic("$", message, file=path, position=Position(1, 1), code=code)

    if name != path:
        return refuse("file-name", "the file name holds a control character (a line break?): "
                      "rename it")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return refuse("file-missing", f"broken symbolic link to {shown(os.readlink(path))!r}")
        return refuse("file-missing", "no such file")
    except OSError as e:
        return refuse("file-unreadable", f"cannot read file: {e.strerror or e}")
    for test, kind in _KINDS:
        if test(info.st_mode):
            return refuse("file-type", f"not a regular file ({kind}): a spec is a YAML file")
    if info.st_size > MAX_BYTES:
        return refuse("file-size", f"file is larger than {MAX_BYTES // 1048576} MiB "
                          f"({info.st_size} bytes)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        return refuse("file-unreadable", f"cannot read file: {e.strerror or e}")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return refuse("file-type", "not a regular file: a spec is a YAML file")
        try:
            return f.read(MAX_BYTES + 1), None
        except OSError as e:
            return refuse("file-unreadable", f"cannot read file: {e.strerror or e}")
