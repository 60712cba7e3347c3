"""Inline suppression: `# trainspec: ignore[code]` (or `ignore[a, b]`) in a spec's comment
silences those codes' diagnostics located on that line."""

from __future__ import annotations

import re

# A YAML comment starts at a '#' that begins the line or follows a space or tab.
_MARK = re.compile(r"(?:^|[ \t])#[ \t]*trainspec:[ \t]*ignore\[([^\]\n]*)\]")

# line → ((code, column of the code), ...); both 1-based.
Ignores = dict[int, tuple[tuple[str, int], ...]]


def scan(text: str) -> Ignores:
    """Every `# trainspec: ignore[...]` of a spec's text, by line. A mark inside a quoted
    string is read too: the text is not parsed again for it (a spec has no reason to quote
    one)."""
    if "trainspec:" not in text:
        return {}
    found: Ignores = {}
    for number, line in enumerate(text.split("\n"), 1):
        if "trainspec:" not in line:
            continue
        named: list[tuple[str, int]] = []
        for m in _MARK.finditer(line):
            at = m.start(1)
            for part in m.group(1).split(","):
                code = part.strip()
                named.append((code, at + (len(part) - len(part.lstrip())) + 1))
                at += len(part) + 1
        if named:
            found[number] = tuple(named)
    return found
