"""Specs alike on both sides of a `diff`: compiled once, for both.

A spec at the same path with the same bytes (git's blob id: sides.py reads its bytes from one
side only), the same repo config files that apply, under the same options and stack secrets,
compiles to the same result on both sides, unless it is a python.source spec (its folder is
read from each side's own files: BASE's is compiled again). `compare` then runs the pairing
and the cross-spec rules without those of them that no other spec involves (compare.py:
`_quiet`)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from .. import pipeline, tree
from ..config import load as config_load
from ..diagnostics import Diagnostic
from .compare import Side
from .sides import Vouched, blob_id, readable

if TYPE_CHECKING:
    from ..cache import Cache


def known(old: Side, new: Side, cache: Cache | None = None) -> dict[str, pipeline.Result]:
    """Path → the one result (before the cross-spec rules) of each spec alike on both sides,
    compiled with HEAD's files (a python.source spec's is HEAD's only: `compare` compiles
    BASE's); none when the sides' options or stack secrets differ. `cache`: HEAD is the
    working tree, its spec paths are relative to the current folder: results are read from
    and stored in the result cache (compiler/cache.py) as `validate` does (they carry no
    model or document: `compare` compiles again any it needs in full)."""
    if old.options != new.options or old.secrets != new.secrets:
        return {}
    seen: config_load.Seen = {}
    configs: dict[str, bool] = {}  # folder → its specs have the same repo config on both sides
    alike: dict[str, bytes | Vouched] = {}
    for path, content in new.files.items():
        if isinstance(content, Diagnostic) or old.files.get(path) != content:
            continue
        # What differs between two specs of a folder is their path, the same on both sides.
        folder = posixpath.dirname(path)
        if folder not in configs:
            configs[folder] = tree.same_config(config_load.find(path, new.sources, seen)) == \
                tree.same_config(config_load.find(path, old.sources))
        if configs[folder]:
            alike[path] = content
    if cache is not None:  # their blob ids are known: read only to compile a miss
        return dict(zip(alike, tree.compile_many(list(alike), new.options, 1, {}, cache, {
            p: c.blob if isinstance(c, Vouched) else blob_id(c) for p, c in alike.items()})))
    return {path: pipeline.compile_text(readable(content), path, new.options,  # type: ignore[arg-type]
                                        files=new.sources, seen=seen)
            for path, content in alike.items()}
