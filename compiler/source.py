"""Safe YAML loading with source positions.

The document is *composed* (never constructed by PyYAML), then turned into plain data here, so:
no tag can run code (`!!python/...` is refused, not resolved), duplicate keys are errors, alias
expansion is bounded (billion-laughs), recursion is refused, and every value's JSON path maps to
the line and column where it was written.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import yaml

from .config import inline
from .config.inline import Ignores
from .diagnostics import Collector, Diagnostic, Position

try:  # libyaml's parser when available: the same node tree, several times faster
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

MAX_NODES = 50_000  # after alias expansion; a real spec has a few hundred
MAX_DEPTH = 64
MAX_BYTES = 1024 * 1024  # a real spec is a few KiB; args are at most 100,000 characters a pool
# Below these, composing cannot cost much: at most SAFE_DEPTH levels (libyaml's composer
# recurses in C, ~30,000 nested '[' overflow its stack) and ~SMALL_TEXT nodes.
SAFE_DEPTH = 1000
SMALL_TEXT = 64 * 1024
INT64 = (-(2**63), 2**63 - 1)

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
    # Numbers whose value is not what most readers see in the text (YAML 1.1 octal `0600` and
    # base-60 `1:30`) or that JSON cannot carry (`.inf`, `.nan`, beyond int64): path → why.
    # Harmless where the text is kept (args, env); anywhere else the caller refuses them.
    suspect: dict[str, Reading] = field(default_factory=dict)
    # `# trainspec: ignore[code]` comments by line (config/inline.py; config/apply.py).
    ignores: Ignores = field(default_factory=dict)

    def collector(self) -> Collector:
        return Collector(self.file, self.positions)


@dataclass(frozen=True)
class Reading:
    """A number YAML read differently from how it looks, or JSON cannot carry."""

    text: str  # as written
    value: int | float  # as YAML 1.1 (PyYAML) read it
    kind: str  # "octal" | "base-60" | "non-finite" | "int64"

    def problem(self, duration: bool = False) -> tuple[str, str]:
        """(message, hint) for refusing it; `duration` for fields that take 90s, 1h30m."""
        text, value = self.text, self.value
        if self.kind == "non-finite":
            return (f"{text} is not a finite number: JSON has no infinity or NaN",
                    "write a finite number")
        if self.kind == "int64":
            return (f"{text} is outside the 64-bit integer range the APIs take",
                    f"at most {INT64[1]}")
        if self.kind == "octal":
            decimal = text.lstrip("+-").lstrip("0_") or "0"
            sign = "-" if text.startswith("-") else ""
            message = f"YAML 1.1 reads {text} as the octal number {value}: a leading 0 means base 8"
            if duration:
                return message, (f"write {sign}{decimal}s if you meant {sign}{decimal} seconds, "
                                 f"or {value}s if you meant octal")
            return message, (f"write {sign}{decimal} if you meant {sign}{decimal}, {value} if you "
                             f"meant octal, or '{text}' for text")
        if duration:
            return (f"YAML 1.1 reads {text} as the base-60 number {value} (seconds)",
                    "write the duration with units: 1m30s, 1h30m, or plain seconds (90)")
        return (f"YAML 1.1 reads {text} as the base-60 number {value}",
                f"write {value} if you meant {value}, or quote it for text")


_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")


def reading(text: str, value: Any) -> Reading | None:
    """How an int/float scalar's YAML 1.1 value differs from its look, if it does."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return Reading(text, value, "non-finite")
        return Reading(text, value, "base-60") if ":" in text else None
    if ":" in text:
        return Reading(text, value, "base-60")
    if _OCTAL.match(text) and int(text.replace("_", ""), 10) != value:
        return Reading(text, value, "octal")
    if not INT64[0] <= value <= INT64[1]:
        return Reading(text, value, "int64")
    return None


class _Budget(Exception):
    pass


# YAML 1.2 / JSON numbers with an exponent that YAML 1.1 (PyYAML) reads as strings: 1e-05, 1E5.
_EXPONENT_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+$")


class _Builder:
    def __init__(self, c: Collector, doc: Document, exponents: bool = False):
        self.c = c
        self.doc = doc
        self.count = 0
        self.stack: set[int] = set()
        self.exponents = exponents

    def pos(self, node: yaml.Node) -> Position:
        return Position(node.start_mark.line + 1, node.start_mark.column + 1)

    def fail(self, node: yaml.Node, path: str, code: str, message: str,
             hint: str | None = None) -> None:
        self.c.items.append(Diagnostic(path, message, file=self.c.file, position=self.pos(node),
                                       hint=hint, code=code))

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(node, path, "yaml-limits", f"the document expands to more than {MAX_NODES} values",
                      "aliases expanding into huge trees are refused")
            raise _Budget
        if depth > MAX_DEPTH:
            self.fail(node, path, "yaml-limits", f"nesting deeper than {MAX_DEPTH} levels")
            raise _Budget
        self.doc.positions.setdefault(path, self.pos(node))
        if id(node) in self.stack:
            self.fail(node, path, "yaml-recursive-alias", "recursive alias")
            raise _Budget
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        self.stack.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                if node.tag != _T + "seq":
                    self.fail(node, path, "yaml-tag", f"unsupported tag {node.tag!r}", "plain YAML only")
                    return None
                return [self.build(n, child(path, i), depth + 1) for i, n in enumerate(node.value)]
            if node.tag != _T + "map":
                self.fail(node, path, "yaml-tag", f"unsupported tag {node.tag!r}", "plain YAML only")
                return None
            return self.mapping(node, path, depth)
        finally:
            self.stack.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, path: str) -> Any:
        tag = node.tag
        if tag not in _SCALAR_TAGS:
            self.fail(node, path, "yaml-tag", f"unsupported tag {tag!r}",
                      "plain YAML only; tags never run")
            return None
        if tag == _T + "str" and self.exponents and not node.style \
                and _EXPONENT_NUMBER.match(node.value):
            value = float(node.value)
            self.doc.raw[path] = node.value
            odd = reading(node.value, value)
            if odd is not None:
                self.doc.suspect[path] = odd
            return value
        if tag == _T + "str" or tag == _T + "timestamp":
            return node.value
        self.doc.raw[path] = node.value
        # Resolution of plain scalars is PyYAML's (YAML 1.1); construction of these few types is safe.
        value = yaml.SafeLoader.yaml_constructors[tag](_SAFE, node)
        if tag in (_T + "int", _T + "float"):
            odd = reading(node.value, value)
            if odd is not None:
                self.doc.suspect[path] = odd
        return value

    def mapping(self, node: yaml.MappingNode, path: str, depth: int) -> dict:
        out: dict[str, Any] = {}
        own, merged = self.pairs(node, path, depth, False)
        for key_node, value_node in own:
            key = key_node.value
            p = child(path, key)
            self.doc.positions[p + "#key"] = self.pos(key_node)
            out[key] = self.build(value_node, p, depth + 1)
            if isinstance(value_node, yaml.CollectionNode) and not value_node.flow_style:
                # A block mapping/list "starts" at its first child; users look for its key.
                self.doc.positions[p] = self.pos(key_node)
        # Merged keys never override the mapping's own; of several sources the first wins.
        for key_node, value_node in merged:
            key = key_node.value
            if key not in out:
                p = child(path, key)
                self.doc.positions.setdefault(p + "#key", self.pos(key_node))
                out[key] = self.build(value_node, p, depth + 1)
        return out

    def pairs(self, node: yaml.MappingNode, path: str, depth: int,
              via_merge: bool) -> tuple[list, list]:
        """The mapping's own (key, value) nodes, checked (string keys, no duplicates), and the
        pairs its merge keys ('<<') bring in, flattened (a merged mapping may merge others)."""
        own: list[tuple[yaml.ScalarNode, yaml.Node]] = []
        merged: list[tuple[yaml.ScalarNode, yaml.Node]] = []
        first: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if via_merge:  # keys merged again and again through aliases cost time too
                self.count += 1
                if self.count > MAX_NODES:
                    self.fail(key_node, path, "yaml-limits", f"the document expands to more than "
                              f"{MAX_NODES} values", "aliases expanding into huge trees are "
                              "refused")
                    raise _Budget
            if key_node.tag == _T + "merge":
                if "<<" in first:
                    self.fail(key_node, path, "yaml-duplicate-key", "duplicate key '<<' (first at line "
                              f"{first['<<'].start_mark.line + 1})",
                              "merge several mappings with one key: <<: [*a, *b]")
                    continue
                first["<<"] = key_node
                for source in self.merge_sources(value_node, path, depth):
                    self.stack.add(id(source))
                    try:
                        sub_own, sub_merged = self.pairs(source, path, depth + 1, True)
                    finally:
                        self.stack.discard(id(source))
                    merged += sub_own + sub_merged
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(key_node, path, "yaml-key", "a key must be a plain string, not a list or "
                          "mapping")
                continue
            if key_node.tag != _T + "str":
                self.fail(key_node, path, "yaml-key", f"key {key_node.value!r} is not a string",
                          "quote it: YAML reads yes/no/on/off and numbers as non-strings")
                continue
            key = key_node.value
            if key in first:
                self.fail(key_node, child(path, key), "yaml-duplicate-key",
                          f"duplicate key {key!r} (first at line {first[key].start_mark.line + 1})")
                continue
            first[key] = key_node
            own.append((key_node, value_node))
        return own, merged

    def merge_sources(self, value: yaml.Node, path: str, depth: int) -> list[yaml.MappingNode]:
        if depth > MAX_DEPTH:
            self.fail(value, path, "yaml-limits", f"nesting deeper than {MAX_DEPTH} levels")
            raise _Budget
        items = value.value if isinstance(value, yaml.SequenceNode) else [value]
        good = []
        for item in items:
            if id(item) in self.stack:
                self.fail(item, path, "yaml-recursive-alias", "recursive alias")
                raise _Budget
            if isinstance(item, yaml.MappingNode):
                good.append(item)
            else:
                self.fail(item, path, "yaml-merge", "a merge key ('<<') takes a mapping or a list of "
                          "mappings")
        return good


_SAFE = yaml.SafeLoader("")  # only its scalar constructors are used; they read node.value


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
    if not _affordable(text, c):
        return doc, c.items
    loader = _Loader(text)
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
    builder = _Builder(c, doc, exponents)
    try:
        data = builder.build(node, "$", 0)
    except _Budget:
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


def _affordable(text: str, c: Collector) -> bool:
    """False (with a located error) if composing `text` could cost more than a spec may:
    nesting deeper than MAX_DEPTH or more than MAX_NODES nodes.

    A cheap bound clears real specs without parsing: nesting is at most one level per '[' or
    '{' plus two per column (block collections nest by indenting, or by `- ` on one line), and
    a short text has few nodes. Anything else is checked on libyaml's event stream, which
    stops at the first event over a limit: before the composer recurses into it, and before
    libyaml's cost per token, which grows with the depth, adds up.
    """
    if len(text) <= SMALL_TEXT:
        widest = max(map(len, text.split("\n")))
        if text.count("[") + text.count("{") + 2 * widest + 2 <= SAFE_DEPTH:
            return True
    loader = _Loader(text)
    depth = nodes = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
                continue
            elif not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                continue
            nodes += 1
            if depth > MAX_DEPTH or nodes > MAX_NODES:
                mark = event.start_mark
                message = (f"nesting deeper than {MAX_DEPTH} levels" if depth > MAX_DEPTH else
                           f"more than {MAX_NODES} keys and values: a spec has a few hundred")
                c.items.append(Diagnostic("$", message, file=c.file,
                                          position=Position(mark.line + 1, mark.column + 1),
                                          code="yaml-limits"))
                return False
    except yaml.YAMLError:
        return True  # composing reports it, located
    finally:
        loader.dispose()
    return True


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def shown(path: str) -> str:
    """`path` as diagnostics print it: control characters (a newline in a file name would
    forge output lines) escaped."""
    if path.isprintable():
        return path
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in path)


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
