"""A composed YAML node tree → plain data, with where each JSON path was written.

PyYAML composes the nodes (never constructs Python objects from tags), so: only the plain
YAML tags are read and none runs code (`!!python/...` is refused, not resolved), keys are
strings and unique, merge keys (`<<`) are flattened with the mapping's own keys winning, alias
expansion is bounded (billion-laughs) and recursion refused (limits.py), and
numbers YAML 1.1 misreads are recorded (numbers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from ..diagnostics import Collector, Diagnostic, Position
from .jsonpath import child
from .limits import MAX_DEPTH, MAX_NODES, Budget
from .numbers import EXPONENT_NUMBER, reading

if TYPE_CHECKING:
    from .document import Document

_T = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null", _T + "timestamp"}


class Builder:
    """Builds the plain data of one document into `doc` (positions, raw text, suspect numbers)."""

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
            raise Budget
        if depth > MAX_DEPTH:
            self.fail(node, path, "yaml-limits", f"nesting deeper than {MAX_DEPTH} levels")
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
                and EXPONENT_NUMBER.match(node.value):
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
                    raise Budget
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


_SAFE = yaml.SafeLoader("")  # only its scalar constructors are used; they read node.value
