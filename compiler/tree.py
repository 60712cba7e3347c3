"""The tree entry point: discover the spec files once, compile each, run the cross-spec rules.

`validate`, `compile --out`, `status`/`logs`/`wait`, `diff` (both sides), the Pulumi program
and the testing kit all read a tree through this module, so no two of them can disagree about
which files are specs or which job names clash. One file (`compile FILE`, `explain`) is
compiled by `pipeline`, the file entry point, which this module calls for each spec.

A spec file is a ``.yaml`` or ``.yml`` file with no hidden part in its path below the folder
searched (`is_spec`), other than the repo config (``trainspec.yaml``): ``specs/.draft.yaml`` and
``specs/.wip/job.yaml`` are not specs. A file named on the command line is compiled whatever its
name. A spec file found in a folder that is a symbolic link to a file outside that folder is
read, with a warning naming the file read (`spec-link`, an error under --strict): what a folder
holds is what was reviewed there. Folder links are not entered: each one found is a warning
naming it (`spec-link`, an error under --strict).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from . import emit, packaging, pipeline
from .config import load as config_load
from .config.load import FILE_NAME as CONFIG_FILE
from .diagnostics import ERROR, WARNING, Diagnostic, Position, TrainspecError, sort_key
from .options import Options
from .source.files import STDIN, read_bytes, shown

if TYPE_CHECKING:
    from .cache import Cache

SUFFIXES = (".yaml", ".yml")
WHAT = "*.yaml or *.yml spec"  # how messages name a spec file when none is found
PARALLEL_THRESHOLD = 200  # below this, process start-up costs more than it saves
# Specs a worker compiles per task: results cross the pipe a task at a time, so what is held
# at once (in a worker, in the pipe, in the parent) does not grow with the tree.
CHUNK = 50


def is_spec(relative: str) -> bool:
    """Whether the file at `relative` (a POSIX path below the folder searched) is a spec."""
    # No split: a diff asks this of each spec three times (walk, git's index, BASE's tree).
    return relative.endswith(SUFFIXES) and "/." not in "/" + relative and \
        relative != CONFIG_FILE and not relative.endswith("/" + CONFIG_FILE)


def walk(folder: str | Path, links: list[str] | None = None) -> list[str]:
    """The spec files below `folder`, as POSIX paths relative to it, in path order (the order
    git lists a tree in). Hidden folders and folder links are not entered; `links` gets the
    path of each folder link found (below `folder`, as the others)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = Path(dirpath).relative_to(folder).as_posix()
        if links is not None:
            links += [d if rel == "." else f"{rel}/{d}" for d in dirnames
                      if os.path.islink(os.path.join(dirpath, d))]
        for name in filenames:
            path = name if rel == "." else f"{rel}/{name}"
            if is_spec(path):
                found.append(path)
    return sorted(found)


def discover(paths: list[str], notes: dict[str, list[Diagnostic]] | None = None,
             strict: bool = False) -> tuple[list[str], list[Diagnostic]]:
    """The spec files under `paths` (files as given, folders searched), and a located error
    for each path that does not exist and a warning (an error if `strict`) for each folder link
    not entered. `notes` (file → warnings) gets what is said about a file found: a link out of
    the folder searched."""
    found: list[str] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            links: list[str] = []
            files = [joined(p, rel) for rel in walk(p, links)]
            problems += [folder_link(os.path.join(p, *rel.split("/")), strict) for rel in links]
            found += files
            if notes is not None:
                for file in files:
                    if (note := linked_out(raw, file)) is not None:
                        notes[file] = [note]
        elif os.path.lexists(p):  # not a folder: reading it says what is wrong, if anything
            found.append(str(p))
        else:
            problems.append(Diagnostic("$", "no such file or directory", file=str(p),
                                       code="file-missing"))
    return found, problems


def joined(folder: str | Path, relative: str) -> str:
    """How `discover` spells the file at POSIX path `relative` below `folder` (as
    `os.path.join(folder, *parts)`, without its cost per file)."""
    return os.path.join(folder, "") + relative.replace("/", os.sep)


DISCOVERY_CODES = ("spec-link",)  # what discovery, not a spec's compile, says of a spec file


def folder_link(path: str, strict: bool) -> Diagnostic:
    """What is said of a folder link found in a folder searched: it is not entered."""
    return Diagnostic("$", f"a symbolic link to a folder ({shown(os.path.realpath(path))}): "
                      "folder links are not entered, so no spec in it is read",
                      ERROR if strict else WARNING, shown(path), Position(1, 1),
                      "copy the specs in, or name the folder on the command line", "spec-link")


def linked_out(folder: str, file: str) -> Diagnostic | None:
    """The warning for spec `file`, found in `folder`, if it is a link to a file outside it."""
    if not os.path.islink(file):
        return None
    target = os.path.realpath(file)
    if not os.path.isfile(target) or Path(target).is_relative_to(os.path.realpath(folder)):
        return None  # a broken link or a pipe is refused when read; a link inside is fine
    return Diagnostic("$", f"a symbolic link to {shown(target)}, outside the folder searched "
                      f"({shown(folder)}): the spec read is that file", WARNING, file,
                      Position(1, 1), "copy it in, or name it on the command line", "spec-link")


@dataclass
class Tree:
    """A compiled tree: one result per spec file (the cross-spec errors added to the spec they
    blame), and the paths given that do not exist."""

    results: list[pipeline.Result]
    missing: list[Diagnostic] = field(default_factory=list)  # and folder links not entered

    @property
    def empty(self) -> bool:
        """No spec file was found, and no path was wrong: nothing to say about."""
        return not self.results and not self.missing

    @property
    def failed(self) -> int:
        """How many specs do not compile, plus the paths that do not exist."""
        return sum(not r.ok for r in self.results) + sum(d.is_error for d in self.missing)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.missing if d.is_error] + [d for r in self.results
                                                          for d in r.errors]


def check(results: list[pipeline.Result], keep: Mapping[str, str] | None = None) -> None:
    """Run the cross-spec rules (`pipeline.check_set`) and add each error to the spec it
    blames. Of several specs naming one job, the first keeps the name; `keep` (job name →
    file) names a file that keeps its name whatever its place (diff: BASE's holder)."""
    keep = keep or {}
    order = sorted(results, key=lambda r: keep.get(r.identity[0] if r.identity else "") != r.file)
    by_file = {r.file: r for r in results}
    for d in pipeline.check_set(order):
        r = by_file[d.file]
        r.diagnostics = sorted(r.diagnostics + [d], key=sort_key)


def compile_paths(paths: list[str], options: Options = Options(), *, jobs: int = 1,
                  stdin: BinaryIO | None = None,
                  compile_file: Callable[[str], pipeline.Result] | None = None,
                  cache: Cache | None = None,
                  each: Callable[[pipeline.Result], object] | None = None,
                  slim: bool = False) -> Tree:
    """Discover the specs under `paths` (`-`: one spec from `stdin`), compile each, check the
    set. `jobs` other than 1 lets a large tree compile in worker processes (0: one per core),
    whose results carry no `job`, `document` or `origins`; `compile_file` compiles one file
    instead of `pipeline.compile_file` with `options` (serially). `cache` reads and stores
    each spec's own result (compiler/cache.py), which then carries no `job` either.

    `each` is called with each spec's own result (before the cross-spec rules; its body's
    text is `emit.dumps(body)`) as soon as it is compiled, in file order; `slim` (implied by
    `each`): the tree keeps of each result only what a report and the cross-spec rules read
    (file, diagnostics, identity; a body that compiled is `DROPPED`), so what a run holds
    does not grow with the tree's bodies.
    """
    read_stdin = stdin is not None and STDIN in paths
    notes: dict[str, list[Diagnostic]] = {}
    files, missing = discover([p for p in paths if not (read_stdin and p == STDIN)], notes,
                              options.strict)
    if compile_file is not None:
        results = [compile_file(f) for f in files]
        for r in results:
            r.diagnostics = sorted(r.diagnostics + notes.get(r.file, []), key=sort_key)
            if each is not None:
                each(r)
    else:
        vouched: dict[str, str] = {}
        if cache is not None:  # git's blob ids spare reading and hashing each spec
            from . import gitstate

            for p in {Path(raw) for raw in paths if os.path.isdir(raw)}:
                vouched.update((joined(p, rel), blob)
                               for rel, blob in gitstate.vouched(str(p), is_spec).items())
        results = compile_many(files, options, jobs, notes, cache, vouched, each=each,
                               slim=slim)
    if read_stdin:
        results.append(pipeline.compile_stream(stdin, options))
        if each is not None:
            each(results[-1])
        if each is not None or slim:
            _slimmed(results[-1], texts=False)
    check(results)
    return Tree(results, missing)


Content = bytes | Diagnostic  # a spec file's bytes, or why it cannot be read as one


# Results one side of a diff compiled, for the other (compile_contents): (path, bytes) →
# (its repo config, options, the result before the cross-spec rules).
Shared = dict[tuple[str, bytes], list[tuple[config_load.Found, Options, pipeline.Result]]]


def compile_contents(contents: Mapping[str, Content], options: Options = Options(), *,
                     files: packaging.Files | None = None,
                     keep: Mapping[str, str] | None = None,
                     shared: Shared | None = None,
                     given: Mapping[str, pipeline.Result] | None = None) -> Tree:
    """The tree entry point for spec files already read (diff reads a git revision or the
    working tree): path → content, or the located reason it cannot be read. `files` reads
    their python.source folders; `keep` is as for `check`. `shared` is filled with each
    result and read before compiling: a spec at the same path with the same bytes, repo
    config and options as on the other side of a diff is compiled once (not a python.source
    spec: its folder is read from each side's own files). `given`: path → the result of its
    content compiled already (before the cross-spec rules), used instead of compiling it."""
    results = compile_each(contents, options, files=files, shared=shared, given=given)
    check(results, keep)
    return Tree(results)


def compile_each(contents: Mapping[str, Content], options: Options = Options(), *,
                 files: packaging.Files | None = None, shared: Shared | None = None,
                 given: Mapping[str, pipeline.Result] | None = None) -> list[pipeline.Result]:
    """`compile_contents` without the cross-spec rules: each spec's own result."""
    seen: config_load.Seen = {}
    results = []
    given = given or {}
    for path, c in contents.items():
        if path in given:
            results.append(dataclasses.replace(given[path],
                                               diagnostics=list(given[path].diagnostics)))
            continue
        if isinstance(c, Diagnostic):
            results.append(pipeline.Result(c.file, [c]))
            continue
        repo = config_load.find(path, files, seen)
        same = same_config(repo)
        known = shared.setdefault((path, c), []) if shared is not None else []
        r = next((dataclasses.replace(r, diagnostics=list(r.diagnostics))
                  for other, opts, r in known if other == same and opts == options), None)
        if r is None:
            r = pipeline.compile_text(c, path, options, files=files, repo=repo)
            if shared is not None and (r.job is None or not packaging.reads_sources(r.job)):
                known.append((same, options, dataclasses.replace(
                    r, diagnostics=list(r.diagnostics))))
        results.append(r)
    return results


def same_config(repo: config_load.Found) -> config_load.Found:
    """`repo` as compared between the sides of a diff: where its folder is (the working tree,
    a revision) is no part of what it says."""
    return dataclasses.replace(repo, config=dataclasses.replace(repo.config, folder=""))


def nothing_found(paths: list[str]) -> str:
    return f"no {WHAT} found under " + " ".join(paths)


class _Dropped(dict):
    """A slim result's body (`compile_paths`): it compiled, and its text went to `each` or
    was not wanted."""


DROPPED: dict = _Dropped()


def _slimmed(r: pipeline.Result, texts: bool) -> pipeline.Result:
    """`r` without what only the process that compiled it reads (document, model, origins,
    archives), its body as its canonical text alone (`emit.text_body`) if `texts`, else
    `DROPPED`."""
    ok = r.ok
    r.document, r.job = None, None
    if r.origins:
        r.origins = {}
    if r.uploads:
        r.uploads = []
    if r.body is not None:
        r.body = emit.text_body(emit.dumps(r.body)) if texts and ok else DROPPED
    return r


Done = tuple[pipeline.Result, bool, "Keys | None"]  # a result, cacheable, its bytes' ids
# A slim result as it crosses the pipe (not a Result, whose unpickled attributes take a
# dict each): file, diagnostics (None: none), identity, body (its text; True: dropped).
Sent = tuple[str, list[Diagnostic] | None, tuple | None, str | bool | None]


def _compile_chunk(args: tuple[list[str], Options, Mapping[str, list[Diagnostic]], bool,
                               bool, bool]) -> list[tuple[pipeline.Result | Sent, bool,
                                                          Keys | None]]:
    files, options, notes, keyed, slim, texts = args
    done: list[tuple[pipeline.Result | Sent, bool, Keys | None]] = []
    for r, keep, key in _each_compiled(files, options, notes, keyed):
        # Documents, jobs and origins stay in the worker: results cross a pipe.
        if slim:
            body = None if r.body is None else \
                emit.dumps(r.body) if texts and r.ok else True
            done.append(((r.file, r.diagnostics or None, r.identity, body), keep, key))
            continue
        ok = r.ok
        r.document, r.job, r.origins = None, None, {}
        if ok and r.body is not None:
            r.body = emit.serialized(r.body)
        done.append((r, keep, key))
    return done


def _received(sent: Sent) -> pipeline.Result:
    file, diagnostics, identity, body = sent
    return pipeline.Result(file, diagnostics or [], identity=identity,
                           body=emit.text_body(body) if isinstance(body, str) else
                           DROPPED if body else None)


def compile_many(files: list[str], options: Options, jobs: int = 0,
                 notes: Mapping[str, list[Diagnostic]] | None = None,
                 cache: Cache | None = None,
                 vouched: Mapping[str, str] | None = None, *,
                 each: Callable[[pipeline.Result], object] | None = None,
                 slim: bool = False) -> list[pipeline.Result]:
    """Compile every file (with its `notes` from `discover`); with `jobs` other than 1, large
    trees use one process per core; with a `cache`, only the files it holds no result for
    (`vouched`: file → the git blob id of a file git vouches for, not read to find its entry).
    `each` and `slim` are as for `compile_paths`.

    Results from worker processes or the cache carry file, diagnostics, identity and body
    (with its canonical text, see `emit.dumps`; the cache's is read when first needed) but not
    the model (`job`), origins or document.
    """
    workers = jobs or (os.cpu_count() or 1)
    notes = notes or {}
    slim = slim or each is not None
    found: dict[str, pipeline.Result] = {}
    ids: dict[str, tuple[str, str]] = {}
    if cache is not None:
        found, ids = _cached(files, notes, cache, vouched or {})
    todo = [f for f in files if f not in found]
    keyed = cache is not None
    if workers <= 1 or len(todo) < PARALLEL_THRESHOLD:
        done = _each_compiled(todo, options, notes, keyed)
    else:
        done = _compile_parallel(todo, options, notes, workers, keyed, slim,
                                 texts=each is not None or keyed)
    if cache is not None:
        from .cache import git_content_id

        cache.compile_again = functools.partial(_fresh_body, options=options, notes=notes)
    results = []
    for f in files:
        if f in found:
            r = found[f]
        else:
            r, keep, key = next(done)
            r.file = f  # the same text: one copy (a worker's result is a copy of its own)
            if keep and r.file in ids and key is not None:
                assert cache is not None
                # Under the id of the bytes compiled: a spec saved since git vouched for it
                # (or since it was hashed) is not the content its id names.
                blob, own = key
                content = git_content_id(blob) if (vouched or {}).get(r.file) == blob else own
                cache.put(r.file, content, ids[r.file][1], r)
        if each is not None:
            each(r)
        results.append(_slimmed(r, texts=False) if slim else r)
    if cache is not None:
        cache.save()
    return results


# What reading a spec file says when it is not one (source/files.py): no result to keep.
_READ_CODES = frozenset({"file-name", "file-missing", "file-unreadable", "file-type",
                         "file-size"})


def _cacheable(r: pipeline.Result) -> bool:
    """Whether `r` depends on its spec's bytes alone (and what its key holds): not when its
    python.source archive is built from other files, nor when the file could not be read."""
    return not r.uploads and (r.job is None or not packaging.reads_sources(r.job)) and \
        not any(d.code in _READ_CODES for d in r.diagnostics)


def _cached(files: list[str], notes: Mapping[str, list[Diagnostic]], cache: Cache,
            vouched: Mapping[str, str],
            ) -> tuple[dict[str, pipeline.Result], dict[str, tuple[str, str]]]:
    """The results `cache` holds for `files`, and the content and configs ids of each
    cacheable file (a file a discovery note is about is not)."""
    found: dict[str, pipeline.Result] = {}
    ids: dict[str, tuple[str, str]] = {}
    memo: dict[str, str] = {}
    collecting = gc.isenabled()
    gc.disable()  # results hold no cycle: collecting while thousands are made is waste
    try:
        _cached_into(found, ids, memo, files, notes, cache, vouched)
    finally:
        if collecting:
            gc.enable()
    return found, ids


def _cached_into(found: dict[str, pipeline.Result], ids: dict[str, tuple[str, str]],
                 memo: dict[str, str], files: list[str],
                 notes: Mapping[str, list[Diagnostic]], cache: Cache,
                 vouched: Mapping[str, str]) -> None:
    from .cache import configs_id, content_id, git_content_id

    for f in files:
        if f in notes:
            continue
        if f in vouched:
            content = git_content_id(vouched[f])
        else:
            blob, problem = read_bytes(f)
            if problem is not None or blob is None:
                continue
            content = content_id(blob)
        ids[f] = content, configs = content, configs_id(f, memo)
        if (hit := cache.get(f, content, configs)) is not None:
            found[f] = hit


def _fresh_body(file: str, blob: str, options: Options,
                notes: Mapping[str, list[Diagnostic]]) -> str:
    """The body text of `file` compiled now (its cached one was lost), which must be the
    cached one (`blob`): a spec changed since its entry was found is no answer."""
    from .gitstate import blob_id

    r = pipeline.compile_file(file, options, notes=notes.get(file, []))
    text = emit.dumps(r.body) if r.body is not None else ""
    if r.body is None or blob_id(text.encode("utf-8")) != blob:
        raise ChangedWhileRead(f"{shown(file)} changed while trainspec read it; run again")
    return text


def _compile_parallel(files: list[str], options: Options,
                      notes: Mapping[str, list[Diagnostic]], workers: int, keyed: bool,
                      slim: bool, texts: bool) -> Iterator[Done]:
    """Each file's result, compiled by `workers` processes `CHUNK` files a task, in order."""
    # Imported here: one spec (pre-commit, an editor) never starts a worker.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, min(CHUNK, (len(files) + workers - 1) // workers))
    chunks = ((part, options, {f: notes[f] for f in part if f in notes}, keyed, slim, texts)
              for part in (files[i:i + size] for i in range(0, len(files), size)))
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        for chunk in pool.map(_compile_chunk, chunks):
            for r, keep, key in chunk:
                yield (_received(r) if slim else r), keep, key  # type: ignore[arg-type]
    except BrokenProcessPool as e:
        # Spec limits keep a worker alive; if one dies anyway (killed, out of memory), say so.
        raise WorkerDied(f"a worker process compiling {len(files)} spec(s) died ({e}); "
                         "rerun with --jobs 1 to find the spec") from None
    finally:  # stopped early (an error, ^C): the tasks not started are not
        pool.shutdown(wait=True, cancel_futures=True)


def _each_compiled(files: list[str], options: Options,
                   notes: Mapping[str, list[Diagnostic]], keyed: bool) -> Iterator[Done]:
    """Each file compiled, as it is: its result, whether it may be cached (`_cacheable`) and,
    if `keyed`, the ids of the bytes it was compiled from (for the result cache). One tree is
    read at one moment: each folder's config files are looked up once (`seen`)."""
    seen: config_load.Seen = {}
    for f in files:
        data = key = None
        if keyed:
            data, problem = read_bytes(f)
            if problem is None and data is not None:
                key = _keys(data)
            else:
                data = None  # compiled from the file, which says why (never cached)
        r = pipeline.compile_file(f, options, notes=notes.get(f, []), seen=seen, data=data)
        yield r, _cacheable(r), key


Keys = tuple[str, str]  # a spec's bytes' git blob id and content id (cache.content_id)


def _keys(data: bytes) -> Keys:
    from .cache import content_id
    from .gitstate import blob_id

    return blob_id(data), content_id(data)


class WorkerDied(TrainspecError):
    """A worker process of `compile_many` died; no result is trustworthy."""


class ChangedWhileRead(TrainspecError):
    """A spec's cached body was lost and the spec, compiled again, no longer gives it."""
