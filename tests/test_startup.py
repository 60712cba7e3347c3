"""Start-up: a command imports what it needs, not every command's module (issue 23).

Each case runs the CLI in a fresh interpreter and lists the modules it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compiler import cli

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml"
HEAVY = ("pulumi", "jsonschema", "yaml", "detect_secrets", "requests", "google",
         "compiler.pipeline", "compiler.tree", "compiler.importers", "compiler.cloud",
         "compiler.diff", "compiler.review", "compiler.scaffold", "compiler.jobs")


def imported(tmp_path: Path, *argv: str) -> tuple[int, set[str]]:
    """The exit code of `trainspec argv` and every module it imported."""
    listing = tmp_path / "modules.json"
    code = ("import json, runpy, sys\n"
            f"sys.argv = ['trainspec', *{list(argv)!r}]\n"
            "try:\n    runpy.run_module('compiler', run_name='__main__')\n"
            "except SystemExit as e:\n    code = e.code\n"
            f"open({str(listing)!r}, 'w').write(json.dumps([code, sorted(sys.modules)]))\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=60,
                   check=True)
    status, modules = json.loads(listing.read_text())
    return status, set(modules)


def below(modules: set[str], package: str) -> set[str]:
    return {m for m in modules if m == package or m.startswith(package + ".")}


def test_version_imports_no_command_and_no_dependency(tmp_path: Path) -> None:
    status, modules = imported(tmp_path, "--version")
    assert status == 0
    assert not {m for p in HEAVY for m in below(modules, p)}
    assert below(modules, "compiler") <= {"compiler", "compiler.__main__", "compiler.cli",
                                          "compiler.version", "compiler.source",
                                          "compiler.source.files", "compiler.diagnostics"}


def test_validate_of_one_spec_imports_no_other_command(tmp_path: Path) -> None:
    status, modules = imported(tmp_path, "validate", str(SPEC))
    assert status == 0
    other = ("pulumi", "compiler.importers", "compiler.cloud.rest", "compiler.diff",
             "compiler.review", "compiler.scaffold", "compiler.jobs", "compiler.localrun",
             "compiler.report.review", "compiler.explain")
    assert not {m for p in other for m in below(modules, p)}


@pytest.mark.parametrize("spec", sorted((ROOT / "specs").glob("*/*.yaml")), ids=lambda p: p.name)
def test_validate_of_a_spec_without_a_token_imports_no_http_client(tmp_path: Path, spec) -> None:
    """detect-secrets imports requests (for verification trainspec never asks for): a spec's
    check reads its token formats and keywords from secrets/tables.py instead."""
    status, modules = imported(tmp_path, "validate", str(spec))
    assert status == 0
    heavy = ("detect_secrets", "requests", "urllib3", "http.client", "ssl", "charset_normalizer")
    assert not {m for p in heavy for m in below(modules, p)}


def test_secret_tables_are_detect_secrets_own() -> None:
    """tables.py is what detect-secrets installed says (else: regenerate it with
    `python -c "from compiler.secrets import scan; print(scan.tables_text(), end='')"
    > compiler/secrets/tables.py`), so the patterns a spec's strings are searched with are
    exactly every detector's, and the keywords its keyword list."""
    from compiler.secrets import scan, tables

    assert Path(tables.__file__).read_text(encoding="utf-8") == scan.tables_text()
    scan._tables.cache_clear()  # another test may have hidden detect-secrets (test_cli)
    assert scan._tables() is tables
    assert [p.pattern for p in scan._any_token()] == scan._patterns(scan._detectors())
    assert tables.DENYLIST == scan._detect_secrets_keywords()


def test_every_command_is_named_and_builds_alone() -> None:
    full = cli.parser()
    sub = next(a for a in full._actions if a.dest == "command")
    assert tuple(sub.choices) == cli.COMMANDS  # `main` finds a command's parser by this list
    for name in cli.COMMANDS:
        alone = next(a for a in cli.parser(name)._actions if a.dest == "command")
        assert name in alone.choices and len(alone.choices) < len(sub.choices)
        if name != "emulator":  # its arguments are the emulator's own
            assert (alone.choices[name].format_help()
                    == sub.choices[name].format_help()), name


def test_help_lists_every_command_and_an_unknown_one_is_named(capsys) -> None:
    assert cli._command_word(["--help"]) == "" and cli._command_word(["-h", "validate"]) == ""
    assert cli._command_word(["--version"]) is None
    assert cli._command_word(["valdate"]) == ""
    assert cli._command_word(["validate", "--help"]) == "validate"
    text = cli.parser().format_help()
    for name in cli.COMMANDS:
        assert f"\n    {name}" in text
    with pytest.raises(SystemExit) as stop:
        cli.main(["valdate", "x"])
    assert stop.value.code == cli.EXIT_USAGE
    assert "invalid choice: 'valdate' (choose from 'validate', 'compile'" in capsys.readouterr().err
