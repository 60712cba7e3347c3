"""What a job costs: its hourly rate by pool (replicas × (machine + accelerators)) and the most
it can cost, at its timeout (the API's default, 7 days, when none is written), from the price
catalog (compiler/catalog/prices.py). Pure: a job in, an Estimate out; an item without a
price makes the estimate "price unknown", never a guess, and an estimate at a price not read
from a current primary source carries a mark (†) and a footnote naming that source."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from . import fields
from .catalog import accelerators, machines
from .catalog import prices as catalog
from .durations import human
from .model import Job

HOUR = Decimal(3600)
MARK = "†"  # an estimate at a secondary price; its footnote names the source
REFRESH = "run `trainspec prices refresh`"
API_DEFAULT_TIMEOUT = Decimal(7 * 24 * 3600)  # both APIs stop a job after 7 days by default


@dataclass(frozen=True)
class PoolCost:
    role: str
    path: str
    replicas: int
    parts: tuple[tuple[str, int, catalog.Price | None], ...]  # (item, count, its price row)

    @property
    def missing(self) -> list[str]:
        return [item for item, _, found in self.parts if found is None]

    @property
    def rate(self) -> Decimal | None:
        if self.missing:
            return None
        return self.replicas * sum((n * found.usd_per_hour for _, n, found in self.parts
                                    if found and found.usd_per_hour), Decimal(0))


@dataclass(frozen=True)
class Estimate:
    platform: str
    region: str | None
    tier: str
    pools: tuple[PoolCost, ...]
    timeout: Decimal  # seconds
    timeout_written: bool
    trials: int = 1  # a tuning job's maxTrialCount
    parallel: int = 1  # its parallelTrialCount

    @property
    def missing(self) -> list[str]:
        return sorted({m for p in self.pools for m in p.missing})

    @property
    def secondary(self) -> list[catalog.Price]:
        """The price rows used that were not read from a current primary source."""
        return list(dict.fromkeys(found for p in self.pools for _, _, found in p.parts
                                  if found is not None and not found.verified))

    @property
    def verified(self) -> bool:
        """Every price known and verified: the estimate is certain enough to refuse a job."""
        return self.rate is not None and not self.secondary

    @property
    def rate(self) -> Decimal | None:
        """One trial's (a job's) hourly rate; None when a price is unknown."""
        if self.missing or not self.pools:
            return None
        return sum((p.rate for p in self.pools if p.rate is not None), Decimal(0))

    @property
    def rate_at_once(self) -> Decimal | None:
        return None if self.rate is None else self.rate * self.parallel

    @property
    def at_most(self) -> Decimal | None:
        """Every trial running to the timeout."""
        return None if self.rate is None else self.rate * self.timeout / HOUR * self.trials

    @property
    def waves(self) -> int:
        return math.ceil(self.trials / self.parallel)

    def timeout_text(self) -> str:
        return human(self.timeout) + ("" if self.timeout_written else " (API default)")


def estimate(job: Job, scale_tier: str | None = None) -> Estimate:
    """`job`'s estimate; `scale_tier`: an ml job without pools runs this tier (BASIC)."""
    tier = catalog.STRATEGY_TIER.get(job.get(fields.STRATEGY), catalog.ON_DEMAND)
    timeout = job.get(fields.TIMEOUT_ROW)

    def price(item: str) -> catalog.Price | None:
        return catalog.find(job.platform, job.region, item, tier)

    pools = []
    if not job.pools:  # an ml scale tier: only ml jobs have no pools after resolve
        name = scale_tier or job.ai_platform.get("scaleTier") or "BASIC"
        pools.append(PoolCost("scale tier", "$.spec.aiPlatform.scaleTier", 1,
                              ((name, 1, price(name)),)))
    for pool in job.pools.values():
        machine = pool.machine_type or "?"
        parts = [(machine, 1, price(machine))]
        # ml's legacy machine names include their GPUs in their price.
        if pool.accelerator_type and not machines.is_ml_legacy_name(machine):
            parts.append((pool.accelerator_type, pool.accelerator_count or 1,
                          price(pool.accelerator_type)))
        pools.append(PoolCost(pool.role, pool.path, pool.replicas, tuple(parts)))
    tuning = job.tuning
    return Estimate(job.platform, job.region, tier, tuple(pools),
                    Decimal(timeout) if timeout is not None else API_DEFAULT_TIMEOUT,
                    timeout is not None,
                    (tuning.max_trials or 1) if tuning else 1,
                    (tuning.parallel_trials or 1) if tuning else 1)


def usd(value: Decimal | None) -> str:
    """$1,234.56, or "price unknown"."""
    return "price unknown" if value is None else f"${value:,.2f}"


def signed(value: Decimal) -> str:
    return ("+" if value >= 0 else "-") + usd(abs(value))


def item_name(item: str) -> str:
    return accelerators.short_name(item) if item in accelerators.ALL_TYPES else item


def footnote(e: Estimate) -> str | None:
    """`price from a secondary source (SOURCE, DATE): run ...`, None when every price used is
    verified (or none is known)."""
    rows = e.secondary
    if not rows or e.rate is None:
        return None
    dates: dict[str, list[str]] = {}
    for p in rows:
        dates.setdefault(p.as_of, []).append(p.source)
    named = "; ".join("; ".join(dict.fromkeys(sources)) + f", {as_of}"
                      for as_of, sources in dates.items())
    what = "prices from secondary sources" if len(rows) > 1 else "price from a secondary source"
    return f"{what} ({named}): {REFRESH}"


def marked(e: Estimate | None, text: str) -> str:
    """`text` with the mark when `e` uses a secondary price."""
    return text + f" {MARK}" if e is not None and footnote(e) else text


def lines(e: Estimate) -> list[str]:
    """explain's cost section: a line per pool, then the job's rate and bound, then the
    footnote of a secondary price."""
    where = f"{e.tier} prices, {e.region or 'no region'}"
    out = [f"cost       {where} (compiler/catalog/prices.csv)"]
    for p in e.pools:
        parts = " + ".join((f"{n} × " if n > 1 else "") + f"{item_name(item)} "
                           + (f"{usd(found.usd_per_hour)}/h" if found else "(price unknown)")
                           for item, n, found in p.parts)
        rate = f"{usd(p.rate)}/h" if p.rate is not None else "price unknown"
        out.append(f"  {p.role:<24} {p.replicas} × ({parts}) = {rate}")
    if e.rate is None:
        out.append(f"  {'total':<24} price unknown: {why(e)}")
        return out
    if e.trials > 1 or e.parallel > 1:
        out.append(f"  {'trial':<24} {usd(e.rate)}/h; {e.parallel} in parallel: "
                   f"{usd(e.rate_at_once)}/h at once")
        out.append(marked(e, f"  {'total':<24} at most {usd(e.at_most)} for {e.trials} "
                             f"trials × the {e.timeout_text()} timeout; done within {e.waves} × "
                             f"{human(e.timeout)} = {human(e.timeout * e.waves)}"))
    else:
        out.append(marked(e, f"  {'total':<24} {usd(e.rate)}/h; at most {usd(e.at_most)} for "
                             f"the {e.timeout_text()} timeout"))
    note = footnote(e)
    return out + ([f"  {MARK} {note}"] if note else [])


def summary(e: Estimate) -> str:
    """The estimate in one line, for a Pulumi preview: `$R/h; at most $X for the 1d timeout`
    (a tuning job: for N trials × the timeout), marked and footnoted at a secondary price."""
    if e.rate is None:
        return f"price unknown: {why(e)}"
    trials = f"{e.trials} trials × " if e.trials > 1 else ""
    text = f"{usd(e.rate_at_once)}/h; at most {usd(e.at_most)} for {trials}the " \
           f"{e.timeout_text()} timeout"
    note = footnote(e)
    return f"{text} {MARK} ({MARK} {note})" if note else text


def last_run(e: Estimate, name: str, state: str, seconds: float | None) -> str:
    """explain's line for the spec's last job: what it ran for × the rate (all its replicas;
    a tuning job's parallel trials), at today's catalog prices."""
    if seconds is None:
        return f"  {'last run':<24} {name} ({state}) has not started"
    ran = human(Decimal(int(seconds)))
    if e.rate is None:
        return f"  {'last run':<24} {name} ({state}) ran {ran}; price unknown: {why(e)}"
    spent = e.rate_at_once * Decimal(int(seconds)) / HOUR
    return marked(e, f"  {'last run':<24} {name} ({state}) ran {ran} × {usd(e.rate_at_once)}/h "
                     f"≈ {usd(spent)}")


def of_result(result) -> Estimate | None:  # noqa: ANN001 - a pipeline.Result (no import circle)
    """The estimate of a compiled spec, None when it did not compile."""
    if result is None or not result.ok or result.job is None:
        return None
    tier = (result.body or {}).get("trainingInput", {}).get("scaleTier")
    return estimate(result.job, tier)


def change_line(before: Estimate | None, after: Estimate | None,
                resubmitted: bool = False) -> str:
    """A job's cost before → after: `$a/h → $b/h; at most $X → $Y a run (+$Z)`, marked when a
    price is secondary. `resubmitted`: the change submits a new job (a replace); when the
    price of a run is the same, the line says what the new run costs (`re-run: +$Y at most`),
    not +$0.00."""
    def rate(e: Estimate) -> str:
        return "price unknown" if e.rate_at_once is None else f"{usd(e.rate_at_once)}/h"

    if before is None and after is None:
        return "none"
    sides = [e for e in (before, after) if e is not None]
    if all(e.rate is None for e in sides):
        return "price unknown (" + "; ".join(dict.fromkeys(why(e) for e in sides)) + ")"
    if before is None:
        text = f"{rate(after)}; at most {usd(after.at_most)} a run"  # type: ignore[union-attr]
    elif after is None:
        text = f"was {rate(before)}; at most {usd(before.at_most)} a run"
    else:
        text = (f"{rate(before)} → {rate(after)}; at most {usd(before.at_most)} → "
                f"{usd(after.at_most)} a run")
    delta, again = difference(before, after), rerun(before, after, resubmitted)
    unknown = [why(e) for e in (before, after) if e is not None and e.rate is None]
    text += (f" (re-run: {signed(again)} at most)" if again is not None else
             f" ({signed(delta)})" if delta is not None else
             f" ({'; '.join(dict.fromkeys(unknown))})")
    return text + (f" {MARK}" if footnotes(before, after) else "")


def footnotes(*estimates: Estimate | None) -> list[str]:
    """The distinct footnotes of the estimates' secondary prices."""
    return list(dict.fromkeys(n for e in estimates if e is not None
                              for n in [footnote(e)] if n))


def rerun(before: Estimate | None, after: Estimate | None, resubmitted: bool) -> Decimal | None:
    """What a resubmitted job whose run costs the same as before adds: a whole new run (at
    most); None when it is not such a job or a price is unknown."""
    if not resubmitted or difference(before, after) != 0:
        return None
    return after.at_most if after is not None else None


def why(e: Estimate) -> str:
    """Why an estimate has no price: `no price for T4, n1-standard-8 in europe-west4 (spot)`."""
    if not e.region:
        return "no region"
    return ("no price for " + ", ".join(item_name(m) for m in e.missing)
            + f" in {e.region} ({e.tier})")


def difference(before: Estimate | None, after: Estimate | None) -> Decimal | None:
    """The change of the most a run costs; None when either side's price is unknown."""
    olds = Decimal(0) if before is None else before.at_most
    news = Decimal(0) if after is None else after.at_most
    return None if olds is None or news is None else news - olds
