"""The Cloud Billing Catalog API (cloudbilling v1 `services.list`, `services.skus.list`), as the
emulator serves it: a fixed catalog with the real response shapes (serviceRegions,
category.usageType, pricingInfo → pricingExpression → tieredRates → unitPrice units + nanos).

The Vertex AI service id and the H100 / A3 SKUs (ids and USD prices, us-central1) are the
real ones as quoted on 2025-08-16 (cloudbilling SKUs 3F95-001E-B747, 2E83-99F1-391A,
B045-9255-8314, 5853-505F-A5C4); the Preemptible T4 and the commitment SKU are made up, to
exercise the Spot and skipped paths. The emulator reads none of the compiler's tables."""

from __future__ import annotations

from typing import Any

from .common import Refusal
from .listing import page_of

VERTEX_AI = "C7E2-9256-1C43"
SERVICES = [
    {"name": "services/6F81-5844-456A", "serviceId": "6F81-5844-456A",
     "displayName": "Compute Engine", "businessEntityName": "businessEntities/GCP"},
    {"name": f"services/{VERTEX_AI}", "serviceId": VERTEX_AI, "displayName": "Vertex AI",
     "businessEntityName": "businessEntities/GCP"},
]
DEFAULT_PAGE, MAX_PAGE = 5000, 5000


def _sku(sku_id: str, description: str, usage: str, regions: list[str], unit: str,
         units: int, nanos: int) -> dict:
    return {
        "name": f"services/{VERTEX_AI}/skus/{sku_id}", "skuId": sku_id,
        "description": description,
        "category": {"serviceDisplayName": "Vertex AI", "resourceFamily": "Compute",
                     "resourceGroup": "Training", "usageType": usage},
        "serviceRegions": regions,
        "pricingInfo": [{"summary": "", "effectiveTime": "2025-08-16T00:00:00Z",
                         "currencyConversionRate": 1,
                         "pricingExpression": {
                             "usageUnit": unit, "displayQuantity": 1,
                             "usageUnitDescription": "hour" if unit == "h" else
                             "gibibyte hour", "baseUnit": "s",
                             "tieredRates": [{"startUsageAmount": 0, "unitPrice": {
                                 "currencyCode": "USD", "units": str(units),
                                 "nanos": nanos}}]}}],
        "serviceProviderName": "Google",
    }


SKUS = {VERTEX_AI: [
    _sku("3F95-001E-B747", "Vertex AI: Training/Pipelines on NVIDIA H100 80GB in Iowa",
         "OnDemand", ["us-central1"], "h", 11, 266033200),
    _sku("2E83-99F1-391A", "Vertex AI: Training/Pipelines on A3 Instance Core in Iowa",
         "OnDemand", ["us-central1"], "h", 0, 29322700),
    _sku("B045-9255-8314", "Vertex AI: Training/Pipelines on A3 Instance RAM in Iowa",
         "OnDemand", ["us-central1"], "GiBy.h", 0, 2553400),
    _sku("5853-505F-A5C4",
         "Vertex AI: Training/Pipelines management fee on NVIDIA H100 80GB in Iowa",
         "OnDemand", ["us-central1"], "h", 1, 469482600),
    _sku("0000-EMUL-A7ED", "Vertex AI: Training/Pipelines on Nvidia Tesla T4 GPU running in "
         "Netherlands", "Preemptible", ["europe-west4"], "h", 0, 123000000),
    _sku("0000-EMUL-C0M1", "Vertex AI: Training/Pipelines on NVIDIA H100 80GB in Iowa",
         "Commit1Yr", ["us-central1"], "h", 7, 0),
]}


class BillingApi:
    def _billing_services(self, m: Any, query: dict, body: bytes) -> dict:
        return page_of(SERVICES, "services", query.get("pageSize", [None])[0],
                       query.get("pageToken", [""])[0], DEFAULT_PAGE, MAX_PAGE)

    def _billing_skus(self, m: Any, query: dict, body: bytes) -> dict:
        if m["s"] not in SKUS and m["s"] not in {s["serviceId"] for s in SERVICES}:
            raise Refusal(404, "NOT_FOUND", f"Service {m['s']} not found.")
        currency = query.get("currencyCode", ["USD"])[0]
        if currency != "USD":
            raise Refusal(400, "INVALID_ARGUMENT", "The emulator prices in USD only.")
        return page_of(SKUS.get(m["s"], []), "skus", query.get("pageSize", [None])[0],
                       query.get("pageToken", [""])[0], DEFAULT_PAGE, MAX_PAGE)
