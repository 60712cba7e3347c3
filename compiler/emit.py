"""Canonical output: compiled bodies as stable JSON, written atomically, checked for staleness."""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import pipeline
from .normalize import Options

PARALLEL_THRESHOLD = 200  # below this, process start-up costs more than it saves


class _Serialized(dict):
    """A compiled body that carries its canonical text, computed where it was compiled.

    json.dumps with indent runs the pure-Python encoder: serialising in the worker processes
    instead of the parent keeps that cost parallel (benchmarks/bench_compile.py).
    """

    text = ""


def dumps(body: dict) -> str:
    """Canonical JSON: key order as compiled (deterministic; labels/env keep the user's order)."""
    if isinstance(body, _Serialized) and body.text:
        return body.text
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def output_name(spec_file: str, base: Path) -> str:
    try:  # files found under `base` are spelled under it: no filesystem call needed
        rel = Path(spec_file).relative_to(base)
    except ValueError:
        rel = Path(spec_file).resolve().relative_to(base.resolve())
    return rel.with_suffix(".json").as_posix()


def _compile_chunk(args: tuple[list[str], Options]) -> list[pipeline.Result]:
    files, options = args
    results = [pipeline.compile_file(f, options) for f in files]
    for r in results:  # documents, jobs and origins stay in the worker: results cross a pipe
        ok = r.ok
        r.document, r.job, r.origins = None, None, {}
        if ok and r.body is not None:
            body = _Serialized(r.body)
            body.text = dumps(r.body)
            r.body = body
    return results


def compile_many(files: list[str], options: Options, jobs: int = 0) -> list[pipeline.Result]:
    """Compile every file; large trees use one process per core.

    Results from worker processes carry file, diagnostics and body (with its canonical text,
    see `dumps`) but not the model (`job`), origins or document.
    """
    workers = jobs or (os.cpu_count() or 1)
    if workers <= 1 or len(files) < PARALLEL_THRESHOLD:
        return [pipeline.compile_file(f, options) for f in files]
    size = (len(files) + workers - 1) // workers
    chunks = [(files[i:i + size], options) for i in range(0, len(files), size)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [r for chunk in pool.map(_compile_chunk, chunks) for r in chunk]


MANIFEST = ".trainspec-outputs"  # what trainspec wrote in OUTDIR: the only files it may remove


def _manifest(outdir: Path) -> set[str]:
    try:
        text = (outdir / MANIFEST).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {line for line in text.splitlines() if line and not line.startswith("#")}


def stale_outputs(outdir: Path, outputs: dict[str, str]) -> list[str]:
    """Differences between `outputs` and what `outdir` holds, one line each."""
    lines = []
    for name, text in sorted(outputs.items()):
        path = outdir / name
        try:
            if path.read_text(encoding="utf-8") != text:
                lines.append(f"{path}: stale")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            lines.append(f"{path}: missing")
    for name in sorted(_manifest(outdir) - set(outputs)):
        if (outdir / name).exists():
            lines.append(f"{outdir / name}: no spec compiles to it any more")
    return lines


def write_tree(outdir: Path, outputs: dict[str, str]) -> None:
    """Write every output atomically (temp file + rename) and remove the outputs of deleted
    specs. Only files listed in OUTDIR's manifest (written by an earlier run) are ever removed:
    other files in OUTDIR are left alone. Raises OSError if OUTDIR cannot be written."""
    previous = _manifest(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for name, text in outputs.items():
        path = outdir / name
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except (FileNotFoundError, UnicodeDecodeError):
            pass
        # Temp file + rename: a reader never sees half a file. A pid-named temp beside the
        # target is enough (one writer per process) and much cheaper than mkstemp's.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    for name in sorted(previous - set(outputs)):
        (outdir / name).unlink(missing_ok=True)
    (outdir / MANIFEST).write_text(manifest_text(outputs), encoding="utf-8")


def manifest_text(outputs: dict[str, str]) -> str:
    """The manifest listing what `compile --out` wrote (see `write_tree`)."""
    listing = "# files written by `python -m compiler compile --out`; do not edit\n"
    return listing + "".join(f"{name}\n" for name in sorted(outputs))
