"""Specs alike on both sides of a `diff`: compiled once, for both.

A spec at the same path with the same bytes (git's blob id: sides.py reads its bytes from one
side only), the same repo config files that apply, under the same options and stack secrets,
compiles to the same result on both sides, unless it is a python.source spec (its folder is
read from each side's own files: BASE's is compiled again). `compare` then runs the pairing and the cross-spec rules
without those of them that no other spec involves (compare.py: `_quiet`)."""

from __future__ import annotations

from .. import pipeline, tree
from ..config import load as config_load
from .compare import Side


def known(old: Side, new: Side) -> dict[str, pipeline.Result]:
    """Path → the one result (before the cross-spec rules) of each spec alike on both sides,
    compiled with HEAD's files (a python.source spec's is HEAD's only: `compare` compiles
    BASE's); none when the sides' options or stack secrets differ."""
    if old.options != new.options or old.secrets != new.secrets:
        return {}
    seen_old: config_load.Seen = {}
    seen_new: config_load.Seen = {}
    found: dict[str, pipeline.Result] = {}
    for path, content in new.files.items():
        if not isinstance(content, bytes) or old.files.get(path) != content:
            continue
        repo = config_load.find(path, new.sources, seen_new)
        if tree.same_config(repo) != tree.same_config(config_load.find(path, old.sources,
                                                                       seen_old)):
            continue
        found[path] = pipeline.compile_text(content, path, new.options, files=new.sources,
                                            repo=repo)
    return found
