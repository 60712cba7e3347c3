"""`trainspec prices refresh`: rebuild compiler/catalog/prices.csv from the Cloud Billing
Catalog API, the SKUs of the service named "Vertex AI" (its id, C7E2-9256-1C43, is found in
the API's own service list each time, never assumed).

What a refresh rewrites: the Vertex AI on-demand and Spot (usageType OnDemand, Preemptible)
rows, one per accelerator SKU ("Vertex AI: Training/Pipelines on NVIDIA H100 80GB in Iowa")
and per machine whose family's core and RAM SKUs are both listed (vCPUs × core price + GB ×
RAM price, the shapes in compiler/catalog/vertex_machines.py), in each region of the SKU's
serviceRegions. What it keeps as it is: the Flex-start rows (billed as Compute Engine SKUs plus
a Vertex management fee) and the ai-platform rows (Google's pricing page; the legacy service
has no SKUs of its own), with their status. The rows it writes are `verified` (read from the
Billing Catalog, a current primary source, dated the day of the refresh). Every catalog item
left without a price gets an `unknown` row.
Refresh monthly, and before a release: Google changes prices with notice, and the file says
the date each price was read (as_of)."""

from __future__ import annotations

import argparse
import datetime
import re
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import TextIO

from .catalog import accelerators, machines, regions
from .catalog import prices as catalog
from .cloud.errors import ApiError, ConfigError

SERVICE_NAME = "Vertex AI"
_SKU = re.compile(r"^Vertex AI: Training/Pipelines on (?P<what>.+?) (?:running )?in (?P<loc>.+)$")
_FAMILY = re.compile(r"^(?P<family>[A-Za-z0-9]+) (?:Predefined )?Instance (?P<part>Core|Ram|RAM)$")
_TIERS = {"OnDemand": catalog.ON_DEMAND, "Preemptible": catalog.SPOT}
_UNITS = {"Core": "h", "Ram": "GiBy.h", "RAM": "GiBy.h"}
UNKNOWN_SOURCE = "no price in the Cloud Billing Catalog's Vertex AI SKUs nor the pricing pages"


def service_id(services: Iterable[dict]) -> str | None:
    """The id of the service whose displayName is "Vertex AI"."""
    return next((s.get("serviceId") for s in services
                 if s.get("displayName") == SERVICE_NAME), None)


def _unit_price(sku: dict) -> tuple[Decimal, str] | None:
    """The SKU's first tier's price per unit, and the unit (h, GiBy.h)."""
    info = (sku.get("pricingInfo") or [{}])[0].get("pricingExpression") or {}
    rates = info.get("tieredRates") or []
    first = next((r for r in rates if not r.get("startUsageAmount")), None)
    if first is None:
        return None
    money = first.get("unitPrice") or {}
    if money.get("currencyCode", "USD") != "USD":
        return None
    value = Decimal(str(money.get("units") or 0)) + Decimal(int(money.get("nanos") or 0)) / 10**9
    return value, info.get("usageUnit", "")


def _accelerator(what: str) -> str | None:
    name = re.sub(r"^(?:Spot|Preemptible) ", "", what)
    name = re.sub(r"^NVIDIA ", "", name, flags=re.I).removesuffix(" GPU")
    key = "NVIDIA_" + re.sub(r"[ -]+", "_", name.upper())
    return key if key in accelerators.VERTEX_TYPES else None


def _decimal(value: Decimal) -> Decimal:
    return Decimal(format(value.normalize(), "f"))


def from_skus(skus: Iterable[dict], service: str, as_of: str) -> list[catalog.Price]:
    """The on-demand and Spot rows the SKUs price (pure)."""
    rows: list[catalog.Price] = []
    parts: dict[tuple[str, str, str], dict[str, tuple[Decimal, str]]] = {}
    for sku in skus:
        match = _SKU.match(sku.get("description", ""))
        tier = _TIERS.get((sku.get("category") or {}).get("usageType", ""))
        price = _unit_price(sku)
        if not match or tier is None or price is None or "management fee" in match["what"].lower():
            continue
        places = [r for r in sku.get("serviceRegions") or []
                  if r in regions.VERTEX_TRAINING_REGIONS]
        family = _FAMILY.match(re.sub(r"^(?:Spot|Preemptible) ", "", match["what"]))
        if family:
            if price[1] == _UNITS[family["part"]]:
                for region in places:
                    parts.setdefault((family["family"].lower(), region, tier), {})[
                        family["part"].lower()] = (price[0], sku.get("skuId", ""))
            continue
        accel = _accelerator(match["what"])
        if accel and price[1] == "h":
            rows += [catalog.Price("vertex", region, accel, catalog.ACCELERATOR, tier,
                                   _decimal(price[0]), f"cloudbilling SKU {sku.get('skuId')} "
                                   f"(service {service})", as_of, catalog.VERIFIED)
                     for region in places]
    for (family, region, tier), found in sorted(parts.items()):
        if "core" not in found or "ram" not in found:
            continue
        (core, core_id), (ram, ram_id) = found["core"], found["ram"]
        for machine, (cpus, gib) in sorted(machines.MACHINE_SHAPES.items()):
            if machine.startswith(family + "-") and machine in machines.VERTEX_MACHINES:
                rows.append(catalog.Price(
                    "vertex", region, machine, catalog.MACHINE, tier,
                    _decimal(cpus * core + Decimal(str(gib)) * ram),
                    f"cloudbilling SKUs {core_id} (core ${_decimal(core)}/h × {cpus}) + "
                    f"{ram_id} (RAM ${_decimal(ram)}/GiB-h × {gib:g})", as_of, catalog.VERIFIED))
    return rows


def refresh(services: list[dict], skus_of, current: tuple[catalog.Price, ...],  # noqa: ANN001
            as_of: str) -> str:
    """The new prices.csv text: `skus_of(service id)` lists the Vertex AI SKUs."""
    found = service_id(services)
    if found is None:
        raise LookupError(f"no service named {SERVICE_NAME!r} in the Billing Catalog's list")
    replaced = {("vertex", catalog.ON_DEMAND), ("vertex", catalog.SPOT)}  # what SKUs price
    kept = [p for p in current
            if p.usd_per_hour is not None and (p.platform, p.tier) not in replaced]
    rows = kept + from_skus(skus_of(found), found, as_of)
    return catalog.dumps(catalog.with_unknowns(rows, as_of, UNKNOWN_SOURCE))


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    r = sub.add_parser("refresh", help="rebuild the price catalog from the Cloud Billing "
                       "Catalog API (credentials: ADC or TRAINSPEC_ACCESS_TOKEN)")
    r.add_argument("--out", metavar="FILE", default=str(catalog.PATH),
                   help="where to write the CSV (default: the package's prices.csv)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .cloud.billing import Catalog

    try:
        client = Catalog()
        text = refresh(client.services(), client.skus, catalog.ROWS,
                       datetime.date.today().isoformat())
    except (ApiError, ConfigError, LookupError) as e:
        err.write(f"error: {e}\n")
        return 1
    Path(args.out).write_text(text, encoding="utf-8")
    priced = sum(1 for line in text.splitlines()[1:] if f",{catalog.UNKNOWN}," not in line)
    out.write(f"wrote {args.out}: {priced} prices, "
              f"{len(text.splitlines()) - 1 - priced} items unknown\n")
    return 0
