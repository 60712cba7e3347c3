"""A `pulumi up` killed (SIGKILL of the CLI, or of its whole process group) while a create is
pending, then `pulumi cancel` and `pulumi up` again, as a user does.

Nothing the killed CLI left is killed by these tests between the steps: the user's machine still
runs whatever it left (the provider plugin, the program), so what it does after the kill is part
of the outcome. The pending create is either refused with 429 and a Retry-After (the provider is
waiting to POST again) or taken by the API but not yet answered (a slow POST). Afterwards: one
live job per spec, each in the stack's state; the provider plugin and the program are gone
within a bounded time; `destroy` leaves nothing running.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from faultproxy import FaultProxy
from job_specs import HOLD, ml, vertex

VERTEX_SPECS = ("a", "b")
LIVE = {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "QUEUED", "PREPARING",
        "RUNNING"}
GONE_WITHIN = 15.0  # seconds: what the killed CLI left must have stopped by then
RETRY_AFTER = 3.0  # seconds, of each 429


def ours(root: Path) -> dict[int, str]:
    """pid → command line of each live process a `pulumi up` in `root` started that may call the
    API: the provider plugin, and the program (a Python program runs in the project directory).
    Pulumi's own language host is not listed: it checks on its engine on its own schedule."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = [a.decode(errors="replace") for a in
                    (entry / "cmdline").read_bytes().split(b"\0") if a]
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z" or cwd != str(root) or not argv:
            continue
        if any(a.endswith("pulumi-resource-trainspec") for a in argv) or Path(
                argv[0]).name.startswith("python"):
            found[int(entry.name)] = " ".join(argv)
    return found


def wait_until_gone(pids: dict[int, str], until: float) -> dict[int, str]:
    """The processes of `pids` still running at monotonic time `until` (or when all stopped)."""
    while True:
        left = {pid: argv for pid, argv in pids.items() if alive(pid)}
        if not left or time.monotonic() > until:
            return left
        time.sleep(0.25)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def kill(proc, how: str) -> None:
    if how == "group":
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI runs in a session of its own
    else:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)


class HeldCreates:
    """Creates the emulator performs at once but answers only at `release` (a slow POST)."""

    def __init__(self, emulator):
        self.emulator, self.handle = emulator, emulator.api.handle
        self.count, self.released = 0, threading.Event()
        self._seen = threading.Condition()
        emulator.api.handle = self._handle

    def _handle(self, method, target, body=b"", **kw):
        answer = self.handle(method, target, body, **kw)
        if method == "POST" and target.split("?")[0].endswith(("/customJobs", "/jobs")):
            with self._seen:
                self.count += 1
                self._seen.notify_all()
            self.released.wait(120)
        return answer

    def wait_for(self, count: int, seconds: float) -> bool:
        with self._seen:
            return self._seen.wait_for(lambda: self.count >= count, seconds)

    def release(self) -> None:
        self.emulator.api.handle = self.handle
        self.released.set()


@pytest.mark.parametrize("how", ["cli", "group"])
@pytest.mark.parametrize("pending", ["429", "slow"])
def test_a_killed_up_never_duplicates_a_job(project, emulator, pending, how):
    specs = len(VERTEX_SPECS) + 1
    with FaultProxy(emulator.url, drop="none") as proxy:
        p = project(endpoint=proxy.url)
        for name in VERTEX_SPECS:
            p.write(f"specs/{name}.yaml", vertex(name=name, labels=HOLD))
        p.write("specs/census.yaml", ml(labels=HOLD))
        held = None
        if pending == "429":
            proxy.throttle = RETRY_AFTER
        else:
            held = HeldCreates(emulator)
        up = p.popen("up", "--yes", "--skip-preview")
        try:
            deadline = time.monotonic() + 120
            while pending == "429" and proxy.refused < specs and time.monotonic() < deadline:
                time.sleep(0.1)
            assert (held.wait_for(specs, 120) if held else proxy.refused >= specs), (
                up.stdout.read() if up.poll() is not None else "the creates never came")
            running = ours(p.root)  # what may outlive the CLI
            assert any("pulumi-resource-trainspec" in a for a in running.values()), running
            kill(up, how)
            killed = time.monotonic()

            # At once, still throttled: the next `up` lists and POSTs into the same 429s as
            # anything the killed one left behind; both retry once the API takes creates again.
            p.run("cancel", "--yes")  # the killed `up` left its lock
            lists = len(emulator.requests("GET", "/customJobs?filter"))
            again = p.popen("up", "--yes", "--skip-preview")
            if pending == "429":
                deadline = time.monotonic() + 120
                while (len(emulator.requests("GET", "/customJobs?filter")) < lists + 2
                       and time.monotonic() < deadline and again.poll() is None):
                    time.sleep(0.1)
                time.sleep(1.0)  # its POSTs are refused too
            proxy.throttle = None
            if held:
                held.release()
            out, _ = again.communicate(timeout=300)
            assert again.returncode == 0, out
        finally:
            proxy.throttle = None
            if held:
                held.release()
        time.sleep(RETRY_AFTER + 1)  # anything still retrying has POSTed by now

        jobs = {**emulator.vertex_jobs(), **emulator.ml_jobs()}
        live = sorted(n for n, j in jobs.items() if j["state"] in LIVE)
        tracked = sorted(r["id"] for r in p.resources())
        left = wait_until_gone(running, killed + GONE_WITHIN)
        try:
            assert left == {}, f"still running {GONE_WITHIN:g}s after the kill: {left}"
            assert live == tracked and len(live) == specs, (live, tracked, out)

            p.run("destroy", "--yes", "--skip-preview")
            time.sleep(RETRY_AFTER + 1)
            running = sorted(n for n, j in {**emulator.vertex_jobs(), **emulator.ml_jobs()}.items()
                             if j["state"] in LIVE)
            assert running == []
        finally:
            p.kill_strays()  # after the assertions: never between the steps
