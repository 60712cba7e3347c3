"""Hourly training prices, per platform, region, item (machine type, accelerator enum or ml
scale tier) and provisioning tier, from compiler/catalog/prices.csv.

Every row names its source (a pricing page URL, or the Cloud Billing Catalog SKU ids it was
computed from), the date the price was seen, and its status: `verified` when it was read from
a current primary source (Google's pricing page as published, or the Cloud Billing Catalog API
by `trainspec prices refresh`, which dates its rows), `secondary` for anything else (an archived
copy of a page, an undated stored copy, SKU prices quoted by a third party). A refusal must be
certain: the cost policies refuse a job only at verified prices (compiler/config/policy.py).
A row whose price is `unknown` lists an item no source gave a price for: an estimate says
"price unknown", never a guess. `trainspec prices
refresh` (compiler/prices.py) rewrites the file; `dumps` writes it the same way every time.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

PATH = Path(__file__).with_name("prices.csv")
ON_DEMAND, SPOT, FLEX_START = "on-demand", "spot", "flex-start"
TIERS = (ON_DEMAND, SPOT, FLEX_START)
MACHINE, ACCELERATOR, SCALE_TIER = "machine", "accelerator", "scale-tier"
ANY = "*"  # the region (and tier) of an `unknown` row
UNKNOWN = "unknown"
VERIFIED, SECONDARY = "verified", "secondary"
STATUSES = (VERIFIED, SECONDARY)
COLUMNS = ("platform", "region", "item", "kind", "tier", "usd_per_hour", "source", "as_of",
           "status")
# scheduling.strategy → the tier its prices come from (facts §A: STANDARD is on-demand).
STRATEGY_TIER = {None: ON_DEMAND, "STANDARD": ON_DEMAND, "SPOT": SPOT, "FLEX_START": FLEX_START}


@dataclass(frozen=True)
class Price:
    platform: str
    region: str
    item: str
    kind: str
    tier: str
    usd_per_hour: Decimal | None  # None: an `unknown` row
    source: str
    as_of: str  # YYYY-MM-DD
    status: str  # VERIFIED only when read from a current primary source

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED

    def row(self) -> tuple[str, ...]:
        usd = UNKNOWN if self.usd_per_hour is None else str(self.usd_per_hour)
        return (self.platform, self.region, self.item, self.kind, self.tier, usd, self.source,
                self.as_of, self.status)


def loads(text: str) -> tuple[Price, ...]:
    reader = csv.DictReader(io.StringIO(text))
    return tuple(Price(r["platform"], r["region"], r["item"], r["kind"], r["tier"],
                       None if r["usd_per_hour"] == UNKNOWN else Decimal(r["usd_per_hour"]),
                       r["source"], r["as_of"], r["status"]) for r in reader)


def dumps(rows: tuple[Price, ...] | list[Price]) -> str:
    """The CSV text: the header, then the rows sorted (priced before unknown), `\\n` endings."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for p in sorted(set(rows), key=lambda p: (p.usd_per_hour is None, p.platform, p.kind,
                                              p.item, p.region, p.tier)):
        writer.writerow(p.row())
    return out.getvalue()


def index(rows: tuple[Price, ...]) -> dict[tuple[str, str, str, str], Price]:
    """The priced rows by (platform, region, item, tier), as `find` reads them."""
    return {(p.platform, p.region, p.item, p.tier): p for p in rows if p.usd_per_hour is not None}


ROWS: tuple[Price, ...] = loads(PATH.read_text(encoding="utf-8"))
_BY_KEY = index(ROWS)


def find(platform: str, region: str | None, item: str, tier: str = ON_DEMAND) -> Price | None:
    """The priced row of `item` in `region` at `tier`, None when its price is unknown."""
    return _BY_KEY.get((platform, region or "", item, tier))


def catalog_items() -> dict[tuple[str, str], str]:
    """(platform, item) → kind, for every machine, accelerator and scale tier the catalog
    tables know: each has a price somewhere or an `unknown` row."""
    from compiler.catalog import accelerators, machines

    items = {("vertex", m): MACHINE for m in machines.VERTEX_MACHINES}
    items |= {("vertex", a): ACCELERATOR for a in accelerators.VERTEX_TYPES}
    items |= {("ai-platform", m): MACHINE
              for m in machines.ML_CE_MACHINES | set(machines.ML_LEGACY_MACHINES)}
    items |= {("ai-platform", a): ACCELERATOR for a in accelerators.ML_TYPES}
    items |= {("ai-platform", t): SCALE_TIER for t in machines.SCALE_TIERS if t != "CUSTOM"}
    return items


def with_unknowns(rows: list[Price], as_of: str, source: str) -> list[Price]:
    """`rows` plus an `unknown` row for each catalog item none of them prices."""
    priced = {(p.platform, p.item) for p in rows if p.usd_per_hour is not None}
    return [p for p in rows if p.usd_per_hour is not None] + [
        Price(platform, ANY, item, kind, ANY, None, source, as_of, SECONDARY)
        for (platform, item), kind in sorted(catalog_items().items())
        if (platform, item) not in priced]
