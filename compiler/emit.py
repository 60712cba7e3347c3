"""Canonical output: compiled bodies as stable JSON, written atomically, checked for staleness."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from . import gitstate
from .diagnostics import TrainspecError, json_printable


class _Serialized(dict):
    """A compiled body that carries its canonical text, computed where it was compiled.

    json.dumps with indent runs the pure-Python encoder: serialising in the worker processes
    instead of the parent keeps that cost parallel (`tree.compile_many`,
    benchmarks/bench_compile.py).
    """

    text = ""


def dumps(body: dict) -> str:
    """Canonical JSON: key order as compiled (deterministic; labels/env keep the user's order)."""
    if isinstance(body, _Serialized) and body.text:
        return body.text
    # Strict JSON: NaN/Infinity are refused where a spec is read, and never written.
    # Line separators, bidi and other invisible code points a user wrote are \uXXXX (the same
    # JSON value): raw, they would reorder or break what a terminal or a review shows.
    return json_printable(json.dumps(body, indent=2, ensure_ascii=False, allow_nan=False)) \
        + "\n"


def serialized(body: dict) -> dict:
    """`body` carrying its canonical text (what `dumps` returns for it), computed now."""
    out = _Serialized(body)
    out.text = dumps(body)
    return out


def serialized_from(text: str) -> dict:
    """The body whose canonical text is `text` (a stored `dumps`), carrying that text."""
    out = _Serialized(json.loads(text))
    out.text = text
    return out


class _Stored(_Serialized):
    """A body known by the git blob id of its canonical text, the text read (`load(file,
    blob)`) when first needed: a warm `compile --check` whose outputs git vouches for reads no
    body (`stale_outputs`)."""

    def __init__(self, blob: str, file: str, load: Callable[[str, str], str]) -> None:
        self.blob, self._file, self._load, self._text, self._read = blob, file, load, "", ""

    def unparsed(self) -> str:
        """Its text, read when first needed and not parsed until the body is used."""
        if not self._read:
            self._read = self._load(self._file, self.blob)
        return self._read

    @property  # type: ignore[override]
    def text(self) -> str:
        if not self._text:
            self._text = self.unparsed()
            dict.update(self, json.loads(self._text))
        return self._text

    def _whole(self) -> dict:
        return self.text and self  # loads it

    def __getitem__(self, key: object) -> object:
        return dict.__getitem__(self._whole(), key)

    def get(self, key: object, default: object = None) -> object:
        return dict.get(self._whole(), key, default)

    def __iter__(self) -> Iterator:
        return dict.__iter__(self._whole())

    def __len__(self) -> int:
        return dict.__len__(self._whole())

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._whole(), key)

    def keys(self):  # noqa: ANN201
        return dict.keys(self._whole())

    def items(self):  # noqa: ANN201
        return dict.items(self._whole())

    def values(self):  # noqa: ANN201
        return dict.values(self._whole())

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self._whole(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self._whole())


def unparsed_text(body: dict) -> str:
    """`dumps(body)`; a stored body's text is read, not parsed (diff --stack looks for its
    secret markers in thousands)."""
    return body.unparsed() if isinstance(body, _Stored) else dumps(body)


def stored(blob: str, file: str, load: Callable[[str, str], str]) -> dict:
    """The body of spec `file` whose canonical text has git blob id `blob`, read by
    `load(file, blob)` when first needed."""
    return _Stored(blob, file, load)


def blob_id(body: dict | str) -> str:
    """The git blob id of `body`'s canonical text (of `body` itself, a text): what git holds
    for a committed output that is up to date."""
    if isinstance(body, _Stored):
        return body.blob
    text = body if isinstance(body, str) else dumps(body)
    return gitstate.blob_id(text.encode("utf-8"))


def text_of(body: dict | str) -> str:
    return body if isinstance(body, str) else dumps(body)


def output_name(spec_file: str, base: Path) -> str:
    prefix = os.path.join(base, "")
    if spec_file.startswith(prefix) and os.sep == "/":  # as found under `base`: no Path
        stem, dot, suffix = spec_file[len(prefix):].rpartition(".")
        if dot and stem and suffix and "/" not in suffix and not stem.endswith("/") \
                and "//" not in stem and not stem.startswith(("./", "/")) and "/./" not in stem:
            return f"{stem}.json"
    try:  # files found under `base` are spelled under it: no filesystem call needed
        rel = Path(spec_file).relative_to(base)
    except ValueError:
        rel = Path(spec_file).resolve().relative_to(base.resolve())
    return rel.with_suffix(".json").as_posix()


MANIFEST = ".trainspec-outputs"  # what trainspec wrote in OUTDIR: the only files it may remove
MAX_MANIFEST_BYTES = 16 * 1024 * 1024


class OutsideOut(TrainspecError):
    """Writing an output would go outside OUTDIR (through a symbolic link, or a bad name)."""


def safe_name(name: str) -> bool:
    """True for a name trainspec may write or remove under OUTDIR: a relative POSIX path of
    visible parts (no '..', no absolute path, no hidden or empty part) ending in .json, with no
    control character. The manifest is committed, so a pull request can put anything in it."""
    if not name.endswith(".json") or not name.isprintable() or "\\" in name:
        return False
    return all(part and not part.startswith(".") for part in name.split("/"))


def _through_link(outdir: Path, name: str, checked: set[str]) -> Path | None:
    """The first folder on the way from `outdir` to `name` that is a symbolic link, if any:
    writing or removing through it would act outside OUTDIR."""
    parts = name.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        if sub in checked:
            continue
        if os.path.islink(outdir / sub):
            return outdir / sub
        checked.add(sub)
    return None


def _manifest(outdir: Path) -> tuple[set[str], list[str]]:
    """The names an earlier run wrote (only safe ones), and what was wrong with the others."""
    path = outdir / MANIFEST
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return set(), []
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MANIFEST_BYTES:
        return set(), [f"{path}: not a regular file of at most 16 MiB; ignored (nothing it "
                       "lists is removed)"]
    with open(path, "rb") as f:
        text = f.read(MAX_MANIFEST_BYTES).decode("utf-8", "replace")
    names, problems = set(), []
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if safe_name(line):
            names.add(line)
        else:
            problems.append(f"{path}: entry {line[:200]!r} is not a file trainspec writes under "
                            f"{outdir}; it is ignored (never removed) and dropped from the manifest")
    return names, problems


def check_names(outdir: Path, outputs: Mapping[str, object]) -> list[str]:
    """Why some output cannot be written inside `outdir`, one line each (empty: all can)."""
    problems, checked = [], set()
    for name in sorted(outputs):
        if not safe_name(name):
            problems.append(f"{name!r}: not a name trainspec writes (hidden, control character "
                            "or '..' in the spec's path)")
            continue
        link = _through_link(outdir, name, checked)
        if link is not None:
            problems.append(f"{link}: a symbolic link inside {outdir}; trainspec writes only "
                            "inside the output folder, never through links")
    return problems


def _regular_text(path: Path) -> str | None:
    """The text of `path` if it is a regular file (a link is never followed), else None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def stale_outputs(outdir: Path, outputs: Mapping[str, dict | str],
                  committed: Mapping[str, str] | None = None) -> list[str]:
    """Differences between `outputs` (name → body, or its text) and what `outdir` holds, one
    line each; `check_names(outdir, outputs)` found no problem. `committed` (name → git blob
    id, `gitstate.vouched`): files whose working copy git vouches for, compared by blob id
    without reading them."""
    lines: list[str] = []
    committed = committed or {}
    for name, body in sorted(outputs.items()):
        if name in committed and committed[name] == blob_id(body):
            continue  # the same bytes; any other file is read (a CRLF copy is up to date)
        path = outdir / name
        if not os.path.lexists(path):
            lines.append(f"{path}: missing")
        elif _regular_text(path) != text_of(body):
            lines.append(f"{path}: stale")
    previous, problems = _manifest(outdir)
    lines += problems
    checked: set[str] = set()
    for name in sorted(previous - set(outputs)):
        if _through_link(outdir, name, checked) is None and os.path.lexists(outdir / name):
            lines.append(f"{outdir / name}: no spec compiles to it any more")
    return lines


def _write(path: Path, text: str) -> None:
    # Temp file + rename: a reader never sees half a file, and a link at `path` is replaced,
    # not followed. O_EXCL never opens an existing file (a planted link) as the temp file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, 0o644)
    except FileExistsError:
        os.unlink(tmp)
        fd = os.open(tmp, flags, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_tree(outdir: Path, outputs: dict[str, str]) -> None:
    """Write every output atomically (temp file + rename) and remove the outputs of deleted
    specs. Only files listed in OUTDIR's manifest (written by an earlier run) are ever removed,
    and only inside OUTDIR: a manifest entry that is not a name trainspec writes ('../x', an
    absolute path) is ignored, and nothing is written or removed through a symbolic link.
    Raises OutsideOut (before writing anything) or OSError if OUTDIR cannot be written."""
    problems = check_names(outdir, outputs)
    if problems:
        raise OutsideOut("; ".join(problems))
    previous, _ = _manifest(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for name, text in outputs.items():
        path = outdir / name
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        if _regular_text(path) != text:
            _write(path, text)
    checked: set[str] = set()
    for name in sorted(previous - set(outputs)):
        path = outdir / name
        if _through_link(outdir, name, checked) is not None:
            continue
        if os.path.islink(path) or os.path.isfile(path):  # a link itself, never its target
            path.unlink(missing_ok=True)
    _write(outdir / MANIFEST, manifest_text(outputs))


def manifest_text(outputs: dict[str, str]) -> str:
    """The manifest listing what `compile --out` wrote (see `write_tree`)."""
    listing = "# files written by `python -m compiler compile --out`; do not edit\n"
    return listing + "".join(f"{name}\n" for name in sorted(outputs))
