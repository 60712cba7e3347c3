"""Hostile input never crashes, hangs or eats memory (issue 8 §2).

Every command runs as a subprocess under a 1 GB address-space limit and 10 s of CPU time (a
command that runs longer is killed by SIGXCPU and fails its test), and a hang, which spends no
CPU, is caught by a wall-clock timeout: these are limits, not benchmarks, and hold on a loaded
machine too. Before the fix ~30,000 nested '[' (60 KB)
segfaulted libyaml's composer (rc 139), a folder of them broke the process pool, and a spec
near the old 4 MiB cap took seconds and hundreds of MB.
"""

from __future__ import annotations

import io
import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from compiler import cli, emit, tree
from compiler.source import limits as yaml_limits
from compiler.source import read as source

ROOT = Path(__file__).resolve().parent.parent
LIMIT_BYTES = 1 << 30
LIMIT_SECONDS = 10  # CPU seconds a command may spend
HANG_SECONDS = 60  # wall clock: a blocking read spends no CPU, a loaded CI machine stretches time
LOCATED = re.compile(r"^.+:\d+:\d+: error: \$", re.MULTILINE)
pytestmark = pytest.mark.slow

HEAD = "apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: h}\nspec:\n"


def hostile_files() -> dict[str, str]:
    """Generated hostile specs: deep, wide, bombs, and one over the size limit."""
    levels = 1400  # block nesting by indentation, ~1 MB
    return {
        "deep-flow.yaml": "a: " + "[" * 30_000 + "]" * 30_000 + "\n",
        "deep-flow-json.json": '{"a": ' + "[" * 30_000 + "]" * 30_000 + "}\n",
        "deep-map.yaml": "a: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n",
        "deep-dash.yaml": "- " * 30_000 + "a\n",
        "deep-indent.yaml": "".join(" " * i + "a:\n" for i in range(levels)) + " " * levels + "b\n",
        "wide-flow.yaml": HEAD + "  x: [" + "[]," * 330_000 + "]\n",
        "many-keys.yaml": HEAD + "".join(f"  key_{i}: {i}\n" for i in range(60_000)),
        "many-labels.yaml": HEAD.replace("{name: h}", "\n  name: h\n  labels:\n"
                                         + "".join(f"    k{i}: v\n" for i in range(40_000))),
        "alias-bomb.yaml": "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "".join(
            f"{c}: &{c} [{','.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh")),
        "merge-bomb.yaml": "a0: &a0 {" + ", ".join(f"k{i}: {i}" for i in range(1000)) + "}\n"
        + "".join(f"a{n}: &a{n} {{<<: [{', '.join([f'*a{n - 1}'] * 10)}]}}\n"
                  for n in range(1, 8)),
        # A 1 MB anchored scalar used as a key at 60 levels: 3.6 GB of JSON paths before the
        # composer counted characters; as a value 10,000 times, 10 GB of values to send.
        "alias-key-bomb.yaml": "a: &k " + "k" * 1_000_000 + "\nb:\n"
        + "".join(" " * (2 * i + 2) + "*k :\n" for i in range(60)) + " " * 122 + "x\n",
        "alias-value-bomb.yaml": HEAD + "  args: &v [" + "v" * 1_000_000 + "]\n  x: ["
        + ", ".join(["*v"] * 10_000) + "]\n",
        # No alias: one long explicit key above 20,000 values, each path holding the key.
        "long-key-parent.yaml": "? " + "k" * 600_000 + "\n:\n"
        + "".join(f"  x{i}: 1\n" for i in range(20_000)),
        "long-scalar.yaml": HEAD.replace("{name: h}", "{name: '" + "x" * 1_000_000 + "'}")
        + "  container: {image: gcr.io/p/t:1}\n",
        # A 600 KB base-60 integer: PyYAML's conversion is quadratic in its length (20 s).
        "long-base60.yaml": HEAD + "  x: 1" + ":59" * 200_000 + "\n",
        # Under the old 4 MiB cap: 1.3 million nodes took 10 s and 500 MB to refuse.
        "too-big.yaml": HEAD + "  x: [" + "[]," * 1_300_000 + "]\n",
    }


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (LIMIT_SECONDS, LIMIT_SECONDS + 1))


def run_limited(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "compiler", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, preexec_fn=limited,
                          timeout=HANG_SECONDS)


def assert_refused(proc: subprocess.CompletedProcess, what: str, report: bool = False) -> None:
    """Exit 1, no traceback, a located message (on stderr; `diff` puts it in its report)."""
    text = proc.stdout + proc.stderr if report else proc.stderr
    assert proc.returncode == 1, f"{what}: exit {proc.returncode}\n{text[-2000:]}"
    assert "Traceback" not in proc.stderr, f"{what}:\n{proc.stderr[-2000:]}"
    assert LOCATED.search(text), f"{what}: no located message\n{text[-2000:]}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    for name, text in hostile_files().items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("name", sorted(hostile_files()))
@pytest.mark.parametrize("command", ["validate", "compile", "explain", "import"])
def test_every_command_refuses_a_hostile_file_within_limits(hostile, name, command) -> None:
    if command == "import" and name in ("many-keys.yaml", "many-labels.yaml", "long-scalar.yaml"):
        pytest.skip("a trainspec spec, not an import source")  # refused as such, not by limits
    proc = run_limited(command, str(hostile / name))
    assert_refused(proc, f"{command} {name}")
    assert proc.stdout == "" or command == "validate"


def test_a_folder_of_hostile_files_is_refused_file_by_file(tmp_path) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    deep = hostile_files()["deep-flow.yaml"]
    for i in range(tree.PARALLEL_THRESHOLD + 50):  # large enough for worker processes
        (folder / f"deep{i:03}.yaml").write_text(deep)
    for argv in (["validate", str(folder)], ["compile", str(folder), "--out", str(tmp_path / "o")]):
        proc = run_limited(*argv)
        assert_refused(proc, " ".join(argv))
        assert "BrokenProcessPool" not in proc.stderr
        assert proc.stderr.count("nesting deeper than 64 levels") == tree.PARALLEL_THRESHOLD + 50
    assert not (tmp_path / "o").exists()


def test_a_dead_worker_is_an_error_not_a_traceback(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    for i in range(tree.PARALLEL_THRESHOLD):
        shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", folder / f"s{i}.yaml")
    monkeypatch.setattr(tree, "_compile_chunk", _die)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", "--jobs", "2", str(folder)], out, err) == 1
    assert "a worker process compiling 200 spec(s) died" in err.getvalue()


def _die(_chunk):  # module level: a worker process unpickles it by name
    os._exit(3)


def _empty_repo(tmp_path: Path) -> tuple[Path, list[str]]:
    """A git repository whose main branch has one empty commit, with an empty specs/ folder."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q",
                    "--allow-empty", "-m", "base"], check=True)
    return repo, git


def test_diff_refuses_hostile_files_on_both_sides_within_limits(hostile, tmp_path) -> None:
    repo, git = _empty_repo(tmp_path)
    for name in hostile_files():
        if name.endswith(".yaml"):
            shutil.copy(hostile / name, repo / "specs" / name)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m",
                    "hostile"], check=True)
    n = sum(name.endswith(".yaml") for name in hostile_files())
    for argv in (["diff", "main~1", "main"], ["diff", "main~1"]):  # a commit, the work tree
        proc = run_limited(*argv, "--repo", str(repo))
        assert_refused(proc, " ".join(argv), report=True)
        assert f"{n} of {n} spec file(s) changed: {n} error" in proc.stdout


# -- hostile repo configs (docs/config.md) ------------------------------------------------------

def hostile_pyprojects() -> dict[str, str]:
    """[tool.trainspec] tables that are deep, wide or over the size limit."""
    head = "[tool.trainspec]\n"
    return {
        "deep-array": head + "ignore = " + "[" * 30_000 + "]" * 30_000 + "\n",
        "deep-table": head + "severity = " + "{a = " * 20_000 + "1" + "}" * 20_000 + "\n",
        "wide-array": head + "ignore = [" + ", ".join(f'"c{i}"' for i in range(90_000)) + "]\n",
        "too-big": head + "ignore = []\n" + "#" * (1 << 21) + "\n",
    }


def config_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    (repo / ".git").mkdir()
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", repo / "specs" / "job.yaml")
    for name, text in files.items():
        (repo / name).write_text(text)
    return repo


@pytest.mark.parametrize("name", sorted(hostile_files()))
def test_a_hostile_trainspec_yaml_is_refused_within_limits(hostile, tmp_path, name) -> None:
    repo = config_repo(tmp_path, {"trainspec.yaml": (hostile / name).read_text()})
    proc = run_limited("validate", "specs", cwd=repo)
    assert_refused(proc, f"trainspec.yaml = {name}")
    assert "trainspec.yaml:" in proc.stderr


@pytest.mark.parametrize("name", sorted(hostile_pyprojects()))
def test_a_hostile_pyproject_is_refused_within_limits(tmp_path, name) -> None:
    repo = config_repo(tmp_path, {"pyproject.toml": hostile_pyprojects()[name]})
    proc = run_limited("validate", "specs", cwd=repo)
    assert_refused(proc, f"pyproject.toml = {name}")
    assert "pyproject.toml:" in proc.stderr


# -- files that are not spec files -------------------------------------------------------------

@pytest.fixture()
def odd_tree(tmp_path) -> Path:
    """A spec folder holding what a working tree can hold besides spec files."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", specs / "good.yaml")
    (specs / "zero.yaml").symlink_to("/dev/zero")
    (specs / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    os.mkfifo(specs / "pipe.yaml")
    with open(specs / "huge.yaml", "wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: big on paper, nothing on disk
    (specs / "new\nline.yaml").write_text("apiVersion: trainspec/v1\n")
    return tmp_path


ODD = {"zero.yaml": "not a regular file (a character device)",
       "dangling.yaml": "broken symbolic link",
       "pipe.yaml": "not a regular file (a named pipe)",
       "huge.yaml": "file is larger than 1 MiB",
       "new\\nline.yaml": "the file name holds a control character"}


def test_validate_reports_each_odd_file_located_without_blocking(odd_tree) -> None:
    proc = run_limited("validate", str(odd_tree / "specs"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    for name, message in ODD.items():
        assert f"{odd_tree / 'specs'}/{name}:1:1: error: $: {message}" in proc.stderr, name
    assert "good.yaml" not in proc.stderr  # a good spec beside them is just good
    assert "6 spec(s) checked, 5 with errors" in proc.stderr
    for name in ("zero.yaml", "pipe.yaml"):  # named directly, too
        named = run_limited("validate", str(odd_tree / "specs" / name))
        assert named.returncode == 1 and ODD[name] in named.stderr
    named = run_limited("import", str(odd_tree / "specs" / "pipe.yaml"))
    assert named.returncode == 1 and ODD["pipe.yaml"] in named.stderr


def test_diff_on_the_working_tree_reports_each_odd_file(odd_tree) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git = ["git", "-C", str(odd_tree)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "specs/good.yaml"], check=True)
    subprocess.run([*git, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m",
                    "base"], check=True)
    proc = run_limited("diff", "main", "--repo", str(odd_tree))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    for name in ODD:
        assert f"specs/{name}:1:1: error: $: " in proc.stdout, (name, proc.stdout)
    assert "a symbolic link: diff reads the spec files git stores" in proc.stdout
    assert "not a regular file (a named pipe)" in proc.stdout
    assert "file is larger than 1 MiB" in proc.stdout
    assert "the file name holds a control character" in proc.stdout
    assert "specs/new\nline" not in proc.stdout  # never a raw line break in a report


# -- compile --out never acts outside OUT -----------------------------------------------------

def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    specs, out, victim = tmp_path / "specs", tmp_path / "compiled", tmp_path / "victim"
    specs.mkdir()
    out.mkdir()
    victim.mkdir()
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", specs / "a.yaml")
    for name in ("keep.json", "x.json", "y.json"):
        (victim / name).write_text("precious")
    return specs, out, victim


def test_a_hand_edited_manifest_never_removes_anything_outside_out(tmp_path) -> None:
    specs, out, victim = _tree(tmp_path)
    (out / "link").symlink_to(victim)
    (out / "file-link.json").symlink_to(victim / "y.json")
    (out / emit.MANIFEST).write_text("\n".join([
        "../victim/keep.json", str(victim / "x.json"), "link/x.json", "file-link.json",
        "a/../../victim/keep.json", ".trainspec-outputs", "ok/../a.json", "bad\x1bname.json",
        "", "# comment"]) + "\n")
    code, err = _run_cli("compile", str(specs), "--out", str(out), "--check")
    assert code == 1
    assert "'../victim/keep.json' is not a file trainspec writes" in err
    assert f"{out}/.trainspec-outputs: entry '{victim / 'x.json'}' is not a file" in err
    assert "python -m compiler compile" in err  # the command it suggests is the one below
    code, err = _run_cli("compile", str(specs), "--out", str(out))
    assert code == 0, err
    assert sorted(p.name for p in victim.iterdir()) == ["keep.json", "x.json", "y.json"]
    assert all((victim / n).read_text() == "precious" for n in ("keep.json", "x.json", "y.json"))
    assert not os.path.lexists(out / "file-link.json")  # the link itself, inside OUT, is gone
    assert (out / emit.MANIFEST).read_text().splitlines()[1:] == ["a.json"]


def test_outputs_are_never_written_through_a_symbolic_link(tmp_path) -> None:
    specs, out, victim = _tree(tmp_path)
    (specs / "sub").mkdir()
    (specs / "sub" / "b.yaml").write_text(
        (specs / "a.yaml").read_text().replace("name: bert-cpu-smoke", "name: other"))
    (out / "sub").symlink_to(victim)
    (out / "a.json").symlink_to(victim / "y.json")
    for check in (["--check"], []):
        code, err = _run_cli("compile", str(specs), "--out", str(out), *check)
        assert code == 1 and f"{out}/sub: a symbolic link inside {out}" in err
        assert "nothing written" in err and "python -m compiler compile" not in err
    assert sorted(p.name for p in victim.iterdir()) == ["keep.json", "x.json", "y.json"]
    (out / "sub").unlink()
    code, err = _run_cli("compile", str(specs), "--out", str(out))
    assert code == 0, err
    assert (victim / "y.json").read_text() == "precious"  # a.json replaced the link, not y.json
    assert stat.S_ISREG(os.lstat(out / "a.json").st_mode)


def test_spec_names_that_would_escape_are_refused(tmp_path) -> None:
    assert not emit.safe_name("../x.json") and not emit.safe_name("/abs.json")
    assert not emit.safe_name("a/./b.json") and not emit.safe_name("a//b.json")
    assert not emit.safe_name("a\nb.json") and not emit.safe_name(".hidden.json")
    assert not emit.safe_name("a.yaml") and emit.safe_name("team/a b.json")
    specs, out, _ = _tree(tmp_path)
    (specs / "x\ny.yaml").write_text((specs / "a.yaml").read_text().replace("bert-cpu-smoke",
                                                                           "nl"))
    code, err = _run_cli("compile", str(specs), "--out", str(out))
    assert code == 1 and "x\\ny.yaml:1:1: error: $: the file name holds a control" in err
    assert list(out.iterdir()) == []


def test_check_quotes_the_command_it_suggests(tmp_path) -> None:
    specs, _, _ = _tree(tmp_path)
    out = tmp_path / "out dir; rm -rf ~"
    code, err = _run_cli("compile", str(specs), "--out", str(out), "--check")
    assert code == 1
    assert f"--out '{out}'" in err


def _run_cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(argv), out, err), err.getvalue()


# -- trainspec's limits fire first, whatever the YAML library -----------------------------------

DEEP = {"flow": "a: " + "[" * 30_000 + "]" * 30_000 + "\n",
        "flow-map": "a: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n",
        "dash": "- " * 30_000 + "a\n",
        "indent": "".join(" " * i + "a:\n" for i in range(1400)) + " " * 1400 + "b\n",
        # brackets in a quoted string, then nesting: libyaml reads both ahead of its events
        "quoted": "a: ['" + "[" * 1000 + "', " + "[" * 3000 + "]" * 3000 + "]\n",
        "after-keys": "".join(f"k{i}: {i}\n" for i in range(2000)) + "z: " + "[" * 3000 + "\n"}


def _loaders() -> list:
    """The parsers trainspec may run on: libyaml's (at its default nesting limit and, where
    PyYAML lets it be set, at one just above trainspec's) and PyYAML's pure-Python one."""
    found = [pytest.param(yaml.SafeLoader, None, id="pure-python")]
    if hasattr(yaml, "CSafeLoader"):
        found.append(pytest.param(yaml.CSafeLoader, None, id="libyaml"))
        if getattr(getattr(yaml, "_yaml", None), "_get_max_nest_level", lambda: -1)() != -1:
            found.append(pytest.param(yaml.CSafeLoader, 70, id="libyaml-limit-70"))
    return found


@pytest.mark.parametrize("loader, nest", _loaders())
@pytest.mark.parametrize("name", sorted(DEEP))
def test_nesting_is_refused_by_trainspecs_own_limit(monkeypatch, loader, nest, name) -> None:
    monkeypatch.setattr(yaml_limits, "Loader", loader)
    monkeypatch.setattr(source, "Loader", loader)
    if nest is not None:
        default = yaml._yaml._get_max_nest_level()
        yaml._yaml._set_max_nest_level(nest)
    try:
        _, found = source.parse(DEEP[name], "deep.yaml")
    finally:
        if nest is not None:
            yaml._yaml._set_max_nest_level(default)
    assert [(d.code, d.message) for d in found] == [
        ("yaml-limits", "nesting deeper than 64 levels")], [d.format() for d in found]
    assert found[0].position is not None and found[0].position.line >= 1


@pytest.mark.parametrize("name", ["alias-key-bomb.yaml", "alias-value-bomb.yaml",
                                  "long-key-parent.yaml"])
def test_what_a_document_expands_to_is_counted_in_characters(hostile, tmp_path, name) -> None:
    folder = tmp_path / "specs"  # a folder, as validate and compile of a repository read it
    folder.mkdir()
    shutil.copy(hostile / name, folder / name)
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", folder / "good.yaml")
    for argv in (["validate", str(folder)], ["compile", str(folder), "--out", str(tmp_path / "o")]):
        proc = run_limited(*argv)
        assert_refused(proc, f"{' '.join(argv)} ({name})")
        refusals = [line for line in proc.stderr.splitlines() if ": error: " in line]
        assert len(refusals) == 1 and refusals[0].endswith("[yaml-limits]"), refusals
        assert "expands to more than 8 MiB of keys, values and paths" in refusals[0]
        assert len(refusals[0]) < 1000  # the path it names is cut short


# -- keys, values and file names never forge a diagnostic line (issue 16) -----------------------

# Line breaks (\n \r U+2028 U+2029 U+0085 \x1c), terminal controls (ESC, BEL, CSI U+009B, DEL,
# NUL, TAB) and a bidi override.
HOSTILE_CHARS = ["\n", "\r", "\u2028", "\u2029", "\x85", "\x1c", "\x1b", "\x07", "\x9b", "\x7f",
                 "\x00", "\t", "\u202e"]


def _raw(text: str) -> list[str]:
    """The characters of `text` a terminal or report would show raw: none but line ends."""
    return sorted({ch for ch in text if not ch.isprintable() and ch != "\n"})


def _hostile_spec(ch: str) -> str:
    """A spec with `ch` in an unknown key, a label key and a value quoted in a message (YAML's
    double-quoted escapes: the text itself holds no control character)."""
    good = (ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text()
    return (good.replace("labels: {team: nlp, purpose: smoke-test}",
                         f"labels: {{team: nlp, {json.dumps('t' + ch)}: x}}")
            .replace("  region: europe-west4", f"  region: {json.dumps('eu' + ch + 'rope')}")
            .replace("spec:\n", f"spec:\n  {json.dumps('bad' + ch + 'key')}: 1\n"))


@pytest.mark.parametrize("ch", HOSTILE_CHARS, ids=lambda ch: f"U+{ord(ch):04X}")
def test_a_hostile_key_or_value_is_escaped_in_every_format(tmp_path, ch) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(_hostile_spec(ch), encoding="utf-8")
    code, out, err = _cli("validate", str(spec))
    assert code == 1 and "Traceback" not in err
    lines = err.splitlines()  # splitlines also breaks at U+2028, U+0085, \x1c...
    assert lines[-1] == "1 spec(s) checked, 1 with errors"
    assert len(lines) >= 4 and all(line.startswith(f"{spec}:") for line in lines[:-1]), lines
    assert _raw(err) == []
    assert "bad" + printable_form(ch) + "key" in err
    for fmt in ("json", "sarif", "github"):
        code, out, err = _cli("validate", "--format", fmt, str(spec))
        assert code == 1 and _raw(out) == [] and _raw(err) == [], fmt
        if fmt == "github":
            assert all(line.startswith("::error ") for line in out.splitlines()), out
        elif fmt == "json":  # JSON carries the key as written, escaped by JSON itself
            paths = [d["path"] for d in json.loads(out)["diagnostics"]]
            assert "$.spec['bad" + ch + "key']" in paths, paths
        else:  # a SARIF viewer shows the message as text
            texts = [r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]]
            assert any("bad" + printable_form(ch) + "key" in t for t in texts), texts


def printable_form(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


@pytest.mark.parametrize("ch", HOSTILE_CHARS, ids=lambda ch: f"U+{ord(ch):04X}")
def test_explain_prints_a_hostile_description_on_one_line(tmp_path, ch) -> None:
    spec = tmp_path / "spec.yaml"
    good = (ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text()
    spec.write_text(good.replace("  name: bert-cpu-smoke\n", "  name: bert-cpu-smoke\n"
                                 f"  description: {json.dumps('a' + ch + 'b')}\n"))
    code, out, err = _cli("explain", str(spec))
    assert code == 0, err
    assert _raw(out) == [] and f"  a{printable_form(ch)}b" in out.splitlines()


@pytest.mark.parametrize("name", ["new\nline.yaml", "esc\x1b[2J.yaml", "ls\u2028ep.yaml",
                                  "nel\x85.yaml", "bidi\u202eLMY.yaml"])
def test_a_hostile_file_name_is_escaped_in_every_format(tmp_path, name) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / name).write_text("apiVersion: trainspec/v1\n")
    for fmt in ("text", "json", "sarif", "github"):
        code, out, err = _cli("validate", "--format", fmt, str(specs))
        assert code == 1 and _raw(out) == [] and _raw(err) == [], fmt
        if fmt == "text":
            assert err.splitlines()[0].startswith(f"{specs}/{printable_form(name)}:1:1: error: ")
            assert len(err.splitlines()) == 2


def test_diff_reports_escape_hostile_keys_and_file_names(tmp_path) -> None:
    repo, _ = _empty_repo(tmp_path)
    for i, ch in enumerate(HOSTILE_CHARS):
        text = _hostile_spec(ch)
        (repo / "specs" / f"ok{i}.yaml").write_text(  # a value in a new, valid spec
            text.replace("bert-cpu-smoke", f"j{i}")
            .replace(f"  {json.dumps('bad' + ch + 'key')}: 1\n", "")
            .replace(json.dumps("eu" + ch + "rope"), "europe-west4")
            .replace(json.dumps("t" + ch) + ": x", "purpose: x")
            .replace("args: [", f"args: [{json.dumps('--a' + ch)}, "), encoding="utf-8")
        (repo / "specs" / f"bad{i}.yaml").write_text(text.replace("bert-cpu-smoke", f"b{i}"),
                                                     encoding="utf-8")
    (repo / "specs" / "a`b|<details>@x*y*.yaml").write_text(
        (ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text().replace("bert-cpu-smoke",
                                                                             "md"))
    for fmt in ("text", "markdown", "json"):
        code, out, err = _cli("diff", "main", "--repo", str(repo), "--format", fmt)
        assert code == 1 and "Traceback" not in err, err[-2000:]
        assert _raw(out) == [] and _raw(err) == [], fmt
        if fmt == "markdown":
            row = next(line for line in out.splitlines() if "@x" in line)
            assert row.startswith("| ``specs/a`b\\|<details>@x*y*.yaml`` | md |"), row
            assert "\n<details>@x" not in out
        if fmt == "text":
            for line in out.splitlines():
                assert not re.match(r"^\S+:\d+:\d+: error:", line), line  # errors are indented


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# -- hostile trainer metadata (python.source: pyproject.toml, setup.py) -------------------------

def hostile_metadata() -> dict[str, dict[str, str]]:
    """A trainer's metadata files that crashed every command that packages it."""
    setup = 'from setuptools import setup\nsetup(name="a", version="1"{})\n'
    return {
        "package-dir-int": {"setup.py": setup.format(', package_dir={"": 1}')},
        "toml-deep-array": {"pyproject.toml": "[tool.x]\ny = " + "[" * 1000 + "]" * 1000 + "\n"},
        "toml-long-dotted-key": {"pyproject.toml": "x" + ".x" * 100_000 + " = 1\n"},
        "setup-long-sum": {"setup.py": setup.format('+"1"' * 100_000)},
        "setup-long-unary": {"setup.py": "x = " + "-" * 100_000 + "1\n" + setup.format("")},
    }


@pytest.fixture(scope="module")
def metadata_repo(tmp_path_factory) -> Path:
    """The review's scratch repository: the example trainer beside specs/job.yaml, committed."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path_factory.mktemp("metadata")
    shutil.copytree(ROOT / "examples" / "trainer", repo / "trainer")
    (repo / "specs").mkdir()
    (repo / "Pulumi.yaml").write_text("")
    shutil.copy(ROOT / "examples" / "specs" / "local-trainer.yaml", repo / "specs" / "job.yaml")
    git = ["git", "-C", str(repo), "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    return repo


@pytest.mark.parametrize("name", sorted(hostile_metadata()))
def test_hostile_trainer_metadata_is_refused_within_limits(metadata_repo, name) -> None:
    repo = metadata_repo
    git = ["git", "-C", str(repo), "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "checkout", "-q", "-B", name, "main"], check=True)
    (repo / "trainer" / "pyproject.toml").unlink()
    for file, text in hostile_metadata()[name].items():
        (repo / "trainer" / file).write_text(text)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", name], check=True)
    for argv in (["validate", "specs"], ["compile", "specs/job.yaml"],
                 ["explain", "specs/job.yaml"], ["local-run", "specs/job.yaml"],
                 ["diff", "main", name]):
        proc = run_limited(*argv, cwd=repo)
        assert_refused(proc, f"{' '.join(argv)} ({name})", report=argv[0] == "diff")
        text = proc.stdout + proc.stderr
        assert "[source-metadata]" in text, f"{argv} ({name}):\n{text[-2000:]}"
