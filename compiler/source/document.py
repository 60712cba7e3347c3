"""A loaded spec: the data, where each JSON path was written, and what the text said beside it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Collector, Position
from .inline import Ignores
from .numbers import Reading


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
    # Strings written over several lines without a block style (`|`, `>`): YAML joined the
    # lines with spaces, which hides a list item indented one level too far (tasks.py).
    joined: set[str] = field(default_factory=set)
    # `# trainspec: ignore[code]` comments by line (config/inline.py; config/apply.py).
    ignores: Ignores = field(default_factory=dict)

    def collector(self) -> Collector:
        return Collector(self.file, self.positions)
