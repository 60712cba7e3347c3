"""`compile --out` writes all or nothing without holding the tree's outputs: each output goes
into a staging folder inside OUTDIR as it is compiled, and moves into place only once every
spec compiled. A run that fails, is interrupted or is killed leaves OUTDIR as it was (a killed
one: but for its staging folder, which the next run removes). `validate` and `compile --out`
keep of each spec only what the report and the cross-spec rules read."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compiler import cli, emit, pipeline, tree

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml").read_text()
MANY = tree.PARALLEL_THRESHOLD * 3  # worker processes, and a run long enough to stop midway


def _specs(folder: Path, n: int, label: str = "") -> None:
    for i in range(n):
        path = folder / f"team{i % 3}" / f"job-{i:04}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = SPEC.replace("name: bert-cpu-smoke", f"name: job-{i:04}")
        path.write_text(text.replace("team: nlp", f"team: nlp{label}") if label else text)


def _files(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` but a staging folder's: path → bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.relative_to(folder).as_posix().startswith(emit.STAGING)}


def _staging(folder: Path) -> list[Path]:
    return sorted(folder.glob(emit.STAGING + "*"))


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return cli.main(list(argv), io.StringIO(), err), err.getvalue()


@pytest.fixture()
def changed(tmp_path: Path) -> tuple[Path, Path, dict[str, bytes], dict[str, bytes]]:
    """A tree compiled into OUT, then changed (every output differs, one spec is deleted):
    the tree, OUT, what OUT holds, and what a run from scratch writes now."""
    specs, out = tmp_path / "specs", tmp_path / "out"
    _specs(specs, MANY)
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    before = _files(out)
    _specs(specs, MANY, label="-b")
    (specs / "team0" / "job-0000.yaml").unlink()
    assert _run("compile", str(specs), "--out", str(tmp_path / "fresh"))[0] == 0
    after = _files(tmp_path / "fresh")
    assert after != before and "team0/job-0000.json" in before
    return specs, out, before, after


def _staged(folder: Path) -> bool:
    try:
        return any(name.endswith(".json") for name in os.listdir(folder))
    except OSError:  # gone: the run is past its commit
        return False


def _stopped(specs: Path, out: Path, sig: signal.Signals) -> int:
    """Run `compile --out` in a process group of its own and send `sig` to the group (as a
    terminal does) once the run has staged outputs; its exit code."""
    proc = subprocess.Popen([sys.executable, "-m", "compiler", "compile", str(specs), "--out",
                             str(out)], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if any(_staged(folder) for folder in _staging(out)):
                os.killpg(proc.pid, sig)
                break
            time.sleep(0.002)
        code = proc.wait(timeout=120)
        assert code != 0, "the run ended before it was stopped (a machine too loaded to poll?)"
        return code
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_killed_run_leaves_out_as_it_was_and_the_next_run_is_right(changed) -> None:
    specs, out, before, after = changed
    assert _stopped(specs, out, signal.SIGKILL) == -signal.SIGKILL
    assert _files(out) == before  # not one output moved, nothing removed, the manifest as was
    assert len(_staging(out)) == 1  # what the killed run staged, left behind
    code, err = _run("compile", str(specs), "--out", str(out), "--check")
    assert code == 1 and "is stale" in err  # the leftover is no output, and none is read
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    assert _files(out) == after and _staging(out) == []


def test_an_interrupted_run_leaves_out_as_it_was(changed) -> None:
    specs, out, before, _ = changed
    assert _stopped(specs, out, signal.SIGINT) in (1, 130)
    assert _files(out) == before and _staging(out) == []


def test_a_failing_spec_leaves_out_as_it_was(changed) -> None:
    specs, out, before, _ = changed
    (specs / "team1" / "job-0001.yaml").write_text(SPEC.replace("kind: TrainingJob", "kind: X"))
    code, err = _run("compile", str(specs), "--out", str(out))
    assert code == 1 and "nothing written" in err
    assert _files(out) == before and _staging(out) == []


def test_an_out_dir_the_run_made_is_gone_when_it_fails(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    _specs(specs, MANY)
    (specs / "team1" / "job-0001.yaml").write_text(SPEC.replace("kind: TrainingJob", "kind: X"))
    assert _run("compile", str(specs), "--out", str(tmp_path / "new" / "out"))[0] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["specs"]


def test_only_the_staging_folders_of_dead_runs_are_removed(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    _specs(specs, 3)
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = out / f"{emit.STAGING}{gone.pid}-x1_y2z3w"  # as a run names it (mkdtemp)
    alive = out / f"{emit.STAGING}{os.getpid()}-abcdefgh"
    # Not a run's: a pid no system has, a digit that is no ASCII digit, pid 0 (the caller's
    # process group), a name mkdtemp does not make, a dead run's folder holding a user's file.
    odd = [out / f"{emit.STAGING}{name}" for name in (
        "99999999999999999999-abcdefgh", "\u00b2-abcdefgh", "0-abcdefgh", f"{gone.pid}-x")]
    kept = out / f"{emit.STAGING}{gone.pid}-keptkept"
    for folder in (dead, alive, *odd, kept):
        folder.mkdir(parents=True)
        (folder / "0.json").write_text("half")
    (kept / "notes.txt").write_text("mine")
    assert _run("compile", str(specs), "--out", str(out), "--check")[0] == 0
    assert set(_staging(out)) == {dead, alive, *odd, kept}  # --check changes nothing
    code, err = _run("compile", str(specs), "--out", str(out))
    assert code == 0, err
    assert set(_staging(out)) == {alive, *odd, kept}
    assert (out / "team0" / "job-0000.json").read_text() != "half"


def test_a_failing_run_leaves_no_folder_it_made_even_through_dot_dot(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    _specs(specs, 2)
    (specs / "team1" / "job-0001.yaml").write_text(SPEC.replace("kind: TrainingJob", "kind: X"))
    code, _ = _run("compile", str(specs), "--out", str(tmp_path / "a" / ".." / "b"))
    assert code == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["specs"]


@pytest.mark.parametrize("obstacle", ["folder where an output goes", "file where a folder goes"])
def test_what_stands_in_an_outputs_way_is_named_before_anything_moves(changed, obstacle) -> None:
    specs, out, before, _ = changed
    if obstacle == "folder where an output goes":
        blocked = out / "team2" / "job-0002.json"
        blocked.unlink()
        blocked.mkdir()
    else:
        for old in (out / "team2").iterdir():
            old.unlink()
        (out / "team2").rmdir()
        blocked = out / "team2"
        blocked.write_text("a file")
    before = _files(out)
    code, err = _run("compile", str(specs), "--out", str(out))
    assert code == 1 and str(blocked) in err and emit.STAGING not in err, err
    assert _files(out) == before and _staging(out) == []


def test_outputs_are_staged_as_they_come_not_held(tmp_path: Path, monkeypatch) -> None:
    """Each output is in the staging folder, not in OUT, as soon as its spec compiled: when
    the last spec compiles, every other one is staged already."""
    specs, out = tmp_path / "specs", tmp_path / "out"
    _specs(specs, 5)
    staged_then: list[int] = []
    real = pipeline.compile_file

    def compile_file(path: str, *args, **kwargs) -> pipeline.Result:
        if path.endswith("job-0002.yaml"):  # the last in path order
            staged_then.append(sum(len(list(f.rglob("*.json"))) for f in _staging(out)))
            assert not list(out.glob("team*"))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pipeline, "compile_file", compile_file)
    assert _run("compile", str(specs), "--out", str(out), "--jobs", "1")[0] == 0
    assert staged_then == [4] and len(list(out.rglob("*.json"))) == 5 and _staging(out) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_gets_the_canonical_text_and_the_tree_keeps_slim_results(specs_and_bodies, jobs,
                                                                      monkeypatch) -> None:
    """`each` sees every spec's result with its body's canonical text (byte-identical to a
    result compiled whole), in file order; the tree then holds no body, model or document."""
    folder, bodies = specs_and_bodies
    monkeypatch.setattr(tree, "PARALLEL_THRESHOLD", 1)
    seen: list[tuple[str, str]] = []
    found = tree.compile_paths([str(folder)], jobs=jobs,
                               each=lambda r: seen.append((r.file, emit.dumps(r.body))))
    assert seen == bodies
    assert all(r.ok and r.body is tree.DROPPED and r.job is None and r.document is None
               and r.identity is not None for r in found.results)
    validated = tree.compile_paths([str(folder)], jobs=jobs, slim=True)
    assert [r.body for r in validated.results] == [tree.DROPPED] * len(bodies)


@pytest.fixture()
def specs_and_bodies(tmp_path: Path) -> tuple[Path, list[tuple[str, str]]]:
    folder = tmp_path / "specs"
    _specs(folder, 7)
    whole = tree.compile_paths([str(folder)])
    return folder, [(r.file, emit.dumps(r.body)) for r in whole.results]


def test_an_interrupt_while_the_staging_folder_is_made_leaves_nothing(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """^C lands between making the staging folder (and OUTDIR) and recording it: the run
    still removes both."""
    import tempfile

    real = tempfile.mkdtemp

    def interrupted(*args, **kwargs) -> str:
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(tempfile, "mkdtemp", interrupted)
    with pytest.raises(KeyboardInterrupt), emit.Staging(tmp_path / "new" / "out") as staging:
        staging.add("a.json", "{}\n")
    assert list(tmp_path.iterdir()) == []


def test_a_warm_cache_writes_outputs_without_parsing_them(tmp_path: Path, monkeypatch) -> None:
    """A cached body's text is what `compile --out` writes: read, never parsed (and held)."""
    specs, out, cache = tmp_path / "specs", tmp_path / "out", tmp_path / "cache"
    _specs(specs, 3)
    assert _run("compile", str(specs), "--out", str(tmp_path / "cold"), "--cache", str(cache))[0] == 0
    parsed: list[str] = []
    text = emit._Stored.text
    monkeypatch.setattr(emit._Stored, "text", property(
        lambda self: parsed.append(self.blob) or text.fget(self)))  # type: ignore[attr-defined]
    assert _run("compile", str(specs), "--out", str(out), "--cache", str(cache))[0] == 0
    assert _files(out) == _files(tmp_path / "cold") and parsed == []


def test_a_run_stopped_while_its_outputs_move_leaves_nothing_the_next_run_cannot_remove(
        changed, monkeypatch) -> None:
    """^C (or a kill) between two of the commit's renames: some outputs moved in, the final
    manifest not written. The next run, of a tree without the specs those outputs came from,
    removes them: OUTDIR is what a run from scratch writes."""
    specs, out, before, _ = changed
    new = specs / "new"  # new specs: outputs the manifest before this run does not list
    new.mkdir()
    for i in range(3):
        (new / f"n{i}.yaml").write_text(SPEC.replace("name: bert-cpu-smoke", f"name: new-{i}"))
    moves, replace = [], os.replace

    def interrupted(src, dst):
        if len(moves) == 5:
            raise KeyboardInterrupt
        moves.append(dst)
        replace(src, dst)

    monkeypatch.setattr(os, "replace", interrupted)
    assert _run("compile", str(specs), "--out", str(out))[0] == 130  # as after ^C
    monkeypatch.setattr(os, "replace", replace)
    assert any("/new/" in str(moved) for moved in moves), moves  # one of them did move in
    for path in new.rglob("*.yaml"):
        path.unlink()
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    fresh = out.parent / "fresh2"
    assert _run("compile", str(specs), "--out", str(fresh))[0] == 0
    assert _files(out) == _files(fresh)


def test_a_users_file_where_a_new_output_goes_is_never_claimed_by_a_failed_run(
        tmp_path: Path, monkeypatch) -> None:
    """A move fails before the new output reaches the place where a user's own file sits: the
    manifest does not list that file, so a later run whose specs no longer make that output
    leaves it."""
    specs, out = tmp_path / "specs", tmp_path / "out"
    _specs(specs, 3)
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    (out / "zz").mkdir()
    mine = out / "zz" / "notes.json"
    mine.write_text("my notes")
    (specs / "zz").mkdir()  # after team0/ in the order outputs move
    (specs / "zz" / "notes.yaml").write_text(SPEC.replace("name: bert-cpu-smoke", "name: n"))
    (specs / "team0" / "job-0000.yaml").write_text(
        SPEC.replace("name: bert-cpu-smoke", "name: job-0000").replace("team: nlp", "team: x"))
    replace, moved = os.replace, []

    def failing(src, dst):
        if str(dst).endswith("job-0000.json"):
            raise PermissionError(1, "Operation not permitted", str(dst))
        moved.append(str(dst))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    code, err = _run("compile", str(specs), "--out", str(out), "--jobs", "1")
    assert code == 1 and "team0/job-0000.json: Operation not permitted" in err, err
    monkeypatch.setattr(os, "replace", replace)
    assert not any(m.endswith("notes.json") for m in moved) and mine.read_text() == "my notes"
    assert "zz/notes.json" not in (out / emit.MANIFEST).read_text()
    (specs / "zz" / "notes.yaml").unlink()
    assert _run("compile", str(specs), "--out", str(out))[0] == 0
    assert mine.read_text() == "my notes"
