"""A spec's text or file → a Document: plain data and where each JSON path was written.

Files are read safely (regular files only, bounded, names escaped for output), text must be
UTF-8 and one YAML document; its cost is bounded before composing (yaml_limits.py), and the
composed nodes become plain data in compose.py (no tag runs code, duplicate keys are errors,
numbers YAML 1.1 misreads are recorded: yaml_numbers.py). Every problem is a located
diagnostic, never an exception.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import yaml

from .compose import Builder
from .config import inline
from .config.inline import Ignores
from .diagnostics import Collector, Diagnostic, Position, printable
from .yaml_limits import Budget, Loader, affordable
from .yaml_numbers import Reading

MAX_BYTES = 1024 * 1024  # a real spec is a few KiB; args are at most 100,000 characters a pool


@dataclass
class Document:
    """A loaded spec: plain data plus where each JSON path was written."""

    file: str
    data: Any
    positions: dict[str, Position] = field(default_factory=dict)
    # Original text of non-string scalars (`1e-3`, `yes`), so string lists can keep what was typed.
    raw: dict[str, str] = field(default_factory=dict)
    # Numbers whose value is not what most readers see in the text (YAML 1.1 octal `0600` and
    # base-60 `1:30`) or that JSON cannot carry (`.inf`, `.nan`, beyond int64): path → why.
    # Harmless where the text is kept (args, env); anywhere else the caller refuses them.
    suspect: dict[str, Reading] = field(default_factory=dict)
    # `# trainspec: ignore[code]` comments by line (config/inline.py; config/apply.py).
    ignores: Ignores = field(default_factory=dict)

    def collector(self) -> Collector:
        return Collector(self.file, self.positions)


def parse(text: bytes | str, file: str = "<input>", *,
          exponents: bool = False) -> tuple[Document, list[Diagnostic]]:
    """Load one spec document. Returns the document and its diagnostics (errors mean unusable).

    `exponents`: read unquoted 1e-05 as the number JSON and YAML 1.2 mean, not as YAML 1.1's
    string (for configs written by other tools; a spec writes 1.0e-05)."""
    doc = Document(shown(file), None)
    c = doc.collector()
    if len(text) > MAX_BYTES:
        nl = b"\n" if isinstance(text, bytes) else "\n"
        line = text.count(nl, 0, MAX_BYTES) + 1  # type: ignore[arg-type]
        col = MAX_BYTES - (text.rfind(nl, 0, MAX_BYTES) + 1) + 1  # type: ignore[arg-type]
        c.items.append(Diagnostic("$", f"file is larger than {MAX_BYTES // 1048576} MiB", file=file,
                                  position=Position(line, col), code="file-size"))
        return doc, c.items
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = text[: e.start].count(b"\n") + 1
            col = e.start - (text.rfind(b"\n", 0, e.start) + 1) + 1
            c.items.append(Diagnostic("$", f"not UTF-8: invalid byte 0x{text[e.start]:02x}",
                                      file=file, position=Position(line, col),
                                      code="file-encoding"))
            return doc, c.items
    if not text.strip():
        c.items.append(Diagnostic("$", "empty file: expected a trainspec document", file=file,
                                  position=Position(1, 1), code="empty-document"))
        return doc, c.items
    doc.ignores = inline.scan(text)
    if not affordable(text, c):
        return doc, c.items
    loader = Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        pos = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        problem = (e.problem or str(e)).strip()
        code = "yaml-syntax"
        if "single document" in (e.context or ""):
            problem, code = "more than one YAML document: put one spec per file", \
                "yaml-multiple-documents"
        c.items.append(Diagnostic("$", f"invalid YAML: {problem}", file=file, position=pos,
                                  code=code))
        return doc, c.items
    except yaml.reader.ReaderError as e:
        # Control characters (NUL…) are not allowed in YAML text; PyYAML reports a byte offset.
        before = text[: e.position] if isinstance(text, str) else ""
        pos = Position(before.count("\n") + 1, e.position - (before.rfind("\n") + 1) + 1)
        ch = e.character if isinstance(e.character, int) else ord(e.character)
        c.items.append(Diagnostic("$", f"invalid YAML: control character U+{ch:04X} is not "
                                  "allowed", file=file, position=pos, code="yaml-syntax"))
        return doc, c.items
    except (yaml.YAMLError, RecursionError) as e:
        c.items.append(Diagnostic("$", f"invalid YAML: {type(e).__name__}", file=file,
                                  position=Position(1, 1), code="yaml-syntax"))
        return doc, c.items
    finally:
        loader.dispose()
    if node is None:
        c.items.append(Diagnostic("$", "empty document: expected a trainspec document",
                                  file=file, position=Position(1, 1), code="empty-document"))
        return doc, c.items
    builder = Builder(c, doc, exponents)
    try:
        data = builder.build(node, "$", 0)
    except Budget:
        return doc, c.items
    if c.items:  # a refused tag or key at the top: already reported
        return doc, c.items
    if not isinstance(data, dict):
        kind = "list" if isinstance(data, list) else type(data).__name__
        c.error("$", f"the top level must be a mapping (apiVersion, kind, metadata, spec), not a {kind}",
                code="top-level-mapping")
        return doc, c.items
    doc.data = data
    return doc, c.items


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
        return None, Diagnostic("$", message, file=name, position=Position(1, 1), code=code)

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


def read(path: str) -> tuple[Document, list[Diagnostic]]:
    """Read and parse a spec file; unreadable files become diagnostics, never exceptions."""
    blob, problem = read_bytes(path)
    if problem is not None:
        return Document(problem.file, None), [problem]
    return parse(blob, path)


STDIN = "-"  # the path that means "read the spec from standard input"
STDIN_NAME = "<stdin>"  # how diagnostics name it


def read_stream(stream: BinaryIO, name: str = STDIN_NAME) -> tuple[Document, list[Diagnostic]]:
    """Read and parse one spec from a binary stream (stdin), bounded like a file."""
    try:
        blob = stream.read(MAX_BYTES + 1)
    except OSError as e:
        return Document(name, None), [Diagnostic("$", f"cannot read {name}: {e.strerror or e}",
                                                 file=name, code="file-unreadable")]
    return parse(blob, name)
