"""A small spec is composed before its limits are checked (source/limits.py: `composable`,
`over`): it says exactly what walking the parser's events first says, for every text.

The walk costs a spec about as much as composing it; these tests hold the quick path to the
walk's answers (diagnostics, positions, data) over the golden specs, texts at and past the
limits, texts that do not compose, and generated YAML, and check a typical spec is not walked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.source import limits
from compiler.source import read as source

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*/spec.yaml"))
CI = settings(derandomize=True, database=None, deadline=None, print_blob=False,
              max_examples=400)


def parsed(text: str | bytes) -> tuple:
    doc, found = source.parse(text, "spec.yaml")
    return doc.data, doc.positions, doc.raw, doc.suspect, doc.joined, \
        [d.format() for d in found]


def walked_first(monkeypatch, text: str | bytes) -> tuple:
    """What parse says when every text is walked before it is composed (as before)."""
    with monkeypatch.context() as m:
        m.setattr(source, "composable", lambda _text: False)
        return parsed(text)


def nest(open_: str, close: str, levels: int, inner: str = "x") -> str:
    return "a: " + open_ * levels + inner + close * levels + "\n"


EDGES = {
    "flow-64": nest("[", "]", 64), "flow-65": nest("[", "]", 65),
    "flow-map-65": nest("{a: ", "}", 65, "1"),
    "dash-66": "- " * 66 + "a\n", "dash-64": "- " * 64 + "a\n",
    "indent-70": "".join(" " * i + "a:\n" for i in range(70)) + " " * 70 + "b\n",
    "empty-deep": nest("[", "]", 100, ""),  # no value inside: nothing over a limit
    "unclosed-deep": "a: " + "[" * 70 + "x\n",  # a limit passed before the syntax error
    "unclosed": "a: [x\n", "tab": "a:\n\tb: 1\n", "two-docs": "a: 1\n---\nb: 2\n",
    "control": "a: \x01\n", "alias-deep": "a: &a " + "[" * 60 + "x" + "]" * 60
    + "\nb: [[[[[[*a]]]]]]\n",
    "recursive": "a: &a [*a]\n", "merge": "a: &a {x: 1}\nb: {<<: *a, y: 2}\n",
    "many-nodes": "{" + "a," * 30_000 + "}\n", "fewer-nodes": "{" + "a," * 20_000 + "}\n",
    "scalar": "just text\n", "empty": "# nothing\n", "null": "~\n",
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_the_quick_path_says_what_the_walk_says_at_the_limits(monkeypatch, name) -> None:
    text = EDGES[name]
    assert limits.composable(text), "each edge is small enough for the quick path"
    assert parsed(text) == walked_first(monkeypatch, text)


def test_a_limit_passed_on_the_quick_path_is_reported_where_the_walk_finds_it() -> None:
    _, found = source.parse(EDGES["flow-65"], "deep.yaml")
    assert [d.format() for d in found] == [
        "deep.yaml:1:67: error: $: nesting deeper than 64 levels [yaml-limits]"]
    _, found = source.parse(EDGES["unclosed-deep"], "deep.yaml")
    assert [(d.code, d.message) for d in found] == [
        ("yaml-limits", "nesting deeper than 64 levels")]


@pytest.mark.parametrize("spec", GOLDEN, ids=lambda p: p.parent.name)
def test_the_quick_path_reads_every_golden_spec_as_the_walk_does(monkeypatch, spec) -> None:
    text = spec.read_bytes()  # as read: one golden spec is not UTF-8
    assert parsed(text) == walked_first(monkeypatch, text)


def test_a_typical_spec_is_composed_without_walking_its_events(monkeypatch) -> None:
    def refuse(*_args) -> None:
        raise AssertionError("the event stream was walked")

    monkeypatch.setattr(limits._Walk, "run", refuse)
    text = (ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text(encoding="utf-8")
    doc, found = source.parse(text, "spec.yaml")
    assert doc.data is not None and not [d for d in found if d.is_error]


# YAML built from the characters that open, close and separate levels, anchors and aliases.
_PIECES = st.sampled_from(["[", "]", "{", "}", ",", "- ", "? ", ": ", "\n", "  ", "a", "1",
                           "&x ", "*x", "<<: ", "'q'", "!!int ", "#c", "\t", "x: ", "~"])


@CI
@given(st.lists(_PIECES, max_size=120).map("".join), st.integers(0, 80))
@example("a: " + "[" * 65 + "x", 0)
@example("- - - &x [a]\n  - *x\n", 3)
@example("*x", 20)  # an error at the end of the text: the walk read past it (IndexError)
def test_the_quick_path_says_what_the_walk_says_for_generated_yaml(text, depth) -> None:
    text = "[" * depth + text  # some texts near the nesting limit
    with pytest.MonkeyPatch.context() as m:
        quick = parsed(text)
        m.setattr(source, "composable", lambda _text: False)
        assert quick == parsed(text)


def _tags(node, loader_tags: list) -> list:
    if isinstance(node, yaml.ScalarNode):
        loader_tags.append((node.value, node.tag))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _tags(item, loader_tags)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _tags(key, loader_tags)
            _tags(value, loader_tags)
    return loader_tags


@pytest.mark.parametrize("text", [
    "a: yes\nb: 'yes'\nc: yes\n'd': \"1\"\ne: 1\nf: !!str 1\ng: 1\n",  # one text, each style
    "b: 'yes'\na: yes\nf: !!str 1\ng: 1\nh: ~\ni: '~'\nj: 0o17\nk: 1e3\nl: 1.0e3\n",
])
def test_the_loader_tags_each_scalar_as_pyyaml_does(text) -> None:
    for _ in range(2):  # the second time from what the first kept
        ours = _tags(yaml.compose(text, Loader=limits.Loader), [])
        assert ours == _tags(yaml.compose(text, Loader=yaml.SafeLoader), [])
