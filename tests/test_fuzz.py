"""Fuzzing the CLI over the real specs (issue 16 §2): odd scalar text, explicit and bad tags,
a value of another type, keys with control characters.

These mutation families found 365 tracebacks (PyYAML's converters raised on `0x_`, `!!int x`,
`!!bool maybe`, `!!float ""`): every command must instead exit 0 or 1 and print each
diagnostic as one `file:line:col: severity: ...` line (or its json/sarif/github form) naming
the input file. The commands run in-process through the CLI entry point, deterministic
(derandomize, no example database) and bounded: the file runs in well under a minute on 2 slow
cores. The crashes found are pinned below the fuzz tests as plain regression tests.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compiler.cli import main
from compiler.source import read as source
from compiler.testing import to_yaml, value_paths

ROOT = Path(__file__).resolve().parent.parent
# The real specs, copied with the folders they name (examples/trainer is a python.source).
TREES = ("specs", "examples")
SPECS = sorted(str(p.relative_to(ROOT)) for tree in TREES for p in (ROOT / tree).rglob("*.yaml")
               if "apiVersion: trainspec/" in p.read_text(encoding="utf-8"))

CI = settings(derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Plain text YAML 1.1 (PyYAML) resolves to a number it cannot convert (0x_), numbers YAML 1.1
# and 1.2 read differently, and explicit tags whose text is not of their type.
ODD_SCALARS = (
    "0x_", "0b_", "-0b_", "+0x_", "0o_", "-0x", "0b2", "1_", "_1", "0_", "1__0", "1:_",
    "1e99999", "1.0e99999", "+.inf", "-.inf", ".nan", "0600", "1:30", "190:20:30",
    "99999999999999999999", "9" * 5000, "1" + ":59" * 2000, "2001-13-14", "~", "''", "yes",
    "!!int x", "!!int 0x_", "!!int 1e3", "!!int ''", "!!bool maybe", "!!bool 1", '!!float ""',
    "!!float x", "!!float 0b_", "!!float 1e99999", "!!timestamp x", "!!binary %%%",
    "!!binary aGk=", "!!null x", "!!str {a: 1}", "!!str [1]", "!!map x", "!!seq x",
    "!!set {a}", "!!omap [a: 1]", "!foo x", "!!python/object x", "!!python/name:os.system ''",
    "!<tag:yaml.org,2002:int> x", "! x", "&a !!int x", "!!int &a x",
)
TAGS = ("!!int", "!!float", "!!bool", "!!null", "!!str", "!!timestamp", "!!binary", "!!map",
        "!!seq", "!!set", "!!omap", "!!merge", "!!value", "!foo", "!", "!!python/object",
        "!!python/object/apply:os.system", "!<tag:yaml.org,2002:int>", "!<!>")
CONTROL = ("\n", "\r", "\x1b", "\t", "\u2028", "\x85")
KINDS = ("list", "map", "string", "integer", "float", "bool", "null")
# The spec is the file after each command's words; "-" reads it from stdin.
COMMANDS = (("validate", "--format", "text"), ("validate", "--format", "json"),
            ("validate", "--format", "sarif"), ("validate", "--format", "github"),
            ("validate", "-"), ("compile",), ("explain",))
PLACE = "fuzz-placeholder-7f3a"  # stands for a value until the text is written


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Path:
    """specs/ and examples/ copied into a repository (Pulumi.yaml marks its root), so a
    mutated spec sits where its relative paths point."""
    root = tmp_path_factory.mktemp("fuzz")
    for tree in TREES:
        shutil.copytree(ROOT / tree, root / tree)
    shutil.copy(ROOT / "Pulumi.yaml", root)
    return root


@functools.cache
def spec_data(name: str) -> dict:
    """The spec's data (shared: the families below change copies only)."""
    doc, found = source.read(str(ROOT / name))
    assert doc.data is not None and not found, found
    return doc.data


@functools.cache
def paths(name: str) -> tuple[tuple, ...]:
    return tuple(value_paths(spec_data(name)))


def value_at(data, path: tuple):
    for key in path:
        data = data[key]
    return data


def replaced(data: dict, path: tuple, value) -> dict:
    """A copy of `data` with `value` at `path` (the root itself when `path` is empty)."""
    if not path:
        return value
    out = copy.deepcopy(data)
    value_at(out, path[:-1])[path[-1]] = value
    return out


def with_text(data: dict, path: tuple, text: str) -> str:
    """The YAML of `data` with `text` written as is where `path` was."""
    yaml_text = to_yaml(replaced(data, path, PLACE))
    assert yaml_text.count(PLACE) == 1
    return yaml_text.replace(PLACE, text)


# -- the mutation families --------------------------------------------------------------------

def odd_scalar(data: dict, path: tuple, odd: str) -> str:
    return with_text(data, path, odd)


def tagged(data: dict, path: tuple, tag: str, alias: bool) -> str:
    """The value at `path` written with an explicit `tag`, or anchored and aliased under the
    tag (a tag on an alias)."""
    flow = json.dumps(value_at(data, path), ensure_ascii=False)
    if not alias:
        return with_text(data, path, f"{tag} {flow}")
    return with_text(data, path, f"&fz {flow}") + f"fuzz-alias: {tag} *fz\n"


def swapped(data: dict, path: tuple, kind: str) -> str:
    value = value_at(data, path)
    other = {"list": [value], "map": {"key": value}, "string": "text", "integer": 7,
             "float": 2.5, "bool": True, "null": None}[kind]
    return to_yaml(replaced(data, path, other))


def control_key(data: dict, path: tuple, char: str) -> str:
    """A key holding `char` added to the mapping at `path` (or its nearest mapping above)."""
    out = copy.deepcopy(data)
    at, where = out, out
    for key in path:
        at = at[key]
        if isinstance(at, dict):
            where = at
    where[f"fuzz{char}key"] = 1
    return to_yaml(out)


# -- what every command must do -------------------------------------------------------------

def run(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err, stdin=io.BytesIO(stdin))
    return code, out.getvalue(), err.getvalue()


def diagnostic_line(file: str) -> re.Pattern:
    return re.compile(rf"{re.escape(file)}:\d+:\d+: (error|warning): \S")


SUMMARY = re.compile(r"\d+ spec\(s\) checked, \d+ with errors( and \d+ with warnings)?$")


def assert_behaves(command: tuple[str, ...], file: Path, text: str, escaped: bool = True) -> int:
    """Exit 0 or 1 (returned), no traceback, every diagnostic located in `file` (or `<stdin>`)
    and, if `escaped`, one line each (a key's control character printed raw breaks a line)."""
    stdin = command[-1] == "-"
    argv = list(command) if stdin else [*command, str(file)]
    shown = source.STDIN_NAME if stdin else str(file)
    code, out, err = run(argv, text.encode("utf-8"))
    where = f"{' '.join(argv)}:\n{text}\n--- stdout\n{out[-3000:]}\n--- stderr\n{err}"
    assert code in (0, 1), where
    assert "Traceback" not in out + err, where
    line = diagnostic_line(shown)
    if command[-1] in ("json", "sarif"):
        report = json.loads(out)
        located = ([(d["file"], d["line"], d["column"]) for d in report["diagnostics"]]
                   if command[-1] == "json" else
                   [(loc["physicalLocation"]["artifactLocation"]["uri"],
                     loc["physicalLocation"]["region"]["startLine"],
                     loc["physicalLocation"]["region"]["startColumn"])
                    for r in report["runs"][0]["results"] for loc in r["locations"]])
        assert all(f == shown and ln >= 1 and col >= 1 for f, ln, col in located), where
        assert located or code == 0, where
        return code
    if not escaped:
        assert code == 0 or diagnostic_line(shown).search(out + err) or \
            f"file={shown}," in out, where
        return code
    if command[-1] == "github":
        github = re.compile(rf"::(error|warning) file={re.escape(shown)},line=\d+,col=\d+[,:]")
        assert all(github.match(x) for x in out.splitlines()), where
        assert out or code == 0, where
        return code
    # Text: diagnostics on stderr, one line each (splitlines also breaks at U+2028, U+0085).
    lines = err.splitlines()
    assert all(line.match(x) or SUMMARY.match(x) for x in lines), where
    assert any(line.match(x) for x in lines) or code == 0, where
    if command[0] == "validate":  # as many lines as the json report has diagnostics
        _, report, _ = run(["validate", "--format", "json", argv[-1]], text.encode("utf-8"))
        count = len(json.loads(report)["diagnostics"])
        assert sum(1 for x in lines if line.match(x)) == count, where
    return code


def write(copies: Path, name: str, text: str) -> Path:
    """The mutated spec, beside the original's copy (its relative paths resolve the same)."""
    path = copies / Path(name).with_name("fuzzed.yaml")
    path.write_text(text, encoding="utf-8")
    return path


# -- the fuzz tests ---------------------------------------------------------------------------

@st.composite
def targets(draw) -> tuple[str, tuple]:
    """A real spec and a place in it (a key's value, a list item, the whole document)."""
    name = draw(st.sampled_from(SPECS))
    return name, draw(st.sampled_from(paths(name)))


@settings(CI, max_examples=120)
@given(targets(), st.sampled_from(ODD_SCALARS), st.sampled_from(COMMANDS))
@example(("specs/nlp/bert-cpu-smoke.yaml", ("metadata", "name")), "0x_", COMMANDS[0])
def test_odd_scalars(copies, target, odd, command) -> None:
    name, path = target
    text = odd_scalar(spec_data(name), path, odd)
    assert_behaves(command, write(copies, name, text), text)


@settings(CI, max_examples=80)
@given(targets(), st.sampled_from(TAGS), st.booleans(), st.sampled_from(COMMANDS))
def test_explicit_and_bad_tags(copies, target, tag, alias, command) -> None:
    name, path = target
    text = tagged(spec_data(name), path, tag, alias)
    assert_behaves(command, write(copies, name, text), text)


@settings(CI, max_examples=80)
@given(targets(), st.sampled_from(KINDS), st.sampled_from(COMMANDS))
def test_values_of_another_type(copies, target, kind, command) -> None:
    name, path = target
    text = swapped(spec_data(name), path, kind)
    assert_behaves(command, write(copies, name, text), text)


@settings(CI, max_examples=60)
@given(targets(), st.sampled_from(CONTROL), st.sampled_from(COMMANDS))
def test_keys_with_control_characters(copies, target, char, command) -> None:
    name, path = target
    text = control_key(spec_data(name), path, char)
    assert_behaves(command, write(copies, name, text), text, escaped=False)


@settings(CI, max_examples=30)
@given(targets(), st.sampled_from(CONTROL), st.sampled_from(COMMANDS))
def test_keys_with_control_characters_print_one_line_per_diagnostic(copies, target, char,
                                                                     command) -> None:
    name, path = target
    text = control_key(spec_data(name), path, char)
    assert_behaves(command, write(copies, name, text), text)


# Number-like text (what YAML 1.1's int, float, bool, null and timestamp patterns look at)
# under every scalar tag, in block and flow context: read, or refused with a located error.
NUMBER_LIKE = st.from_regex(r"[-+]?(0[xbo]?)?[0-9a-fA-F_:.eEnNoOyY~+-]{0,10}", fullmatch=True)
PREFIXES = ("", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!!str ", "&a ",
            "&a !!float ")


@settings(CI, max_examples=300)
@given(st.sampled_from(PREFIXES), NUMBER_LIKE, st.booleans())
@example("", "0x_", False)
@example("!!int ", "1:_", True)
def test_number_like_text_under_any_tag_is_read_or_refused_located(prefix, text, exponents):
    for yaml_text in (f"a: {prefix}{text}\n", f"a: [{prefix}{text}]\n", f"a: {prefix}'{text}'\n"):
        doc, found = source.parse(yaml_text, "s.yaml", exponents=exponents)
        assert (doc.data is None) == bool(found), (yaml_text, found)
        assert all(d.position is not None and d.code for d in found), (yaml_text, found)


# -- regressions: the crashes these families found, each pinned --------------------------------

SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: job
  description: ODD
spec:
  region: us-central1
  container: {image: gcr.io/p/t:1}
  pools:
    chief: {machineType: n1-standard-8}
"""


def description(odd: str):
    doc, found = source.parse(SPEC.replace("ODD", odd), "s.yaml")
    return doc.data["metadata"]["description"], [d.format() for d in found]


# Plain text YAML 1.1 resolves to a number that has no digits (PyYAML's int() raised) or
# that only YAML 1.2 reads as a number: the string YAML 1.2 reads, as source/numbers.py says.
@pytest.mark.parametrize("odd,text", [
    ("0x_", "0x_"), ("0b_", "0b_"), ("-0b_", "-0b_"), ("+0x_", "+0x_"), ("0o_", "0o_"),
    ("-0x", "-0x"), ("0b2", "0b2"), ("_1", "_1"), ("1e99999", "1e99999"),
    ("!!str 0x_", "0x_"), ("&a 0x_", "0x_"), ("'!!int x'", "!!int x"),
])
def test_text_yaml_1_2_reads_as_a_string_is_the_string(tmp_path, odd, text) -> None:
    assert description(odd) == (text, [])
    path = tmp_path / "s.yaml"
    path.write_text(SPEC.replace("ODD", odd))
    for command in COMMANDS:
        assert assert_behaves(command, path, path.read_text()) == 0, command


@pytest.mark.parametrize("odd,value", [
    ("!!int 12", 12), ("!!int '12'", 12), ("!!int 0x1f", 31), ("!!float 1", 1.0),
    ("!!float 1e5", 100000.0), ("!!float 2.5", 2.5), ("!!bool yes", True), ("!!bool off", False),
    ("!!null ~", None), ("!!null ''", None), ("!!timestamp 2001-12-14", "2001-12-14"),
    ("&a !!int 5", 5), ("!!int &a 5", 5), ("!<tag:yaml.org,2002:int> 5", 5),
])
def test_an_explicit_tag_on_text_of_its_type_is_read(odd, value) -> None:
    read, found = description(odd)
    assert read == value and type(read) is type(value)
    assert not any("yaml-" in d for d in found), found


def test_an_explicit_str_tag_keeps_an_exponent_text_where_json_numbers_are_read() -> None:
    doc, found = source.parse("a: [1e-05, !!str 1e-05, &x !!str 2E5, '3e1']\n", "c.yaml",
                              exponents=True)
    assert doc.data == {"a": [1e-05, "1e-05", "2E5", "3e1"]} and not found


LONG = "9" * 5000


# Each crashed validate (every format, stdin), compile and explain; now a located error.
@pytest.mark.parametrize("odd,where,message", [
    ("!!int x", "5:16", "cannot read 'x' as an integer: it is tagged !!int (!!int is written 12, "
     "-3, 0x1f or 1_000; drop the tag for text) [yaml-value]"),
    ("!!bool maybe", "5:16", "cannot read 'maybe' as a boolean: it is tagged !!bool (!!bool is "
     "written true/false, yes/no or on/off; drop the tag for text) [yaml-value]"),
    ('!!float ""', "5:16", "cannot read '' as a number: it is tagged !!float"),
    ("!!float x", "5:16", "cannot read 'x' as a number: it is tagged !!float"),
    ("!!int 0x_", "5:16", "cannot read '0x_' as an integer: it is tagged !!int"),
    ("!!int 1e3", "5:16", "cannot read '1e3' as an integer"),
    ("!!int 1:_", "5:16", "cannot read '1:_' as an integer"),
    ("!!int '-'", "5:16", "cannot read '-' as an integer"),
    ("!!float 0b_", "5:16", "cannot read '0b_' as a number"),
    ("!!null x", "5:16", "cannot read 'x' as null: it is tagged !!null (!!null is written ~, null "
     "or nothing; drop the tag for text) [yaml-value]"),
    ("!!timestamp x", "5:16", "cannot read 'x' as a timestamp: it is tagged !!timestamp"),
    ("&a !!bool maybe", "5:16", "cannot read 'maybe' as a boolean"),
    (LONG, "5:16", f"cannot read '{LONG[:40]}…' as an integer: it has 5000 digits, more than "
     "4300 (no API takes a number that long; quote it for text) [yaml-value]"),
    ("1" + ":59" * 2000, "5:16", "as an integer: it has 6001 digits, more than 4300"),
    ("!foo x", "5:16", "unsupported tag '!foo'"),
    ("!!python/object x", "5:16", "unsupported tag 'tag:yaml.org,2002:python/object'"),
    ("!!str {a: 1}", "5:16", "unsupported tag 'tag:yaml.org,2002:str'"),
    ("!!map x", "5:16", "unsupported tag 'tag:yaml.org,2002:map'"),
    ("!!binary %%%", "5:25", "$: invalid YAML: found character that cannot start any token"),
    ("&a 1\n  run: !!int *a", "6:14", "$: invalid YAML: did not find expected key"),
])
def test_text_not_of_its_tags_type_is_a_located_error_in_every_command(tmp_path, odd, where,
                                                                       message) -> None:
    text = SPEC.replace("ODD", odd)
    path = tmp_path / "s.yaml"
    path.write_text(text)
    for command in COMMANDS:
        assert assert_behaves(command, path, text) == 1, command
    for argv in (["validate", str(path)], ["validate", "-"], ["compile", str(path)],
                 ["explain", str(path)]):
        shown = source.STDIN_NAME if argv[-1] == "-" else str(path)
        code, out, err = run(argv, text.encode("utf-8"))
        (line,) = [x for x in err.splitlines() if diagnostic_line(shown).match(x)]
        assert line.startswith(f"{shown}:{where}: error: ") and message in line, (argv, err)


def test_a_config_file_with_an_unreadable_tag_is_a_located_error(tmp_path) -> None:
    (tmp_path / ".git").mkdir()  # the repository's root: no config above it is read
    (tmp_path / "trainspec.yaml").write_text("policy:\n  maxAcceleratorsPerJob: !!int x\n")
    (tmp_path / "s.yaml").write_text(SPEC.replace("ODD", "plain"))
    code, _, err = run(["validate", str(tmp_path / "s.yaml")])
    assert code == 1 and "Traceback" not in err
    # The config is named as the CLI shows paths (relative to the current folder when shorter).
    assert "trainspec.yaml:2:26: error: $.policy.maxAcceleratorsPerJob: cannot read 'x' as an " \
           "integer" in err


def test_import_writes_text_yaml_reads_as_a_number_quoted_and_refuses_bad_tags(tmp_path) -> None:
    pool = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "containerSpec": {"imageUri": "gcr.io/p/t:1", "args": ["0x_", "-0b_", LONG],
                              "env": [{"name": "A", "value": "0b_"}]}}
    config = tmp_path / "job.json"
    config.write_text(json.dumps({"workerPoolSpecs": [pool]}))
    code, out, err = run(["import", str(config), "--region", "us-central1"])
    assert code == 0, err  # PyYAML raised on "0x_" when checking it could be written plain
    assert '"0x_"' in out and '"-0b_"' in out and f'"{LONG}"' in out and 'A: "0b_"' in out
    assert run(["validate", "-"], out.encode())[0] == 0
    config = tmp_path / "job.yaml"
    config.write_text("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n"
                      "  containerSpec: {imageUri: gcr.io/p/t:1, args: [0x_, !!int x]}\n")
    code, out, err = run(["import", str(config), "--region", "us-central1"])
    assert code == 1 and out == ""
    assert err.startswith(f"{config}:3:55: error: $.workerPoolSpecs[0].containerSpec.args[1]: "
                          "cannot read 'x' as an integer")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_reads_odd_scalars_at_both_revisions(tmp_path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.email=t@e", "-c", "user.name=t",
                        *args], check=True, capture_output=True)

    spec = tmp_path / "specs" / "job.yaml"
    spec.parent.mkdir()
    git("init", "-q", "-b", "main")
    for odd in ("0x_", "!!int x"):
        spec.write_text(SPEC.replace("ODD", odd))
        git("add", "-A")
        git("commit", "-qm", odd)
    for odd in ("-0b_", "!!bool maybe"):
        spec.write_text(SPEC.replace("ODD", odd))
        code, out, err = run(["diff", "main~1", "--repo", str(tmp_path)])
        assert code in (0, 1) and "Traceback" not in out + err, (out, err)
        if odd.startswith("!!"):
            assert "cannot read 'maybe' as a boolean" in out + err, (out, err)
    code, out, err = run(["diff", "main~1", "main", "--repo", str(tmp_path)])
    assert code == 1 and "cannot read 'x' as an integer" in out + err, (out, err)
