"""A spec's text or file → a Document: plain data and where each JSON path was written.

Files are read safely (files.py: regular files only, bounded, names escaped for output), text
must be UTF-8 and one YAML document; its cost is bounded (limits.py: before composing, or for a
small text on the composed nodes), and the composed nodes become plain data in compose.py (no
tag runs code, duplicate keys are errors, numbers YAML 1.1 misreads are recorded: numbers.py).
Every problem is a located diagnostic, never an exception.
"""

from __future__ import annotations

from typing import BinaryIO

import yaml

from ..diagnostics import Diagnostic, Position
from . import inline
from .compose import Builder
from .document import Document
from .files import MAX_BYTES, STDIN_NAME, read_bytes
from .limits import Budget, Loader, affordable, composable, over


def parse(text: bytes | str, file: str = "<input>", *,
          exponents: bool = False) -> tuple[Document, list[Diagnostic]]:
    """Load one spec document. Returns the document and its diagnostics (errors mean unusable).

    `exponents`: read unquoted 1e-05 as the number JSON and YAML 1.2 mean, not as YAML 1.1's
    string (for configs written by other tools; a spec writes 1.0e-05)."""
    doc = Document(file, None)  # reports escape it, each its own way
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
    # A small spec is composed first and its limits checked on the nodes; the text is walked
    # only if they are passed, or if it does not compose (a limit passed before the error is
    # what the walk reports, as for any other text).
    quick = composable(text)
    if not quick and not affordable(text, c):
        return doc, c.items
    loader = Loader(text)
    try:
        node = loader.get_single_node()
    except (yaml.YAMLError, RecursionError) as e:
        if quick and not affordable(text, c):
            return doc, c.items
        c.items.append(_unreadable(e, text, file))
        return doc, c.items
    finally:
        loader.dispose()
    if quick and node is not None and over(node) and not affordable(text, c):
        return doc, c.items
    if node is None:
        c.items.append(Diagnostic("$", "empty document: expected a trainspec document",
                                  file=file, position=Position(1, 1), code="empty-document"))
        return doc, c.items
    builder = Builder(c, doc, text, exponents)
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


def _unreadable(e: Exception, text: str, file: str) -> Diagnostic:
    """The located diagnostic of a text PyYAML could not compose."""
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        pos = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        problem = (e.problem or str(e)).strip()
        code = "yaml-syntax"
        if "single document" in (e.context or ""):
            problem, code = "more than one YAML document: put one spec per file", \
                "yaml-multiple-documents"
        return Diagnostic("$", f"invalid YAML: {problem}", file=file, position=pos, code=code)
    if isinstance(e, yaml.reader.ReaderError):
        # Control characters (NUL…) are not allowed in YAML text; PyYAML reports a byte offset.
        before = text[: e.position] if isinstance(text, str) else ""
        pos = Position(before.count("\n") + 1, e.position - (before.rfind("\n") + 1) + 1)
        ch = e.character if isinstance(e.character, int) else ord(e.character)
        return Diagnostic("$", f"invalid YAML: control character U+{ch:04X} is not allowed",
                          file=file, position=pos, code="yaml-syntax")
    return Diagnostic("$", f"invalid YAML: {type(e).__name__}", file=file,
                      position=Position(1, 1), code="yaml-syntax")


def read(path: str) -> tuple[Document, list[Diagnostic]]:
    """Read and parse a spec file; unreadable files become diagnostics, never exceptions."""
    blob, problem = read_bytes(path)
    if problem is not None:
        return Document(problem.file, None), [problem]
    return parse(blob, path)


def read_stream(stream: BinaryIO, name: str = STDIN_NAME) -> tuple[Document, list[Diagnostic]]:
    """Read and parse one spec from a binary stream (stdin), bounded like a file."""
    try:
        blob = stream.read(MAX_BYTES + 1)
    except OSError as e:
        return Document(name, None), [Diagnostic("$", f"cannot read {name}: {e.strerror or e}",
                                                 file=name, code="file-unreadable")]
    return parse(blob, name)
