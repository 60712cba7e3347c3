"""What composing a spec may cost, checked on the parser's event stream before composing.

The composer (compose.py) counts values after alias expansion and refuses deep
nesting as it builds; this check stops earlier, before libyaml's composer recurses in C (~30,000
nested '[' overflow its stack) and before its cost per token, which grows with the depth, adds
up. The limits are trainspec's own: they fire before any limit of the YAML library's (libyaml
0.2.6 refuses nesting deeper than 1000 levels, earlier versions nothing), so what a user sees
does not depend on which PyYAML or libyaml is installed.

A small text with few characters that open a level (`composable`: every spec of a real tree)
cannot nest deep enough for either, so it is composed first and the same count is taken on its
nodes (`over`); its events are walked, to say where, only if that count passes a limit or the
text does not compose (tests/test_source_quick.py holds the two to one answer).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from ..diagnostics import Collector, Diagnostic, Position

try:  # libyaml's parser when available: the same node tree, several times faster
    _Base: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader

# Each plain scalar's tag is PyYAML's resolver's answer for its text: a pure function of the
# text and how it was written (SafeLoader has no path resolvers), asked once per scalar by the
# parser, in Python. The answers for short texts (keys, most values) are kept, bounded.
_TAGS: dict[tuple[str, tuple[bool, bool]], str] = {}
_MAX_TAGS, _MAX_TEXT = 8192, 64


class Loader(_Base):  # type: ignore[valid-type, misc]
    def resolve(self, kind: type, value: object, implicit: tuple[bool, bool]) -> str:
        if kind is not yaml.ScalarNode or len(value) > _MAX_TEXT:  # type: ignore[arg-type]
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _TAGS.get(key)  # type: ignore[arg-type]
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_TAGS) < _MAX_TAGS:
                _TAGS[key] = tag  # type: ignore[index]
        return tag

MAX_NODES = 50_000  # after alias expansion; a real spec has a few hundred
MAX_DEPTH = 64
# The document as composed, in characters: every key and value as expanded through aliases, and
# the JSON path of each value (kept with its position: a path holds every key above it). Text
# under the size limit without aliases stays under it; a 1 MiB key aliased as a key at 60 levels
# would be 3.6 GB of paths.
MAX_EXPANDED = 8 * 1024 * 1024
# Below these, composing cannot cost much: at most SAFE_DEPTH levels and ~SMALL_TEXT nodes.
# SAFE_DEPTH is MAX_DEPTH: a text that might nest deeper is walked, so trainspec's limit is
# the one that fires, not whichever limit the composer of this libyaml has.
SAFE_DEPTH = MAX_DEPTH
SMALL_TEXT = 64 * 1024
# Characters that can open a level: flow '[' '{', block '-' '?' and a block mapping's ':'.
_OPENERS = "[{-?:"
# A small text with at most this many of them is composed before its limits are checked
# (`composable`): each level needs its own, so the composer cannot nest deeper, far below
# libyaml's own limit (1000 levels) and its C stack.
QUICK_OPENERS = 256


class Budget(Exception):
    """A limit was passed: the composer stops; the diagnostic is already collected."""


@dataclass
class _Walk:
    """An event stream walked up to the first event over a limit."""

    depth: int = 0
    nodes: int = 0
    last: int = 0  # index in the text of the last event read
    over: tuple[str, yaml.Mark] | None = None  # the first excess: message, where

    def run(self, loader: yaml.BaseLoader) -> None:
        """Walk to the end or the first excess; raises the parser's yaml.YAMLError."""
        while loader.check_event():
            event = loader.get_event()
            self.last = event.start_mark.index
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                self.depth += 1
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                self.depth -= 1
                continue
            elif not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                continue
            self.nodes += 1
            if self.depth > MAX_DEPTH:
                self.over = f"nesting deeper than {MAX_DEPTH} levels", event.start_mark
                return
            if self.nodes > MAX_NODES:
                self.over = (f"more than {MAX_NODES} keys and values: a spec has a few hundred",
                             event.start_mark)
                return


def affordable(text: str, c: Collector) -> bool:
    """False (with a located error) if composing `text` could cost more than a spec may:
    nesting deeper than MAX_DEPTH or more than MAX_NODES nodes.

    A cheap bound clears tiny specs without parsing: nesting is at most one level per '[' or
    '{' plus two per column (block collections nest by indenting, or by `- ` on one line), and
    a short text has few nodes. Anything else is checked on the event stream, which stops at
    the first event over a limit: before the composer recurses into it, and before libyaml's
    cost per token, which grows with the depth, adds up.
    """
    if len(text) <= SMALL_TEXT:
        widest = max(map(len, text.split("\n")))
        if text.count("[") + text.count("{") + 2 * widest + 2 <= SAFE_DEPTH:
            return True
    walk = _Walk()
    loader = Loader(text)
    try:
        walk.run(loader)
    except yaml.YAMLError as e:
        walk = _rewalk(text, walk, e)
    finally:
        loader.dispose()
    if walk.over is None:
        return True  # fine, or a syntax error composing reports, located
    message, mark = walk.over
    c.items.append(Diagnostic("$", message, file=c.file,
                              position=Position(mark.line + 1, mark.column + 1),
                              code="yaml-limits"))
    return False


def composable(text: str) -> bool:
    """Whether `text` may be composed before its limits are checked (`over` then checks the
    nodes): a small text in which nothing can nest deeper than QUICK_OPENERS levels.

    Walking the parser's events costs a spec about as much as composing it; a typical spec
    is too wide for `affordable`'s cheap bound, yet has a few dozen characters that open a
    level. Every level, flow or block, is opened by a character of its own ('[', '{', the
    '-' or '?' of its first entry, or the ':' of its first key)."""
    return len(text) <= SMALL_TEXT and sum(map(text.count, _OPENERS)) <= QUICK_OPENERS


def over(node: yaml.Node) -> bool:
    """Whether the event walk of the text composed into `node` would pass a limit: the same
    count, on the nodes in the order their events came (an alias, a node met again, is one
    value and is not entered). Only then is the text walked, which says where (`affordable`)."""
    seen: set[int] = set()  # collections entered; a scalar counts one, alias or not
    nodes = 0
    todo = [(node, 0)]
    while todo:
        n, depth = todo.pop()  # depth: the collections around `n`
        nodes += 1
        if isinstance(n, yaml.ScalarNode) or id(n) in seen:
            if depth > MAX_DEPTH:
                return True
            continue
        seen.add(id(n))
        depth += 1  # its start event counts itself, as _Walk does; its scalars are as deep
        if depth > MAX_DEPTH:
            return True
        items = n.value if isinstance(n, yaml.SequenceNode) else \
            [part for pair in n.value for part in pair]
        inner = [item for item in items if not isinstance(item, yaml.ScalarNode)]
        nodes += len(items) - len(inner)
        todo += [(item, depth) for item in reversed(inner)]
    return nodes > MAX_NODES


def _rewalk(text: str, walk: _Walk, error: yaml.YAMLError) -> _Walk:
    """The walk of the text up to libyaml's `error`, by the pure-Python parser if libyaml
    could have stopped on its own limit before the event at which ours fires.

    libyaml's scanner reads ahead of the events it hands out (to the end of a line or 1024
    characters, to tell a key from a value), so its nesting limit can be passed in text whose
    events were not read yet. Only if that text holds enough characters that open a level is
    it walked again, by PyYAML's pure-Python parser (no nesting limit of its own): first up to
    where those characters could first pass MAX_DEPTH (its scanner's cost grows with the
    levels it reads ahead), then, if nothing was over, up to the error."""
    mark = getattr(error, "problem_mark", None)
    libyaml = getattr(yaml, "CSafeLoader", None)
    if libyaml is None or not issubclass(Loader, libyaml) or mark is None:
        return walk
    end = min(mark.index + 1, len(text))  # an error at the end of the text marks past it
    room = MAX_DEPTH - walk.depth
    for i in range(walk.last + 1, end):  # the last event, if it opened a level, is counted
        if text[i] in _OPENERS:
            room -= 1
            if room < 0:
                break
    else:
        return walk
    for cut in dict.fromkeys((i + 1, end)):
        again = _Walk()
        loader = yaml.SafeLoader(text[:cut])
        try:
            again.run(loader)
        except yaml.YAMLError:
            pass  # the end of the cut text, or the error libyaml found: composing reports it
        finally:
            loader.dispose()
        if again.over is not None:
            return again
    return walk
