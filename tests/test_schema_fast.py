"""The compiled validator's "valid" (compiler/schema/fast.py) is never wrong: whatever it
accepts, jsonschema with trainspec's rules (compiler/schema/validate.py) accepts too."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from compiler.schema import fast
from compiler.schema import validate as schemas
from compiler.source import read as source

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "tests" / "golden").glob("*/spec.yaml")) + sorted(
    (ROOT / "specs").rglob("*.yaml"))
# Text that ECMA-262, Python's re and Rust's regex read differently.
TRICKY = ["", "a", "job\n", "\njob", "job\r", "a\u2028b", "\u0662", "١٢x٣", "x\u00a0", "\u00a0",
          "é", "ǅ", "a\tb", "a\x01", "\x7f", "gs://b/\n", "1.5", "1\n.5", "9" * 300,
          "projects/1/global/networks/n\n", "us-central1\n", "2x2x\u0661", "n1-standard-8 ",
          "a@b.c\n", "30m\u00a0", "\ufeff30m", "sa@p.iam.gserviceaccount.com"]
NUMBERS: list[Any] = [0, -1, 1, 2.0, 2.5, True, None, 10 ** 20, 2 ** 53 + 1, "3", [], {}]


def slow_valid(data: Any) -> bool:
    return next(schemas.validator().iter_errors(data), None) is None


def load(path: Path) -> Any:
    """The data the pipeline validates (trainspec's own loader)."""
    return source.parse(path.read_bytes(), str(path))[0].data


def leaves(node: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(node, dict):
        return [path] + [p for k, v in node.items() for p in leaves(v, path + (k,))]
    if isinstance(node, list):
        return [path] + [p for i, v in enumerate(node) for p in leaves(v, path + (i,))]
    return [path]


def replaced(data: Any, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(data)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


def test_it_says_valid_only_for_valid_specs_and_for_most_of_them() -> None:
    said = 0
    for path in SPECS:
        data = load(path)
        if not isinstance(data, dict) or data.get("apiVersion") != "trainspec/v1":
            continue
        quick = fast.valid(schemas.schema(), data)
        assert not quick or slow_valid(data), path
        said += quick
    assert said >= 40  # the fast path is taken for most specs


@pytest.mark.parametrize("path", SPECS[::3], ids=lambda p: p.parent.name if
                         p.name == "spec.yaml" else p.stem)
def test_no_mutation_it_accepts_is_refused(path: Path) -> None:
    data = load(path)
    if not isinstance(data, dict) or not fast.valid(schemas.schema(), data):
        pytest.skip("the fast path is not taken for this spec")
    for where in leaves(data)[1:]:
        value = copy.deepcopy(data)
        for part in where:
            value = value[part]
        others = TRICKY if isinstance(value, str) else NUMBERS
        for other in others + ["x-unknown"]:
            mutated = replaced(data, where, other)
            if fast.valid(schemas.schema(), mutated):
                assert slow_valid(mutated), (where, other)
        if isinstance(value, dict):
            mutated = replaced(data, where, {**value, "unknownKey": 1})
            assert not fast.valid(schemas.schema(), mutated) or slow_valid(mutated)


def patterns(node: Any) -> set[str]:
    if isinstance(node, list):
        return {p for n in node for p in patterns(n)}
    if not isinstance(node, dict):
        return set()
    found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
    return found | {p for v in node.values() for p in patterns(v)}


@pytest.mark.parametrize("rule", sorted(patterns(schemas.schema())))
def test_each_pattern_reads_text_as_trainspec_does(rule: str) -> None:
    compiled = jsonschema_rs.validator_for({"type": "string", "pattern": fast.pattern(rule)})
    for text in TRICKY + [t + "\n" for t in TRICKY] + ["us-central1", "2x2", "1.0", "1h30m",
                                                        "projects/p/locations/l/models/m"]:
        assert compiled.is_valid(text) == bool(schemas._ecma(rule).search(text)), (rule, text)


def test_data_json_cannot_hold_takes_the_slow_path() -> None:
    import datetime

    base = load(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml")
    assert fast.valid(schemas.schema(), base)
    for odd in (datetime.date(2024, 1, 1), 2.0, 2 ** 60, {1: "x"}):
        assert not fast.valid(schemas.schema(), replaced(base, ("spec", "region"), odd))
    for where in (("spec", "region"), ("metadata", "name")):  # a lone surrogate
        mutated = replaced(base, where, "us\ud800")
        assert not fast.valid(schemas.schema(), mutated) or slow_valid(mutated)
    assert json.dumps(base)  # the spec itself is plain JSON


def test_without_jsonschema_rs_validate_says_exactly_the_same(tmp_path):
    """jsonschema-rs only speeds up the answer: in an environment made without the lock (no
    jsonschema-rs), `validate` runs and reports the same, every problem included."""
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text()
                   .replace("kind: TrainingJob", "kind: TrainingJob\nunknownKey: 1"))
    hide = ("import sys, importlib.abc\n"
            "class Hide(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'jsonschema_rs':\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, Hide())\n"
            "from compiler.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    runs = []
    for code in (hide, "import sys\nfrom compiler.cli import main\nsys.exit(main(sys.argv[1:]))\n"):
        runs.append(subprocess.run([sys.executable, "-c", code, "validate", "specs", str(bad)],
                                   capture_output=True, text=True, cwd=ROOT, timeout=120))
    assert runs[0].returncode == runs[1].returncode == 1
    assert (runs[0].stdout, runs[0].stderr) == (runs[1].stdout, runs[1].stderr)
    assert "unknownKey" in runs[0].stdout + runs[0].stderr
