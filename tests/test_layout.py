"""The structure of the package (scripts/import-graph): no import circle, no import running back
up into an enclosing folder, one platform registry every stage reads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from compiler import model
from compiler.targets import PLATFORMS

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_has_no_circle_and_no_import_running_back_up() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "import-graph"), "--list"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "module circles 0, room circles 0" in run.stdout
    assert run.stdout.rstrip().endswith("imports running back up 0"), run.stdout


def test_the_platform_registry_names_every_platform_and_kind() -> None:
    assert tuple(PLATFORMS) == model.PLATFORMS
    for platform in PLATFORMS.values():
        assert set(platform.bodies) == set(platform.resources) == set(platform.console) \
            == set(model.KINDS), platform.name



def test_reporters_are_read_from_the_one_registry() -> None:
    """Commands reach the reporters through compiler.report (REPORTERS, format_text), never
    a renderer module of their own, so a format is written once."""
    inner = ("report.formats import", "report.text import", "report import formats",
             "report import text", "def format_text", "def render_markdown", "def sarif")
    found = [f"{path.relative_to(ROOT)}: {name}"
             for path in (ROOT / "compiler").rglob("*.py")
             if path.relative_to(ROOT / "compiler").parts[0] != "report"
             for name in inner if name in path.read_text(encoding="utf-8")]
    assert found == []


PLATFORM_BRANCHES = 15  # outside targets/: columns of a per-platform table, the REST calls of
# `status` (I/O, not registry data), a comparison of two platforms; see git log (issue 17)


def test_branches_on_the_platform_outside_targets_stay_few() -> None:
    """A fact about a platform is a field of targets.PLATFORMS, read where it is needed, not
    a `platform == "vertex"` branch. Removed one? Lower PLATFORM_BRANCHES."""
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "compiler").rglob("*.py"))
             if path.relative_to(ROOT / "compiler").parts[0] != "targets"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"platform [!=]= ", line)]
    assert len(found) == PLATFORM_BRANCHES, "\n".join(found)
