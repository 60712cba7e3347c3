"""`status`'s text: one row per spec (its job's state, start, duration, console link), then
what a person needs next about each job (its error, shells, TensorBoard, trials, whether the
spec changed since). The rows come from `track.view`; `--format json` prints them as they are.
"""

from __future__ import annotations

from . import track


def render(views: list[dict]) -> str:
    """The table of `views` (track.view) and the details under it."""
    stacks = sorted({v["stack"] for v in views})
    rows = [("SPEC", "JOB", "PLATFORM", "STATE", "STARTED", "DURATION", "CONSOLE")]
    details: list[str] = []
    for v in views:
        if not v["exists"]:
            rows.append((v["spec"], v["name"], v["platform"], "NOT SUBMITTED", "-", "-", "-"))
            continue
        started = track.parse_time(v["startTime"])
        rows.append((v["spec"], v["name"], v["platform"], v["state"],
                     f"{started:%Y-%m-%d %H:%M:%SZ}" if started else "-", v["duration"],
                     v["consoleUrl"]))
        details += _details(v)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = [f"stack {', '.join(stacks)}"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in rows]
    missing = [v for v in views if not v["exists"]]
    if missing:
        lines.append(f"{len(missing)} spec(s) have no job in this stack yet: `pulumi up` submits "
                     "them (a stack or project renamed since its jobs were submitted finds them "
                     "only while it names its former name: `pulumi config set "
                     "trainspec:renamedFrom ORG/PROJECT/STACK`; a Vertex job keeps its former "
                     "owner label, so keep trainspec:renamedFrom set while they run)")
    return "\n".join([line.rstrip() for line in lines] + details) + "\n"


def _details(v: dict) -> list[str]:
    out = []
    if v["error"]:
        out.append(f"  error     {v['error']}")
    for task, uri in v["webAccessUris"].items():
        out.append(f"  shell     {track.replica_name(v['platform'], task):<10} {uri}")
    if v["tensorboardUrl"]:
        out.append(f"  tensorboard {v['tensorboardUrl']}")
    t = v["trials"]
    if t:
        text = f"  trials    {t['completed']} of {t['max'] or '?'} completed"
        if t["best"]:
            params = ", ".join(f"{k}={_short(val)}"
                               for k, val in t["best"]["hyperparameters"].items())
            text += (f"; best trial {t['best']['trialId']}: {t['metric'] or 'objective'} "
                     f"{t['best']['objectiveValue']} ({t['goal']})" + (f" with {params}"
                                                                    if params else ""))
        out.append(text)
    if not v["current"]:
        out.append("  note      the spec changed since this job was submitted; `pulumi up` "
                   "replaces it")
    if v["previousRuns"]:
        out.append(f"  history   {v['previousRuns']} earlier run(s) of this spec are kept")
    return [f"{v['name']}: {v['job']}", *out] if out else []


def _short(value: object) -> str:
    """A trial's value as a person reads it: Vertex sends numbers as doubles (128.0)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)

