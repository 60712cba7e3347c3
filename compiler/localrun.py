"""`python -m compiler local-run SPEC [--pool chief] [-- extra args]`: run the trainer here first.

A Python spec with `python.source` runs as a replica of its job would: the same archive
`pulumi up` uploads is built and pip-installed (no dependencies, no build isolation, no index:
nothing is downloaded) into a throwaway virtualenv layered on the Python environment trainspec
runs in (so the trainer's dependencies come from there), then `python -m MODULE ARGS` runs with
the environment Vertex AI gives a replica: AIP_MODEL_DIR / AIP_CHECKPOINT_DIR /
AIP_TENSORBOARD_LOG_DIR in a local folder, CLUSTER_SPEC and TF_CONFIG for the chosen pool (one
replica of it: the other replicas are not started), and the spec's env. A secret env value is
taken from TRAINSPEC_SECRET_<NAME> (stack secrets are encrypted: trainspec does not decrypt
them), else refused. Output streams through; the exit code is the trainer's. Ctrl-C stops the
trainer as cancelling its job would (SIGTERM) and exits 130.

A container spec is not run (no Docker engine is assumed): the equivalent `docker run` command
is printed instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import TextIO

from . import fields, pipeline
from .model import Container, EnvVar, Job, Pool, PythonPackage
from .options import Options
from .report import format_text
from .roles import BY_NAME, CHIEF, ROLES
from .targets import PLATFORMS

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
PLACEHOLDER_BUCKET = "trainspec-local-run"  # nothing is uploaded: any valid name will do
AIP_DIRS = (("AIP_MODEL_DIR", "model"), ("AIP_CHECKPOINT_DIR", "checkpoints"),
            ("AIP_TENSORBOARD_LOG_DIR", "logs"))
CONTAINER_AIP_ROOT = "/tmp/trainspec-outputs"
# Pool roles (compiler/roles.py): Vertex's workerpoolN, and TF_CONFIG's task types ([DIST]).
POOL_INDEX = {r.name: r.pool for r in ROLES}
FIRST_PORT = 2222


def secret_variable(key: str) -> str:
    """The environment variable local-run reads a secret from: trainspec:wandbApiKey →
    TRAINSPEC_SECRET_WANDB_API_KEY."""
    name = key.split(":", 1)[-1]
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return "TRAINSPEC_SECRET_" + re.sub(r"[^A-Za-z0-9]+", "_", name).upper()


def cluster_env(job: Job, role: str, body: dict) -> dict[str, str]:
    """CLUSTER_SPEC and TF_CONFIG as the chosen pool's first replica gets them, with local
    addresses (127.0.0.1, one port per replica)."""
    pools = job.pools or {CHIEF.name: None}
    hosts: dict[str, list[str]] = {}
    port = FIRST_PORT
    for name in POOL_INDEX:
        if name in pools:
            count = pools[name].replicas if pools[name] is not None else 1
            hosts[name] = [f"127.0.0.1:{port + i}" for i in range(count)]
            port += count
    out: dict[str, str] = {}
    platform = PLATFORMS[job.platform]
    if platform.cluster_spec:
        task = job.pools[role].task if role in job.pools else None
        spec = {"python_module": task.module if isinstance(task, PythonPackage) else "",
                "package_uris": list(task.packages) if isinstance(task, PythonPackage) else [],
                "job_args": list(task.args) if task is not None else []}
        out["CLUSTER_SPEC"] = json.dumps({
            "cluster": {f"workerpool{POOL_INDEX[n]}": h for n, h in hosts.items()},
            "environment": "cloud",
            "task": {"type": f"workerpool{POOL_INDEX[role]}", "index": 0},
            "job": json.dumps(spec)})
        if sum(len(h) for h in hosts.values()) <= 1:
            return out  # TF_CONFIG is set for distributed jobs only
    # AI Platform names the chief "master" in TF_CONFIG unless useChiefInTfConfig.
    ml_names = platform.chief_is_master and not job.ai_platform.get("useChiefInTfConfig")
    names = {r.name: r.ml_tf_type if ml_names else r.tf_type for r in ROLES}
    out["TF_CONFIG"] = json.dumps({
        "cluster": {names[n]: h for n, h in hosts.items() if BY_NAME[n].in_tf_cluster},
        "task": {"type": names[role], "index": 0},
        "environment": "cloud",
        "job": body.get("jobSpec") or body.get("trainingInput") or {}})
    return out


def spec_env(env: tuple[EnvVar, ...], environ: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The spec's env for the replica, and what is missing (a secret with no override)."""
    values, missing = {}, []
    for e in env:
        if e.secret is None:
            values[e.name] = e.value or ""
            continue
        variable = secret_variable(e.secret)
        if variable in environ:
            values[e.name] = environ[variable]
        else:
            key = e.secret.split(":", 1)[1]
            missing.append(f"env {e.name} reads the stack secret {e.secret}, which local-run "
                           f"does not decrypt: export {variable} (e.g. {variable}=\"$(pulumi "
                           f"config get {key})\")")
    return values, missing


def docker_command(job: Job, pool: Pool, env: dict[str, str], secrets: list[str],
                   output: str, extra: list[str]) -> list[str]:
    """`docker run` for a container pool: the image, its command and args, the env (secrets
    passed through from the shell by name, never by value) and the AIP folders mounted."""
    task = pool.task
    assert isinstance(task, Container)
    words = ["docker", "run", "--rm", "-v", f"{output}:{CONTAINER_AIP_ROOT}"]
    for name, value in env.items():
        words += ["-e", f"{name}={value}"]
    for name in secrets:
        words += ["-e", name]
    command = list(task.command)
    if command:
        words += ["--entrypoint", command[0]]
    words.append(task.image or "")
    return words + command[1:] + list(task.args) + extra


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="a spec with python.source (or a container)")
    p.add_argument("--pool", default=CHIEF.name, choices=tuple(POOL_INDEX),
                   help=f"the pool whose replica to run (default: {CHIEF.name})")
    p.add_argument("--output", metavar="DIR", help="folder for AIP_MODEL_DIR etc. (default: a "
                   "new temporary folder, kept and printed)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    extra: list[str] = getattr(args, "extra", [])
    with tempfile.TemporaryDirectory(prefix="trainspec-local-run-") as work:
        result = _compile(args, os.path.join(work, "packages"))
        if result.diagnostics:
            err.write(format_text(result.diagnostics) + "\n")
        if not result.ok or result.job is None:
            return EXIT_FAILED
        job = result.job
        pool = job.pools.get(args.pool) if job.pools else None
        if pool is None:
            err.write(f"error: {result.file}: the job has no {args.pool} pool\n")
            return EXIT_FAILED
        if BY_NAME[args.pool].image:
            err.write(f"error: {result.file}: the {args.pool} pool runs Google's "
                      f"{BY_NAME[args.pool].label} image, which local-run does not run: run the "
                      f"{CHIEF.name} or a worker (their TF_CONFIG leaves it out)\n")
            return EXIT_FAILED
        for other in job.pools.values():
            if BY_NAME[other.role].image:
                err.write(f"note: the {other.role} pool ({other.replicas} × "
                          f"{BY_NAME[other.role].label}) is not run locally and is not in "
                          "TF_CONFIG (the job's code never addresses it)\n")
        if isinstance(pool.task, Container):
            output = os.path.abspath(args.output or os.path.join("trainspec-outputs", job.name))
            return _print_docker(job, pool, result.body, output, extra, out, err)
        env, missing = spec_env(pool.env, dict(os.environ))
        task = pool.task
        assert isinstance(task, PythonPackage)
        upload = next((u for u in result.uploads if task.packages and u.uri == task.packages[0]),
                      None)
        if upload is None or upload.package.archive is None:
            err.write(f"error: {result.file}: the {args.pool} pool runs gs:// packages only: "
                      "local-run installs python.source (set it to the trainer's folder)\n")
            return EXIT_FAILED
        if missing:
            err.write("".join(f"error: {result.file}: {m}\n" for m in missing))
            return EXIT_FAILED
        output = os.path.abspath(args.output or tempfile.mkdtemp(prefix=f"trainspec-{job.name}-"))
        aip = {var: f"{output}/{sub}/" for var, sub in AIP_DIRS}
        for path in aip.values():
            os.makedirs(path, exist_ok=True)
        err.write(f"local-run {job.name}: {args.pool} replica 0, python -m {task.module}, "
                  f"package {upload.package.file_name}\n")
        err.write(f"outputs: {output}/ (AIP_MODEL_DIR={aip['AIP_MODEL_DIR']})\n")
        if not job.get(fields.OUTPUT_DIR):
            err.write("note: the spec has no outputDir: on the cloud the job gets no AIP_* "
                      "folders\n")
        for uri in task.packages[1:]:
            err.write(f"note: {uri} is not installed here (nothing is downloaded): install it "
                      "in this Python environment if the trainer needs it\n")
        python, problem = _virtualenv(Path(work) / "venv", upload.package.archive)
        if problem:
            err.write(f"error: {problem}\n")
            return EXIT_FAILED
        flag = PLATFORMS[job.platform].job_dir_argument
        args_ = list(task.args) + ([flag, output] if flag and job.get(fields.OUTPUT_DIR)
                                   else []) + extra
        child = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        child.update(aip)
        child.update(cluster_env(job, args.pool, result.body))
        child.update(env)
        child["PYTHONUNBUFFERED"] = "1"
        return _stream([python, "-m", task.module or "", *args_], child, output, out, err)


def _compile(args: argparse.Namespace, package_dir: str) -> pipeline.Result:
    """The spec compiled with its archives written to `package_dir`. Nothing is uploaded, so
    a spec without a staging bucket gets a placeholder one instead of an error."""
    options = Options(platform=args.platform, project=args.project, region=args.region,
                      staging_bucket=args.staging_bucket, package_dir=package_dir)
    stdin = args.stdin
    result = pipeline.compile_path(args.spec, options, stdin)
    # Every problem of a python.source spec is reported at once (the bucket among them): the
    # others are what a local run must report, so compile again with the placeholder.
    if any(d.code == "source-staging-bucket" for d in result.errors):
        result = pipeline.compile_path(args.spec, dataclasses.replace(
            options, staging_bucket=PLACEHOLDER_BUCKET), stdin)
    return result


def _print_docker(job: Job, pool: Pool, body: dict, output: str, extra: list[str],
                  out: TextIO, err: TextIO) -> int:
    env = {var: f"{CONTAINER_AIP_ROOT}/{sub}/" for var, sub in AIP_DIRS}
    env.update(cluster_env(job, pool.role, body))
    plain = {e.name: e.value or "" for e in pool.env if e.secret is None}
    env.update(plain)
    secrets = [e.name for e in pool.env if e.secret is not None]
    err.write(f"local-run {job.name}: a container job; trainspec does not start containers. "
              f"The {pool.role} replica, as Docker would run it (outputs in {output}/):\n")
    for e in pool.env:
        if e.secret is not None:
            err.write(f"note: export {e.name} first: it is the stack secret {e.secret}\n")
    out.write(shlex.join(docker_command(job, pool, env, secrets, output, extra)) + "\n")
    return EXIT_OK


def _site_packages(venv: Path) -> str:
    scheme = "venv" if "venv" in sysconfig.get_scheme_names() else "posix_prefix"
    return sysconfig.get_path("purelib", scheme, vars={"base": str(venv),
                                                      "platbase": str(venv)})


def _virtualenv(venv: Path, archive: str) -> tuple[str, str | None]:
    """A throwaway virtualenv that sees this environment's packages after its own, with the
    archive installed. Returns its python, or why it could not be made."""
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return "", f"cannot create a virtualenv: {made.stderr.strip()}"
    python = str(venv / "bin" / "python")
    site_dir = Path(_site_packages(venv))
    site_dir.mkdir(parents=True, exist_ok=True)
    parents = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    # `import` lines of a .pth run at start-up: addsitedir also runs the parents' .pth files
    # (editable installs), and appends, so the trainer's own install wins.
    (site_dir / "_trainspec_parent.pth").write_text("".join(
        f"import site; site.addsitedir({p!r})\n" for p in parents))
    for module in ("pip", "setuptools"):
        check = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
        if check.returncode != 0:
            return "", (f"{module} is not installed in the Python environment trainspec runs "
                        "in: local-run installs the archive with pip and setuptools, offline")
    pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps",
                          "--no-build-isolation", "--no-index", "--ignore-installed",
                          "--disable-pip-version-check", archive], capture_output=True, text=True)
    if pip.returncode != 0:
        tail = "\n".join((pip.stdout + pip.stderr).strip().splitlines()[-12:])
        hint = " (setuptools older than 70.1 also needs the `wheel` package)" \
            if "bdist_wheel" in tail else ""
        return "", f"pip could not install the archive{hint}:\n{tail}"
    return python, None


def _copy(stream, sink: TextIO) -> None:
    for line in iter(stream.readline, b""):
        sink.write(line.decode("utf-8", "replace"))
        sink.flush()


def _stream(argv: list[str], env: dict[str, str], cwd: str, out: TextIO, err: TextIO) -> int:
    """Run the trainer, copying its output as it comes; its exit code. Ctrl-C stops it as
    cancelling a job does (SIGTERM, SIGKILL 10 s later: it runs in its own session, so the
    terminal's SIGINT reaches only local-run) and exits 130."""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    copiers = [threading.Thread(target=_copy, args=(proc.stdout, out), daemon=True),
               threading.Thread(target=_copy, args=(proc.stderr, err), daemon=True)]
    for t in copiers:
        t.start()
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for t in copiers:
            t.join(timeout=5)
        err.write("interrupted\n")
        return EXIT_INTERRUPTED
    for t in copiers:
        t.join()
    return code if code >= 0 else 128 - code
