"""Canonical output: compiled bodies as stable JSON, written atomically, checked for staleness."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring as _string
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
    out: list[str] = []
    try:
        _indented(body, out, "\n")
        text = "".join(out)
    except _Unusual:
        text = json.dumps(body, indent=2, ensure_ascii=False, allow_nan=False)
    return json_printable(text) + "\n"


class _Unusual(Exception):
    """A value `_indented` leaves to json.dumps (a key that is no string, a tuple, NaN...)."""


def _indented(value: object, out: list[str], pad: str) -> None:
    """`json.dumps(value, indent=2, ensure_ascii=False)` (`pad`: a line break and the current
    indentation) for dicts with string keys, lists, strings, ints, finite floats, booleans and
    None, appended to `out`: json's own encoder for indented text is pure Python and
    generator-based, this one a third of its cost (tests/test_canonical_json.py holds the two
    byte-identical)."""
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (dict, list)):
        keyed = isinstance(value, dict)
        opening, closing = ("{", "}") if keyed else ("[", "]")
        if not value:
            out.append(opening + closing)
            return
        inner = pad + "  "
        sep = opening + inner
        for item in value.items() if keyed else value:  # type: ignore[union-attr]
            if keyed:
                if not isinstance(item[0], str):
                    raise _Unusual
                out += (sep, _string(item[0]), ": ")
                item = item[1]
            else:
                out.append(sep)
            _indented(item, out, inner)
            sep = "," + inner
        out += (pad, closing)
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif value is None:
        out.append("null")
    elif type(value) is int:
        out.append(int.__repr__(value))
    elif type(value) is float and math.isfinite(value):
        out.append(float.__repr__(value))
    else:
        raise _Unusual


def serialized(body: dict) -> dict:
    """`body` carrying its canonical text (what `dumps` returns for it), computed now."""
    out = _Serialized(body)
    out.text = dumps(body)
    return out


def text_body(text: str) -> dict:
    """A body known by its canonical text alone (`dumps` returns `text`; it holds no key):
    what crosses a pipe from a worker when only the text is written or checked."""
    out = _Serialized()
    out.text = text
    return out


def serialized_from(text: str) -> dict:
    """The body whose canonical text is `text` (a stored `dumps`), carrying that text."""
    out = _Serialized(json.loads(text))
    out.text = text
    return out


class _Stored(_Serialized):
    """A body known by the git blob id of its canonical text, the text read (`load(file,
    blob)`) when first needed: a warm `compile --check` whose outputs git vouches for reads no
    body (`Stale`)."""

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
    """`dumps(body)` (`body` itself, a text); a cached body's text is read, not parsed: what
    `compile --out` writes or compares is its text alone."""
    return body if isinstance(body, str) else unparsed_text(body)


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


def check_names(outdir: Path, outputs: Iterable[str]) -> list[str]:
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


def _regular_text(path: str | Path) -> str | None:
    """The text of `path` if it is a regular file (a link is never followed), else None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


class _Outputs:
    """The outputs of one run, named as they come (`add`), never all held at once: only their
    names are kept (`names`: name → the spec file that first gave it). A name that is not
    safe, that goes through a link inside OUTDIR or that an earlier spec gave is neither read
    nor written here: `check_names(outdir, names)` and the caller refuse it at the end."""

    def __init__(self, outdir: Path) -> None:
        self.outdir = outdir
        self.names: dict[str, str] = {}
        self._checked: set[str] = set()
        self._root = os.path.join(outdir, "")  # paths below it as text: Path interns parts

    def __enter__(self) -> _Outputs:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def add(self, name: str, body: dict | str, source: str = "") -> None:
        """Output `name` with `body` (or its text), compiled from spec file `source`."""
        if self.names.setdefault(name, source) == source and safe_name(name) and \
                _through_link(self.outdir, name, self._checked) is None:
            self._take(name, body)

    def _take(self, name: str, body: dict | str) -> None:
        raise NotImplementedError


class Stale(_Outputs):
    """`compile --check`: how OUTDIR differs from the outputs added, one line each (`lines`).
    `committed` (name → git blob id, `gitstate.vouched`): files whose working copy git vouches
    for, compared by blob id without reading them."""

    def __init__(self, outdir: Path, committed: Mapping[str, str] | None = None) -> None:
        super().__init__(outdir)
        self._committed = committed or {}
        self._found: list[tuple[str, str]] = []

    def _take(self, name: str, body: dict | str) -> None:
        if name in self._committed and self._committed[name] == blob_id(body):
            return  # the same bytes; any other file is read (a CRLF copy is up to date)
        path = self._root + name
        if not os.path.lexists(path):
            self._found.append((name, f"{path}: missing"))
        elif _regular_text(path) != text_of(body):
            self._found.append((name, f"{path}: stale"))

    def lines(self) -> list[str]:
        """The differences, by name, then what the manifest lists that no spec writes now;
        `check_names(outdir, names)` found no problem."""
        lines = [line for _, line in sorted(self._found)]
        previous, problems = _manifest(self.outdir)
        lines += problems
        lines += [f"{path}: no spec compiles to it any more"
                  for path in _unmade(self.outdir, previous, self.names)
                  if os.path.lexists(path)]
        return lines


def _unmade(outdir: Path, previous: set[str], names: Iterable[str]) -> Iterator[Path]:
    """The path of each output an earlier run wrote (`previous`, its manifest) that is not
    among `names` now, unless it goes through a link inside OUTDIR."""
    checked: set[str] = set()
    for name in sorted(previous.difference(names)):
        if _through_link(outdir, name, checked) is None:
            yield outdir / name


def _write(path: Path, text: str) -> None:
    # Temp file + rename: a reader never sees half a file, and a link at `path` is replaced,
    # not followed. O_EXCL never opens an existing file (a planted link) as the temp file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, _NEW, 0o644)
    except FileExistsError:
        os.unlink(tmp)
        fd = os.open(tmp, _NEW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
STAGING = ".trainspec-staging-"  # a run's staging folder in OUTDIR: this, its pid, a suffix


class Staging(_Outputs):
    """`compile --out`, all or nothing, without holding the outputs: each output added that
    differs from OUTDIR's file is written at once into a hidden staging folder inside OUTDIR
    (`.trainspec-staging-PID-…`: a rename away from its place, and never through a link);
    `commit` moves them into place, removes the outputs of deleted specs and writes the
    manifest; leaving the `with` block without a commit (a spec failed, an error, ^C) removes
    the staging folder, and OUTDIR too if this run made it. A run killed before its commit
    leaves OUTDIR as it was but for its staging folder, which the next commit removes."""

    def __init__(self, outdir: Path) -> None:
        super().__init__(outdir)
        self._folder: str | None = None
        self._started = False  # a staging folder is (being) made
        self._staged: list[str] = []
        self._made: list[Path] = []  # OUTDIR and parents this run made, deepest first
        self._error: OSError | None = None  # the first write that failed, raised by commit

    def __exit__(self, *_: object) -> None:
        self.discard()

    def _take(self, name: str, body: dict | str) -> None:
        text = text_of(body)
        if self._error is not None or _regular_text(self._root + name) == text:
            return
        try:
            # Numbered, side by side: no folder to make (and remove) per folder of OUTDIR.
            path = os.path.join(self._staging(), f"{len(self._staged)}.json")
            with os.fdopen(os.open(path, _NEW, 0o644), "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            self._error = e
        else:
            self._staged.append(name)

    def _staging(self) -> str:
        if self._folder is None:
            self._started = True
            made, parent = [], self.outdir
            while not os.path.lexists(parent) and parent != parent.parent:
                made.append(parent)
                parent = parent.parent
            self._made = made  # before they are made: an interrupt between is no leak
            self.outdir.mkdir(parents=True, exist_ok=True)
            import tempfile  # noqa: PLC0415 - only a run that writes needs it

            self._folder = tempfile.mkdtemp(prefix=self._prefix(), dir=self.outdir)
        return self._folder

    def _prefix(self) -> str:
        return f"{STAGING}{os.getpid()}-"

    def commit(self) -> None:
        """Move every output into place (each file atomically, temp + rename), remove the
        outputs of deleted specs and write the manifest. Only files listed in OUTDIR's
        manifest (written by an earlier run) are ever removed, and only inside OUTDIR: a
        manifest entry that is not a name trainspec writes ('../x', an absolute path) is
        ignored, and nothing is written or removed through a symbolic link. Raises OutsideOut
        (before anything moves) or OSError if OUTDIR cannot be written."""
        problems = check_names(self.outdir, self.names)
        if problems:
            raise OutsideOut("; ".join(problems))
        if self._error is not None:
            raise self._error
        previous, _ = _manifest(self.outdir)
        self.outdir.mkdir(parents=True, exist_ok=True)
        self._made = []
        _in_the_way(self._root, self._staged)
        # Killed while the outputs move, the next run still knows every output this one may
        # have moved in where nothing was (and removes those its specs no longer make); a file
        # already there (a user's) is claimed only once replaced.
        claimed = {name for name in self._staged
                   if name not in previous and not os.path.lexists(self._root + name)}
        if claimed:
            _write(self.outdir / MANIFEST, manifest_text(previous | claimed))
        made: set[str] = set()
        moved: set[str] = set()
        staged = os.path.join(self._folder or "", "")
        try:
            for i, name in enumerate(self._staged):
                folder = os.path.dirname(name)
                if folder not in made:
                    os.makedirs(self._root + folder, exist_ok=True)
                    made.add(folder)
                try:
                    os.replace(f"{staged}{i}.json", self._root + name)
                except OSError as e:  # said of the output, not of its staged copy
                    raise OSError(e.errno, e.strerror, self._root + name) from e
                moved.add(name)
        except BaseException:  # a move failed (or ^C): the manifest says what is trainspec's
            if claimed or not moved <= previous:
                with contextlib.suppress(OSError):
                    _write(self.outdir / MANIFEST, manifest_text(previous | moved))
            raise
        for path in _unmade(self.outdir, previous, self.names):
            if os.path.islink(path) or os.path.isfile(path):  # a link itself, never its target
                path.unlink(missing_ok=True)
        _write(self.outdir / MANIFEST, manifest_text(self.names))
        _sweep(self.outdir)

    def discard(self) -> None:
        """Remove the staging folder, and OUTDIR and its parents if this run made them; an
        interrupt (^C) meanwhile is raised once they are gone."""
        interrupted = None
        while True:
            try:
                self._remove()
                break
            except KeyboardInterrupt as e:
                interrupted = e
        if interrupted is not None:
            raise interrupted

    def _remove(self) -> None:
        import shutil  # noqa: PLC0415

        if self._started:  # whatever this run made, even if interrupted while making it
            for entry in _entries(self.outdir):
                if entry.name.startswith(self._prefix()):
                    shutil.rmtree(entry.path, ignore_errors=True)
        self._folder, self._started = None, False
        for folder in self._made:  # `a/../b` made `a` too: each is tried, not up to a failure
            with contextlib.suppress(OSError):
                folder.rmdir()  # only an empty folder
        self._made = []


def _in_the_way(root: str, names: Iterable[str]) -> None:
    """Raise, naming it, for a folder where an output goes or a file where its folder goes:
    found before any output moves, so OUTDIR is left as it was."""
    import errno  # noqa: PLC0415

    folders: set[str] = set()
    for name in names:
        if os.path.isdir(root + name) and not os.path.islink(root + name):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), root + name)
        folder = os.path.dirname(name)
        while folder and folder not in folders:
            folders.add(folder)
            if os.path.lexists(root + folder) and not os.path.isdir(root + folder):
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR),
                                         root + folder)
            folder = os.path.dirname(folder)


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))
    except OSError:
        return []


def _sweep(outdir: Path) -> None:
    """Remove the staging folders in `outdir` of runs that were killed (their process is
    gone)."""
    import shutil  # noqa: PLC0415

    for entry in _entries(outdir):
        named = _STAGED.fullmatch(entry.name)
        if named is None or not entry.is_dir(follow_symlinks=False) or _alive(int(named[1])):
            continue
        # Only what a run stages (numbered outputs): a folder holding anything else is not
        # trainspec's to remove.
        held = _entries(Path(entry.path))
        if all(_STAGED_FILE.fullmatch(f.name) and f.is_file(follow_symlinks=False)
               for f in held):
            shutil.rmtree(entry.path, ignore_errors=True)


# A run's staging folder as `Staging` names it (tempfile.mkdtemp's suffix), and what it holds.
_STAGED = re.compile(re.escape(STAGING) + r"([1-9][0-9]{0,9})-[a-z0-9_]{8}", re.ASCII)
_STAGED_FILE = re.compile(r"[0-9]+\.json", re.ASCII)


def _alive(pid: int) -> bool:
    """Whether process `pid` may still run (any doubt: yes, its folder is left alone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True  # another user's, or no pid this system has
    return True


def manifest_text(outputs: Iterable[str]) -> str:
    """The manifest listing the outputs `compile --out` wrote (names; see `Staging`)."""
    listing = "# files written by `python -m compiler compile --out`; do not edit\n"
    return listing + "".join(f"{name}\n" for name in sorted(outputs))
