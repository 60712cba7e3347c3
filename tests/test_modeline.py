"""`validate` suggests the editor schema modeline once, to a person at a terminal only."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path

from compiler import cli
from compiler.schema import modeline
from compiler.schema import validate as schemas

SCHEMA_LINE = "# yaml-language-server: $schema=../schemas/v1/trainspec.schema.json\n"
SPEC = """apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: NAME}
spec:
  region: us-central1
  container: {image: us-docker.pkg.dev/p/r/i:1}
"""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(*argv: str, err: io.StringIO | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), err if err is not None else io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def repo(tmp_path: Path, specs: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "schemas" / "v1").mkdir(parents=True)
    (tmp_path / "schemas" / "v1" / "trainspec.schema.json").write_text("{}")
    for name, text in specs.items():
        path = tmp_path / "specs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "specs"


def test_one_note_per_run_naming_the_path_from_the_specs_folder(tmp_path):
    specs = repo(tmp_path, {"a.yaml": SPEC.replace("NAME", "a"),
                            "team/b.yaml": SPEC.replace("NAME", "b"),
                            "team/c.yaml": SCHEMA_LINE + SPEC.replace("NAME", "c")})
    code, out, err = run("validate", str(specs), err=Terminal())
    plain = run("validate", str(specs))
    assert (code, out) == (0, "") == plain[:2]
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert notes == [
        f"note: 2 specs have no editor schema modeline (first: {specs / 'a.yaml'}); start each "
        "with `# yaml-language-server: $schema=../schemas/v1/trainspec.schema.json` (the path "
        f"from {specs / 'a.yaml'}'s folder) for completion and checks in VS Code and other YAML "
        "editors; see trainspec's docs/editors.md"]
    # Nothing else changes: the note comes before the summary line, which stays last.
    assert err.replace(notes[0] + "\n", "") == plain[2] == "3 spec(s) checked, 0 with errors\n"


def test_no_note_for_tools_or_when_every_spec_has_one(tmp_path):
    specs = repo(tmp_path, {"a.yaml": SPEC.replace("NAME", "a")})
    assert run("validate", str(specs))[2] == "1 spec(s) checked, 0 with errors\n"  # not a tty
    code, out, err = run("validate", str(specs), "--format", "json", err=Terminal())
    assert (code, err) == (0, "")
    assert out == run("validate", str(specs), "--format", "json")[1]
    assert json.loads(out)["diagnostics"] == []
    (specs / "a.yaml").write_text(SCHEMA_LINE + SPEC.replace("NAME", "a"))
    assert run("validate", str(specs), err=Terminal())[2] == "1 spec(s) checked, 0 with errors\n"


def test_exit_code_and_errors_are_unchanged(tmp_path):
    specs = repo(tmp_path, {"bad.yaml": SPEC.replace("NAME", "1bad")})
    code, _, err = run("validate", str(specs), err=Terminal())
    plain = run("validate", str(specs))
    assert code == plain[0] == 1
    assert [line for line in err.splitlines() if not line.startswith("note:")] == \
        plain[2].splitlines()


def test_the_modeline_must_head_the_file(tmp_path):
    # yaml-language-server reads only the comments before the document's first key.
    head = tmp_path / "head.yaml"
    head.write_text("# a job\n" + SCHEMA_LINE + SPEC)
    late = tmp_path / "late.yaml"
    late.write_text(SPEC + SCHEMA_LINE)
    spaced = tmp_path / "spaced.yaml"
    spaced.write_text("#yaml-language-server: $schema=x.json\n" + SPEC)  # needs '# '
    assert modeline.has_modeline(str(head))
    assert not modeline.has_modeline(str(late))
    assert not modeline.has_modeline(str(spaced))


def test_outside_a_repository_with_a_schema_the_note_names_the_packaged_one(tmp_path):
    (tmp_path / ".git").mkdir()
    spec = tmp_path / "job.yaml"
    spec.write_text(SPEC.replace("NAME", "job"))
    line = modeline.note([str(spec)])
    packaged = schemas.VERSIONS[schemas.CURRENT].resolve().as_posix()
    assert line is not None and f"$schema={packaged}`" in line
    assert "a copy committed as schemas/v1/trainspec.schema.json" in line


def test_a_named_pipe_is_never_opened(tmp_path):
    fifo = tmp_path / "job.yaml"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    done = threading.Event()
    threading.Thread(target=lambda: (modeline.has_modeline(str(fifo)), done.set()),
                     daemon=True).start()
    assert done.wait(5)
