"""A composed YAML node tree → plain data, with where each JSON path was written.

PyYAML composes the nodes (never constructs Python objects from tags), so: only the plain
YAML tags are read and none runs code (`!!python/...` is refused, not resolved), keys are
strings and unique, merge keys (`<<`) are flattened with the mapping's own keys winning, alias
expansion is bounded (billion-laughs) and recursion refused (limits.py),
numbers YAML 1.1 misreads are recorded (numbers.py), and a scalar PyYAML cannot
convert is never a traceback: an explicit tag's text not of its type (`!!int x`) is an error,
a plain `0x_` the string YAML 1.2 reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import yaml

from ..diagnostics import Collector, Diagnostic, Position
from ..secrets.scan import scrubbed
from .jsonpath import child
from .limits import MAX_DEPTH, MAX_EXPANDED, MAX_NODES, Budget
from .numbers import EXPONENT_NUMBER, MAX_DIGITS, YAML12_FLOAT, reading

if TYPE_CHECKING:
    from .document import Document

_T = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null", _T + "timestamp"}
# What the text of each typed scalar must look like: PyYAML's own YAML 1.1 resolver patterns
# (an explicit `!!float` also takes YAML 1.2's 1 and 1e5), and how a message names the type.
_FORMS = {tag: regexp for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values()
          for tag, regexp in resolvers}
_TYPES = {_T + "int": ("an integer", "12, -3, 0x1f or 1_000"),
          _T + "float": ("a number", "1.5, 1e-3 or .inf"),
          _T + "bool": ("a boolean", "true/false, yes/no or on/off"),
          _T + "null": ("null", "~, null or nothing"),
          _T + "timestamp": ("a timestamp", "2001-12-14 or 2001-12-14T21:59:43Z")}
# A node written with an explicit tag (`!!int x`, `&a !!int x`): a node starts at its
# properties, and no plain scalar starts with '!' or '&'.
_TAGGED = re.compile(r"!|&[^\s\[\]{},]+\s+!")


class Builder:
    """Builds the plain data of one document into `doc` (positions, raw text, suspect numbers)."""

    def __init__(self, c: Collector, doc: Document, text: str, exponents: bool = False):
        self.c = c
        self.doc = doc
        self.text = text  # what was composed: node marks index it
        self.count = 0
        self.size = 0  # characters composed: paths, keys and values (MAX_EXPANDED)
        self.stack: set[int] = set()
        self.exponents = exponents

    def pos(self, node: yaml.Node) -> Position:
        mark = node.start_mark
        where = (mark.line, mark.column)
        found = _POSITIONS.get(where)
        if found is None:
            found = Position(mark.line + 1, mark.column + 1)
            if mark.line < 300 and mark.column < 100:  # bounded: specs share the few they use
                _POSITIONS[where] = found
        return found

    def fail(self, node: yaml.Node, path: str, code: str, message: str,
             hint: str | None = None) -> None:
        self.c.items.append(Diagnostic(path, message, file=self.c.file, position=self.pos(node),
                                       hint=hint, code=code))

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(node, path, "yaml-limits", f"the document expands to more than {MAX_NODES} values",
                      "aliases expanding into huge trees are refused")
            raise Budget
        if depth > MAX_DEPTH:
            self.fail(node, path, "yaml-limits", f"nesting deeper than {MAX_DEPTH} levels")
            raise Budget
        self.size += len(path) + (len(node.value) if isinstance(node, yaml.ScalarNode) else 0)
        if self.size > MAX_EXPANDED:
            shown = path if len(path) <= 200 else path[:200] + "…"
            self.fail(node, shown, "yaml-limits", f"the document expands to more than "
                      f"{MAX_EXPANDED // 1048576} MiB of keys, values and paths",
                      "aliases expanding into huge trees, or long keys above many values, are "
                      "refused")
            raise Budget
        self.doc.positions.setdefault(path, self.pos(node))
        if id(node) in self.stack:
            self.fail(node, path, "yaml-recursive-alias", "recursive alias")
            raise Budget
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
                and EXPONENT_NUMBER.match(node.value) and not self.tagged(node):
            value = float(node.value)
            self.doc.raw[path] = node.value
            odd = reading(node.value, value)
            if odd is not None:
                self.doc.suspect[path] = odd
            return value
        if tag == _T + "str":
            if node.style not in ("|", ">") and node.end_mark.line > node.start_mark.line:
                self.doc.joined.add(path)
            return node.value
        value = self.typed(node, path)
        if value is _UNREADABLE:
            return None
        if tag == _T + "timestamp" or isinstance(value, str):
            return value
        self.doc.raw[path] = node.value
        if tag in (_T + "int", _T + "float"):
            odd = reading(node.value, value)
            if odd is not None:
                self.doc.suspect[path] = odd
        return value

    def typed(self, node: yaml.ScalarNode, path: str) -> Any:
        """The value of an int, float, bool, null or timestamp scalar (a timestamp stays its
        text); `_UNREADABLE`, reported, if its text is not one.

        Plain scalars are resolved by PyYAML's YAML 1.1 patterns, so their text always has the
        form; yet `0x_` or `-0b_` has no digits (YAML 1.2 reads them as strings, and so does
        trainspec). An explicit tag (`!!int x`, `!!bool maybe`, `!!null x`) whose text is not
        of its type is an error, and so is an integer longer than Python converts (slowly)."""
        text, tag = node.value, node.tag
        ours = _FORMS[tag].match(text) or (tag == _T + "float" and YAML12_FLOAT.match(text))
        digits = len(text.replace("_", "").lstrip("+-"))
        if ours and tag == _T + "int" and digits > MAX_DIGITS:
            return self.unreadable(node, path, f"it has {digits} digits, more than "
                                   f"{MAX_DIGITS}", "no API takes a number that long; "
                                   "quote it for text")
        if ours and tag == _T + "timestamp":
            return text
        if ours:
            try:  # PyYAML's converters for these few types are safe; they fail on `0x_`
                return yaml.SafeLoader.yaml_constructors[tag](_SAFE, node)
            except (ValueError, LookupError):
                pass
        if not self.tagged(node):
            return text
        name = "!!" + tag.removeprefix(_T)
        return self.unreadable(node, path, f"it is tagged {name}",
                               f"{name} is written {_TYPES[tag][1]}; drop the tag for text")

    def tagged(self, node: yaml.ScalarNode) -> bool:
        """Whether the scalar was written with an explicit tag (else PyYAML resolved it)."""
        return _TAGGED.match(self.text, node.start_mark.index) is not None

    def unreadable(self, node: yaml.ScalarNode, path: str, why: str, hint: str) -> object:
        text = scrubbed(node.value)  # whole, before the cut
        text = text if len(text) <= 40 else text[:40] + "…"
        self.fail(node, path, "yaml-value", f"cannot read {text!r} as {_TYPES[node.tag][0]}: "
                  f"{why}", hint)
        return _UNREADABLE

    def mapping(self, node: yaml.MappingNode, path: str, depth: int) -> dict:
        out: dict[str, Any] = {}
        own, merged = self.pairs(node, path, depth, False)
        for key_node, value_node in own:
            key = key_node.value
            p = child(path, key)
            out[key] = self.build(value_node, p, depth + 1)  # counts `p` before it is kept
            self.doc.positions[p + "#key"] = self.pos(key_node)
            if isinstance(value_node, yaml.CollectionNode) and not value_node.flow_style:
                # A block mapping/list "starts" at its first child; users look for its key.
                self.doc.positions[p] = self.pos(key_node)
        # Merged keys never override the mapping's own; of several sources the first wins.
        for key_node, value_node in merged:
            key = key_node.value
            if key not in out:
                p = child(path, key)
                out[key] = self.build(value_node, p, depth + 1)
                self.doc.positions.setdefault(p + "#key", self.pos(key_node))
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
                    raise Budget
            if key_node.tag == _T + "merge" and not (
                    isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<"):
                # `!!merge innocent: {...}` would merge a mapping under a key that reads as
                # an ordinary one: only `<<` is a merge key (YAML 1.1 merge type).
                shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else "[...]"
                self.fail(key_node, path, "yaml-value", f"cannot read {shown[:40]!r} as a merge "
                          "key: it is tagged !!merge", "a merge key is written <<; drop the tag "
                          "for a key")
                continue
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
            raise Budget
        items = value.value if isinstance(value, yaml.SequenceNode) else [value]
        good = []
        for item in items:
            if id(item) in self.stack:
                self.fail(item, path, "yaml-recursive-alias", "recursive alias")
                raise Budget
            if isinstance(item, yaml.MappingNode):
                good.append(item)
            else:
                self.fail(item, path, "yaml-merge", "a merge key ('<<') takes a mapping or a list of "
                          "mappings")
        return good


# Positions are values (frozen): one per place, shared by every document that writes there.
_POSITIONS: dict[tuple[int, int], Position] = {}
_SAFE = yaml.SafeLoader("")  # only its scalar constructors are used; they read node.value
_UNREADABLE = object()  # a scalar whose text is not of its type (reported)
