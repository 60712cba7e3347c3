"""A regular (non-editable) install works: the schema ships inside the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_installed_wheel_validates_specs(tmp_path: Path) -> None:
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    str(ROOT), "-w", str(wheels)],
                   check=True, capture_output=True, timeout=300, cwd=tmp_path)
    wheel = next(wheels.glob("trainspec-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    proc = subprocess.run([sys.executable, "-m", "compiler", "validate", str(ROOT / "specs")],
                          cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("0 with errors")


def test_python_sdk_pin_matches_the_cli_that_is_installed() -> None:
    """The engine runs the Python SDK against the CLI of scripts/install-pulumi-cli: one version."""
    import re
    script = (ROOT / "scripts" / "install-pulumi-cli").read_text()
    cli = re.search(r"^VERSION=(\S+)$", script, re.M)
    pin = re.search(r'"pulumi==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert cli and pin and cli[1] == pin[1]
