"""What a pool runs: the spec's or a pool's container or Python package (a pool's inherits
the spec's, key by key), its environment (values as written, secrets as config keys), and the
rules on a task both platforms share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog import images
from ..model import Container, EnvVar, Job, Pool, PythonPackage, secret_config_key
from ..source.jsonpath import child
from ..source.reads import as_str

if TYPE_CHECKING:
    from .reader import Reader

# Total of command + args per replica. No limit is documented (facts §D.1, ❌): a warning.
MAX_ARGS_CHARS = 100_000
MAX_PACKAGES = 100  # [DD-AIP] pythonPackageSpec.packageUris, [DD-ML] packageUris
MAX_ENV = 100  # [DD-AIP] ContainerSpec.env


def spec_task(n: Reader, spec: dict) -> tuple[Container | None, PythonPackage | None]:
    box = container(n, spec.get("container"), "$.spec.container", None)
    package = python(n, spec.get("python"), "$.spec.python", None)
    if box and package:
        n.c.error("$.spec", "give either container or python, not both",
                  "a pool may switch kind with its own container/python", code="task-kind")
    return box, package


def container(n: Reader, raw: Any, path: str, base: Container | None) -> Container | None:
    if not isinstance(raw, dict):
        return None
    base = base or Container()
    return Container(
        image=as_str(raw.get("image")) if "image" in raw else base.image,
        command=n.strings(raw["command"], path + ".command") if "command" in raw else base.command,
        args=n.strings(raw["args"], path + ".args") if "args" in raw else base.args,
    )


def python(n: Reader, raw: Any, path: str, base: PythonPackage | None) -> PythonPackage | None:
    if not isinstance(raw, dict):
        return None
    base = base or PythonPackage()
    pick = lambda key, default: as_str(raw.get(key)) if key in raw else default  # noqa: E731
    packages = base.packages
    if "packages" in raw:
        packages = tuple(p for p in raw["packages"] if isinstance(p, str)) \
            if isinstance(raw["packages"], list) else ()
        if len(packages) > MAX_PACKAGES:
            n.c.error(path + ".packages", f"{len(packages)} packages: at most {MAX_PACKAGES}",
                      code="package-count")
    return PythonPackage(
        packages=packages,
        module=pick("module", base.module),
        args=n.strings(raw["args"], path + ".args") if "args" in raw else base.args,
        executor_image=pick("executorImage", base.executor_image),
        runtime_version=pick("runtimeVersion", base.runtime_version),
        python_version=pick("pythonVersion", base.python_version),
        source=pick("source", base.source),
    )


def env(n: Reader, raw: dict, path: str, base: tuple[EnvVar, ...]) -> tuple[EnvVar, ...]:
    merged = {e.name: e for e in base}
    for name, value in raw.items():
        p = child(path, name)
        if isinstance(value, dict):
            key = secret_config_key(as_str(value.get("secret")) or "")
            if key:
                merged[name] = EnvVar(name, secret=key)
        elif isinstance(value, (str, int, float, bool)):
            merged[name] = EnvVar(name, value=n.text(value, p))
    return tuple(merged.values())


def pool_task(n: Reader, job: Job, raw: dict, path: str, image: str | None = None):
    """The pool's task and the task keys it set itself. A role with its own `image` (the
    reduction server) runs that image unless the pool says otherwise: never the spec's task."""
    pc, pp = raw.get("container"), raw.get("python")
    if isinstance(pc, dict) and isinstance(pp, dict):
        n.c.error(path, "a pool takes container or python, not both", code="task-kind")
    own = Container(image=image) if image else None
    if isinstance(pc, dict):
        return container(n, pc, path + ".container", own or job.container), frozenset(pc)
    if isinstance(pp, dict):
        return python(n, pp, path + ".python", None if own else job.python), frozenset(pp)
    return own or job.container or job.python, frozenset()


def task_rules(n: Reader, pool: Pool) -> None:
    c, path, task = n.c, pool.path, pool.task
    if task is None:
        c.error(path, "nothing to run: no container or python package for this pool",
                "set spec.container or spec.python, or one in the pool", code="no-task")
        return
    kind = "container" if isinstance(task, Container) else "python"
    base = f"{path}.{kind}" if pool.overrides else f"$.spec.{kind}"
    if isinstance(task, Container):
        if not task.image:
            c.error(base, "missing required key 'image'", code="missing-image")
        elif problem := images.reference_problem(task.image):
            # Only a character no image reference can hold is certain never to be pulled (it
            # would also forge output); the rest of the grammar (distribution/reference) is not
            # known to be enforced at submit time, and templates write `$IMAGE_URI`: a warning.
            certain = images.unpullable_character(task.image) is not None
            (c.error if certain else c.warning)(
                base + ".image", f"{task.image!r} cannot be pulled: {problem}",
                "e.g. us-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE:TAG",
                code="image-reference" if certain else "image-reference-grammar")
        size = sum(map(len, task.command + task.args))
    else:
        if not task.packages and task.source is None:
            c.error(base, "missing required key 'source' or 'packages'",
                    "source: a folder with the trainer's pyproject.toml or setup.py; "
                    "packages: gs:// archives", code="missing-package")
        if task.source is not None and len(task.packages) >= MAX_PACKAGES:
            c.error(base + ".packages", f"{len(task.packages)} packages and a source: at "
                    f"most {MAX_PACKAGES} in all", code="package-count")
        if not task.module:
            c.error(base, "missing required key 'module'", code="missing-module")
        size = sum(map(len, task.args))
    if size > MAX_ARGS_CHARS:
        c.warning(path, f"command and args total {size} characters: more than "
                  f"{MAX_ARGS_CHARS} may be refused (no documented limit)",
                  "pass long inputs in a file, e.g. on gs://", code="args-size")
    if len(pool.env) > MAX_ENV:
        c.error(path, f"{len(pool.env)} environment variables: at most {MAX_ENV}", code="env-count")
