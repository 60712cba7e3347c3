"""Writing a test's files: one helper for every test that builds a repository in tmp_path."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, files: dict[str, str | bytes]) -> None:
    """Write `files` (path relative to `root` → text or bytes), making folders as needed."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
