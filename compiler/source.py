"""Safe YAML loading with source positions.

The document is *composed* (never constructed by PyYAML), then turned into plain data here, so:
no tag can run code (`!!python/...` is refused, not resolved), duplicate keys are errors, alias
expansion is bounded (billion-laughs), recursion is refused, and every value's JSON path maps to
the line and column where it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import yaml

from .diagnostics import Collector, Diagnostic, Position

try:  # libyaml's parser when available: the same node tree, several times faster
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

MAX_NODES = 50_000  # after alias expansion; a real spec has a few hundred
MAX_DEPTH = 64
MAX_BYTES = 4 * 1024 * 1024

_T = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null", _T + "timestamp"}
_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def child(path: str, key: str | int) -> str:
    """The JSON path of `key` (a mapping key or list index) under `path`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _SIMPLE_KEY.match(key):
        return f"{path}.{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{escaped}']"


@dataclass
class Document:
    """A loaded spec: plain data plus where each JSON path was written."""

    file: str
    data: Any
    positions: dict[str, Position] = field(default_factory=dict)
    # Original text of non-string scalars (`1e-3`, `yes`), so string lists can keep what was typed.
    raw: dict[str, str] = field(default_factory=dict)

    def collector(self) -> Collector:
        return Collector(self.file, self.positions)


class _Budget(Exception):
    pass


class _Builder:
    def __init__(self, c: Collector, doc: Document):
        self.c = c
        self.doc = doc
        self.count = 0
        self.stack: set[int] = set()

    def pos(self, node: yaml.Node) -> Position:
        return Position(node.start_mark.line + 1, node.start_mark.column + 1)

    def fail(self, node: yaml.Node, path: str, message: str, hint: str | None = None) -> None:
        self.c.items.append(Diagnostic(path, message, file=self.c.file, position=self.pos(node),
                                       hint=hint))

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(node, path, f"the document expands to more than {MAX_NODES} values",
                      "aliases expanding into huge trees are refused")
            raise _Budget
        if depth > MAX_DEPTH:
            self.fail(node, path, f"nesting deeper than {MAX_DEPTH} levels")
            raise _Budget
        self.doc.positions.setdefault(path, self.pos(node))
        if id(node) in self.stack:
            self.fail(node, path, "recursive alias")
            raise _Budget
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        self.stack.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                if node.tag != _T + "seq":
                    self.fail(node, path, f"unsupported tag {node.tag!r}", "plain YAML only")
                    return None
                return [self.build(n, child(path, i), depth + 1) for i, n in enumerate(node.value)]
            if node.tag != _T + "map":
                self.fail(node, path, f"unsupported tag {node.tag!r}", "plain YAML only")
                return None
            return self.mapping(node, path, depth)
        finally:
            self.stack.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, path: str) -> Any:
        tag = node.tag
        if tag not in _SCALAR_TAGS:
            self.fail(node, path, f"unsupported tag {tag!r}", "plain YAML only; tags never run")
            return None
        if tag == _T + "str" or tag == _T + "timestamp":
            return node.value
        self.doc.raw[path] = node.value
        # Resolution of plain scalars is PyYAML's (YAML 1.1); construction of these few types is safe.
        return yaml.SafeLoader.yaml_constructors[tag](_SAFE, node)

    def mapping(self, node: yaml.MappingNode, path: str, depth: int) -> dict:
        out: dict[str, Any] = {}
        first: dict[str, yaml.Node] = {}
        merged: list[tuple[yaml.Node, str]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _T + "merge":
                merged.extend(self.merge_sources(value_node, path))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(key_node, path, "a key must be a plain string, not a list or mapping")
                continue
            if key_node.tag != _T + "str":
                self.fail(key_node, path, f"key {key_node.value!r} is not a string",
                          "quote it: YAML reads yes/no/on/off and numbers as non-strings")
                continue
            key = key_node.value
            if key in first:
                self.fail(key_node, child(path, key),
                          f"duplicate key {key!r} (first at line {first[key].start_mark.line + 1})")
                continue
            first[key] = key_node
            p = child(path, key)
            self.doc.positions[p + "#key"] = self.pos(key_node)
            out[key] = self.build(value_node, p, depth + 1)
            if isinstance(value_node, yaml.CollectionNode) and not value_node.flow_style:
                # A block mapping/list "starts" at its first child; users look for its key.
                self.doc.positions[p] = self.pos(key_node)
        for source, _ in merged:
            for key_node, value_node in source.value:
                key = key_node.value
                if isinstance(key, str) and key not in out:
                    p = child(path, key)
                    self.doc.positions.setdefault(p + "#key", self.pos(key_node))
                    out[key] = self.build(value_node, p, depth + 1)
        return out

    def merge_sources(self, value: yaml.Node, path: str) -> list[tuple[yaml.Node, str]]:
        items = value.value if isinstance(value, yaml.SequenceNode) else [value]
        good = []
        for item in items:
            if isinstance(item, yaml.MappingNode):
                good.append((item, path))
            else:
                self.fail(item, path, "a merge key ('<<') takes a mapping or a list of mappings")
        return good


_SAFE = yaml.SafeLoader("")  # only its scalar constructors are used; they read node.value


def parse(text: bytes | str, file: str = "<input>") -> tuple[Document, list[Diagnostic]]:
    """Load one spec document. Returns the document and its diagnostics (errors mean unusable)."""
    doc = Document(file, None)
    c = doc.collector()
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            c.error("$", f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB")
            return doc, c.items
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = text[: e.start].count(b"\n") + 1
            col = e.start - (text.rfind(b"\n", 0, e.start) + 1) + 1
            c.items.append(Diagnostic("$", f"not UTF-8: invalid byte 0x{text[e.start]:02x}",
                                      file=file, position=Position(line, col)))
            return doc, c.items
    if not text.strip():
        c.items.append(Diagnostic("$", "empty file: expected a trainspec document", file=file,
                                  position=Position(1, 1)))
        return doc, c.items
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        pos = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        problem = (e.problem or str(e)).strip()
        if "single document" in (e.context or ""):
            problem = "more than one YAML document: put one spec per file"
        c.items.append(Diagnostic("$", f"invalid YAML: {problem}", file=file, position=pos))
        return doc, c.items
    except yaml.reader.ReaderError as e:
        # Control characters (NUL…) are not allowed in YAML text; PyYAML reports a byte offset.
        before = text[: e.position] if isinstance(text, str) else ""
        pos = Position(before.count("\n") + 1, e.position - (before.rfind("\n") + 1) + 1)
        ch = e.character if isinstance(e.character, int) else ord(e.character)
        c.items.append(Diagnostic("$", f"invalid YAML: control character U+{ch:04X} is not "
                                  "allowed", file=file, position=pos))
        return doc, c.items
    except (yaml.YAMLError, RecursionError) as e:
        c.items.append(Diagnostic("$", f"invalid YAML: {type(e).__name__}", file=file,
                                  position=Position(1, 1)))
        return doc, c.items
    finally:
        loader.dispose()
    if node is None:
        c.items.append(Diagnostic("$", "empty document: expected a trainspec document",
                                  file=file, position=Position(1, 1)))
        return doc, c.items
    builder = _Builder(c, doc)
    try:
        data = builder.build(node, "$", 0)
    except _Budget:
        return doc, c.items
    if c.items:  # a refused tag or key at the top: already reported
        return doc, c.items
    if not isinstance(data, dict):
        kind = "list" if isinstance(data, list) else type(data).__name__
        c.error("$", f"the top level must be a mapping (apiVersion, kind, metadata, spec), not a {kind}")
        return doc, c.items
    doc.data = data
    return doc, c.items


def read(path: str) -> tuple[Document, list[Diagnostic]]:
    """Read and parse a spec file; unreadable files become diagnostics, never exceptions."""
    try:
        with open(path, "rb") as f:
            blob = f.read(MAX_BYTES + 1)
    except OSError as e:
        doc = Document(path, None)
        return doc, [Diagnostic("$", f"cannot read file: {e.strerror or e}", file=path)]
    return parse(blob, path)


STDIN = "-"  # the path that means "read the spec from standard input"
STDIN_NAME = "<stdin>"  # how diagnostics name it


def read_stream(stream: BinaryIO, name: str = STDIN_NAME) -> tuple[Document, list[Diagnostic]]:
    """Read and parse one spec from a binary stream (stdin), bounded like a file."""
    try:
        blob = stream.read(MAX_BYTES + 1)
    except OSError as e:
        return Document(name, None), [Diagnostic("$", f"cannot read {name}: {e.strerror or e}",
                                                 file=name)]
    return parse(blob, name)
