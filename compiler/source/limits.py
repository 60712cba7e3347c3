"""What composing a spec may cost, checked on libyaml's event stream before composing.

The composer (compose.py) counts values after alias expansion and refuses deep
nesting as it builds; this check stops earlier, before libyaml's composer recurses in C (~30,000
nested '[' overflow its stack) and before its cost per token, which grows with the depth, adds
up.
"""

from __future__ import annotations

import yaml

from ..diagnostics import Collector, Diagnostic, Position

try:  # libyaml's parser when available: the same node tree, several times faster
    Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    Loader = yaml.SafeLoader

MAX_NODES = 50_000  # after alias expansion; a real spec has a few hundred
MAX_DEPTH = 64
# Below these, composing cannot cost much: at most SAFE_DEPTH levels and ~SMALL_TEXT nodes.
SAFE_DEPTH = 1000
SMALL_TEXT = 64 * 1024


class Budget(Exception):
    """A limit was passed: the composer stops; the diagnostic is already collected."""


def affordable(text: str, c: Collector) -> bool:
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
    loader = Loader(text)
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
