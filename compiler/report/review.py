"""`diff`'s reports: text (the terminal), markdown (a pull-request comment) and JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from .. import cost, pipeline
from .. import plan as planning
from ..diagnostics import Diagnostic, json_printable, printable
from ..review.compare import SECRET_CHANGE, Entry, Review
from ..review.redact import redact, redact_diagnostic, redact_text
from .text import format_text

MARKER = "<!-- trainspec-diff -->"  # lets CI find and update its own PR comment


def _nodes(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    # Paths spelled as plan.changes spells them, and env entries also by name (`_items`).
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        keyed = _items(value)
        for i, v in enumerate(value):
            yield from _nodes(v, f"{path}[{i}]")
            if keyed[i][0] != f"[{i}]":
                yield from _nodes(v, path + keyed[i][0])


def _bodies(e: Entry, redacted: bool) -> tuple[Any, Any]:
    return tuple((redact(r.body) if redacted else r.body) if r is not None and r.ok else {}
                 for r in (e.old, e.new))


def _redacted(changes: list[planning.Change], e: Entry) -> list[planning.Change]:
    """`changes` with every value taken from the redacted bodies: a redacted value that
    changed still shows, as `<redacted>` on both sides."""
    old, new = (dict(_nodes(body)) for body in _bodies(e, redacted=True))
    return [c if _not_body(c) else
            planning.Change(c.path, old.get(c.path) if c.kind != "added" else None,
                            new.get(c.path) if c.kind != "removed" else None, c.kind)
            for c in changes]


def _not_body(c: planning.Change) -> bool:
    """A change of where the job runs, of its run, or of a secret it reads: not a body path."""
    return c.path in planning.NON_BODY_PATHS or c.path.startswith(SECRET_CHANGE)


def _value(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list) and value:
        for key, v in _items(value):
            yield from _leaves(v, f"{path}{key}")
    else:
        yield path, value


def _by_name(items: list) -> dict[str, Any] | None:
    """Env-style lists ([{name, value}...]) keyed by name, for a diff that survives inserts."""
    if not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    keyed = {i["name"]: i for i in items}
    return keyed if len(keyed) == len(items) else None


def _items(items: list) -> list[tuple[str, Any]]:
    """A list's entries with their path step: `[name=X]` for env-style lists, else `[i]`."""
    keyed = _by_name(items)
    if keyed is not None and items:
        return [(f"[name={k}]", v) for k, v in keyed.items()]
    return [(f"[{i}]", v) for i, v in enumerate(items)]


def _refine(c: planning.Change) -> list[planning.Change]:
    """Display detail for one plan change: whole subtrees become leaf lines."""
    if c.kind == "added":
        return [planning.Change(p, None, v, "added") for p, v in _leaves(c.new, c.path)]
    if c.kind == "removed":
        return [planning.Change(p, v, None, "removed") for p, v in _leaves(c.old, c.path)]
    if isinstance(c.old, list) and isinstance(c.new, list):
        old_keyed, new_keyed = _by_name(c.old), _by_name(c.new)
        if old_keyed is not None and new_keyed is not None:
            found = planning.changes({f"[name={k}]": v for k, v in old_keyed.items()},
                                     {f"[name={k}]": v for k, v in new_keyed.items()}, "")
            found = [planning.Change(c.path + f.path.lstrip("."), f.old, f.new, f.kind)
                     for f in found]
        else:
            n = min(len(c.old), len(c.new))
            found = planning.changes(c.old[:n], c.new[:n], c.path)
            found += [planning.Change(f"{c.path}[{i}]", v, None, "removed")
                      for i, v in enumerate(c.old[n:], n)]
            found += [planning.Change(f"{c.path}[{i}]", None, v, "added")
                      for i, v in enumerate(c.new[n:], n)]
        refined = [r for f in found for r in _refine(f)]
        return refined or [c]  # only the order changed (env order is meaningful)
    return [c]


def _by_list(changes: list[planning.Change], e: Entry) -> list[planning.Change]:
    """Changes inside an env-style list (`env[0].value`) folded into one change of the whole
    list, which `_refine` shows by name (`env[name=HF_TOKEN].value`): a position says nothing
    to a reviewer, and an insert would shift every later one."""
    old, new = ({p: v for p, v in _nodes(body) if isinstance(v, list) and v
                 and _by_name(v) is not None} for body in _bodies(e, redacted=False))
    out: list[planning.Change] = []
    folded: set[str] = set()
    for c in changes:
        at = None if _not_body(c) else next(
            (p for p in (*old, *new) if c.path.startswith(p + "[")), None)
        if at is None:
            out.append(c)
        elif at not in folded:
            folded.add(at)
            out.append(planning.Change(at, old.get(at, []), new.get(at, []), "changed"))
    return out


def display_changes(e: Entry) -> list[planning.Change]:
    """The entry's changes as leaf lines, redacted. Env entries are keyed by their variable's
    name (`env[name=HF_TOKEN].value`), in every format."""
    out = []
    for c in _by_list(e.plan.changes, e):
        out += [c] if _not_body(c) else _refine(c) or [c]
    return _redacted(out, e)


def _change_lines(c: planning.Change) -> list[str]:
    """Unified-diff style lines: `- path: old`, `+ path: new`."""
    if c.path == "platform":
        return [f"- platform: {c.old}", f"+ platform: {c.new}"]
    lines = []
    if c.kind != "added":
        lines.append(f"- {c.path}: {_value(c.old)}")
    if c.kind != "removed":
        lines.append(f"+ {c.path}: {_value(c.new)}")
    return lines


def _title(e: Entry) -> str:
    moved = f"{e.old_file} → {e.new_file}" if e.renamed else e.file
    kind = ", tuning job" if e.tuning else ""
    return f"{moved} (job {e.job or '?'}, {e.platform or '?'}{kind})"


def redacted_errors(r: pipeline.Result, secrets: Iterable[str] = ()) -> list[Diagnostic]:
    """The result's errors, redacted like field values (a message may quote a value)."""
    return [redact_diagnostic(d, secrets) for d in r.diagnostics if d.is_error]


def head_errors(e: Entry) -> list[Diagnostic]:
    """Why the entry's HEAD side cannot be applied (compile errors, or the change `pulumi up`
    refuses), redacted."""
    return [redact_diagnostic(d, e.secrets) for d in e.errors]


def _failure(e: Entry) -> str:
    return ("pulumi up refuses this change" if e.refused is not None
            else "the spec does not compile on the HEAD side")


def render_text(rv: Review) -> str:
    head = f"trainspec diff {rv.base} → {rv.head} ({rv.specs})"
    moved = [f"moved, same request: {e.old_file} → {e.new_file}" for e in rv.moved]
    if not rv.changed:
        return "\n".join([head, f"no changes: {rv.compared} spec file(s) compile to the same "
                          "requests", *moved]) + "\n"
    out = [head, ""]
    for e in rv.changed:
        out.append(_title(e))
        if e.failed:
            out.append(f"  error: {_failure(e)}")
            out += ["  " + line for line in format_text(head_errors(e)).splitlines()]
            for c in display_changes(e) if e.refused is not None else ():
                out += ["    " + line for line in _change_lines(c)]
        else:
            out.append(f"  {e.plan.description}")
            out.append(f"  cost: {_cost(e)}")
            out += [f"  {cost.MARK} {note}" for note in cost.footnotes(*_estimates(e))]
            for c in display_changes(e):
                out += ["    " + line for line in _change_lines(c)]
            if e.search:
                out.append("  search space" + (" (before)" if e.new is None else ""))
                out += ["    " + redact_text(line, e.secrets) for line in e.search]
        if e.base_failed:
            out.append("  note: the spec did not compile on the BASE side:")
            out += ["  " + line for line in format_text(redacted_errors(e.old, e.secrets)).splitlines()]
        out.append("")
    out += moved + [_summary_line(rv), _total_line(rv)]
    return "".join(printable(line) + "\n" for line in out)  # a key never forges a line


def _estimates(e: Entry) -> tuple[cost.Estimate | None, cost.Estimate | None]:
    return cost.of_result(e.old), cost.of_result(e.new)


def _resubmitted(e: Entry) -> bool:
    """`pulumi up` submits a new job for this entry (plan.classify's replace: a new
    metadata.run, new trainer code, any change of the request)."""
    return e.plan.action == planning.REPLACE


def _cost(e: Entry) -> str:
    return cost.change_line(*_estimates(e), resubmitted=_resubmitted(e))


def _rerun(e: Entry) -> Decimal | None:
    return cost.rerun(*_estimates(e), _resubmitted(e))


def _total(rv: Review) -> tuple[Decimal, Decimal, list[str]]:
    """The change of the most a run of every changed job costs, what the re-runs (replaced
    jobs whose run costs the same) cost at most, and the jobs whose price is unknown on either
    side (left out of both)."""
    total, reruns, unknown = Decimal(0), Decimal(0), []
    for e in rv.changed:
        if e.failed:
            continue
        delta, again = cost.difference(*_estimates(e)), _rerun(e)
        if delta is None:
            unknown.append(e.job or e.file)
        else:
            total += delta
            reruns += again or 0
    return total, reruns, unknown


def _total_line(rv: Review) -> str:
    total, reruns, unknown = _total(rv)
    again = f"; re-runs: {cost.signed(reruns)} at most" if reruns else ""
    left = f"; price unknown for {', '.join(unknown)}, not counted" if unknown else ""
    return f"cost: {cost.signed(total)}/run at most{again}{left}"


def _footnotes(rv: Review) -> list[str]:
    """Every changed job's secondary-price footnotes, once each."""
    return [f"{cost.MARK} {note}" for note in dict.fromkeys(
        n for e in rv.changed if not e.failed for n in cost.footnotes(*_estimates(e)))]


def _summary_line(rv: Review) -> str:
    counts: dict[str, int] = {}
    for e in rv.changed:
        counts[e.action] = counts.get(e.action, 0) + 1
    parts = [f"{counts[a]} {a}" for a in ("create", "replace", "update", "delete", "error")
             if a in counts]
    return f"{len(rv.changed)} of {rv.compared} spec file(s) changed: " + ", ".join(parts)


_ACTION_LABEL = {"create": "🟢 create", "replace": "🟠 replace", "update": "🔵 update in place",
                 "delete": "🔴 delete", "error": "❌ error"}


def _label(e: Entry) -> str:
    """The action cell: a label change kept for the next run is no update in place."""
    return "🔵 labels recorded (no re-run)" if e.plan.recorded else _ACTION_LABEL[e.action]


def _cell(text: str) -> str:
    """Markdown of a table cell: `|` would end the cell."""
    return printable(text).replace("|", "\\|")


def _code(text: str) -> str:
    """Markdown of `text` as inline code: its backticks cannot end the span, so nothing in it
    (a file name, a revision) is read as Markdown or HTML."""
    text = printable(text)
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


COMMENT_LIMIT = 65_536  # characters in a GitHub comment body; longer ones are refused


def render_markdown(rv: Review, limit: int = COMMENT_LIMIT) -> str:
    """A PR comment. Longer than `limit`, it is summarised (whole table rows, no per-spec
    details, a count of what is left out), never cut mid-table: GitHub refuses longer ones."""
    head = [MARKER, f"### trainspec diff: {_code(rv.base)} → {_code(rv.head)}", ""]
    moved = [f"- moved, same request: {_code(e.old_file)} → {_code(e.new_file)}"
             for e in rv.moved]
    if not rv.changed:
        text = "\n".join(head + [f"No changes: {rv.compared} spec file(s) compile to the same "
                                 "requests."] + moved) + "\n"
        if len(text) <= limit:
            return text
        return "\n".join(head + [f"No changes: {rv.compared} spec file(s) compile to the same "
                                 f"requests; {len(rv.moved)} moved to another file."]) + "\n"
    table = ["| Spec | Job | Platform | Action | Cost a run (at most) |", "|---|---|---|---|---|"]
    for e in rv.changed:
        spec = f"{_code(e.old_file)} → {_code(e.new_file)}" if e.renamed else _code(e.file)
        table.append(f"| {_cell(spec)} | {_md(e.job or '?')} | {_md(e.platform or '?')} | "
                     f"{_label(e)} | {_cell('' if e.failed else _cost(e))} |")
    details = []
    for e in rv.changed:
        if e.failed:
            body = format_text(head_errors(e))
            what, lang = ("error: refused by pulumi up" if e.refused is not None
                          else "error: does not compile"), ""
            if e.refused is not None:
                body += "\n" + "\n".join(line for c in display_changes(e)
                                          for line in _change_lines(c))
        else:
            lines = [line for c in display_changes(e) for line in _change_lines(c)]
            lines += [f"# {redact_text(line, e.secrets)}" for line in e.search]
            body, what, lang = "\n".join(lines), e.plan.description, "diff"
        if e.base_failed:
            body += "\n# the BASE side did not compile:\n" + format_text(redacted_errors(e.old, e.secrets))
        body = "\n".join(map(printable, body.split("\n")))
        fence = _fence(body)
        details += [f"<details><summary><code>{_html(e.file)}</code>: {_html(what)}</summary>",
                    "", f"{fence}{lang}", body, fence, "", "</details>", ""]
    notes = [line for n in _footnotes(rv) for line in (_cell(n), "")]
    text = "\n".join(head + table + ["", *moved, _summary_line(rv), "",
                                     f"**{_total_line(rv)}**", "", *notes] + details)
    if len(text) <= limit:
        return text
    out = head + [_summary_line(rv), "", f"**{_total_line(rv)}**", "",
                  *notes,
                  f"_This report is {len(text):,} characters, more than a GitHub comment takes "
                  f"({limit:,}): a summary without per-spec details. "
                  "`python -m compiler diff` prints them all (see the job log)._", ""]
    tail = ([f"{len(rv.moved)} spec(s) moved to another file with the same request."]
            if rv.moved else [])
    reserve = len(f"… and {len(table)} more spec(s), not listed here.") + 4 + sum(
        len(line) + 1 for line in tail)
    used = sum(len(line) + 1 for line in out)
    shown_rows = 0
    for row in table:
        if used + len(row) + 1 > limit - reserve:
            break
        out.append(row)
        used += len(row) + 1
        shown_rows += 1
    if shown_rows <= 2:  # not even one row: no table at all
        out = out[:len(out) - shown_rows]
        shown_rows = 2
    left = len(table) - shown_rows
    out.append("")
    if left:
        out.append(f"… and {left} more spec(s), not listed here.")
    return "\n".join(out + tail) + "\n"


def _html(text: str) -> str:
    """`text` inside HTML (the comment's <details> lines): tags and entities escaped."""
    return printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md(text: str) -> str:
    """`text` as Markdown text (a table cell): as is if it is a plain name, else as inline code,
    where nothing (emphasis, a link, HTML, an @mention, `|` ending the cell) is markup."""
    return text if re.fullmatch(r"[A-Za-z0-9_.-]*", text) else _cell(_code(text))


def render_json(rv: Review) -> str:
    specs = []
    for e in rv.changed:
        item: dict[str, Any] = {
            "file": e.file, "oldFile": e.old_file, "newFile": e.new_file, "job": e.job or None,
            "platform": e.platform or None, "action": e.action,
            "description": None if e.failed else e.plan.description,
            "changes": [] if e.failed and e.refused is None else [
                {"path": c.path, "kind": c.kind, "old": c.old, "new": c.new}
                for c in display_changes(e)],
            "errors": [d.to_json() for d in head_errors(e)] if e.failed else [],
            "searchSpace": [redact_text(line, e.secrets) for line in e.search],
            "cost": None if e.failed else _cost_json(e),
            "baseErrors": ([d.to_json() for d in redacted_errors(e.old, e.secrets)]
                           if e.base_failed else []),
        }
        specs.append(item)
    summary = {a: sum(e.action == a for e in rv.changed)
               for a in ("create", "replace", "update", "delete", "error")}
    report = {"base": rv.base, "head": rv.head, "specs": rv.specs, "compared": rv.compared,
              "changed": len(rv.changed), "ok": not rv.failed, "exitCode": rv.exit_code,
              "summary": summary, "entries": specs, "cost": _total_json(rv),
              "moved": [{"oldFile": e.old_file, "newFile": e.new_file} for e in rv.moved]}
    return json_printable(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"



def _money(value: Decimal | None) -> str | None:
    """A dollar amount in JSON: a string of the exact decimal (no float rounding), or null."""
    return None if value is None else str(value.quantize(Decimal("0.01")))


def _side_json(e: cost.Estimate | None) -> dict | None:
    if e is None:
        return None
    return {"hourlyUsd": _money(e.rate_at_once), "atMostUsd": _money(e.at_most),
            "timeoutSeconds": int(e.timeout), "timeoutWritten": e.timeout_written,
            "tier": e.tier, "region": e.region,
            "priceUnknown": [cost.item_name(m) for m in e.missing],
            "secondaryPrices": [{"item": cost.item_name(p.item), "source": p.source,
                                 "asOf": p.as_of} for p in e.secondary]}


def _cost_json(e: Entry) -> dict:
    before, after = _estimates(e)
    return {"before": _side_json(before), "after": _side_json(after),
            "changeUsd": _money(cost.difference(before, after)), "rerunUsd": _money(_rerun(e))}


def _total_json(rv: Review) -> dict:
    total, reruns, unknown = _total(rv)
    return {"changeUsd": _money(total), "rerunUsd": _money(reruns), "priceUnknown": unknown}
