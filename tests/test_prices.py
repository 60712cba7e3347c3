"""The price catalog (compiler/catalog/prices.csv) and `trainspec prices refresh` against the
emulator's Billing Catalog (compiler/cloud/emulator/billing.py)."""

from __future__ import annotations

import datetime
import io
import re
from decimal import Decimal

import pytest

from compiler import cli, prices
from compiler.catalog import prices as catalog
from compiler.cloud.billing import Catalog
from compiler.cloud.emulator.server import serve


def test_every_row_has_a_source_a_date_and_a_status():
    assert catalog.ROWS
    for p in catalog.ROWS:
        assert p.source.strip(), p
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", p.as_of), p
        assert p.status in catalog.STATUSES, p
        assert p.tier in (*catalog.TIERS, catalog.ANY) and p.platform in ("vertex", "ai-platform")
        assert (p.usd_per_hour is None) == (p.region == catalog.ANY), p


def test_every_catalog_item_is_priced_somewhere_or_listed_unknown():
    priced = {(p.platform, p.item) for p in catalog.ROWS if p.usd_per_hour is not None}
    unknown = {(p.platform, p.item) for p in catalog.ROWS if p.usd_per_hour is None}
    assert not priced & unknown
    items = set(catalog.catalog_items())
    assert items - priced - unknown == set()
    assert unknown - items == set(), "an unknown row for an item the catalog does not have"


def test_no_shipped_price_claims_to_be_verified():
    """The shipped rows were read from an archived or undated copy of Google's pricing page, or
    from SKU prices a blog post quoted: none from a current primary source. Only `prices
    refresh` (or a reading of the page as published, dated) may write `verified`."""
    assert {p.status for p in catalog.ROWS} == {catalog.SECONDARY}
    archived = [p for p in catalog.ROWS if "web.archive.org" in p.source]
    assert archived and all(not p.verified for p in archived)


def test_the_file_is_written_as_dumps_writes_it():
    assert catalog.PATH.read_text(encoding="utf-8") == catalog.dumps(catalog.ROWS)


def test_a_published_price_reads_back_exactly():
    assert catalog.find("vertex", "us-central1", "NVIDIA_H100_80GB").usd_per_hour \
        == Decimal("11.2660332")
    assert catalog.find("ai-platform", "us-east1", "BASIC").usd_per_hour == Decimal("0.1900")
    assert catalog.find("vertex", "europe-west4", "NVIDIA_H100_80GB") is None


@pytest.fixture
def emulator(monkeypatch):
    server, _ = serve(port=0)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "emulated-token")
    yield server
    server.shutdown()


def test_pages_are_followed(emulator):
    client = Catalog(sleep=lambda s: None)
    assert len(client.skus(prices.service_id(client.services()), page_size=2)) == 6


def test_refresh_rebuilds_the_catalog_from_the_billing_catalog(emulator, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "prices.csv"
    assert cli.main(["prices", "refresh", "--out", str(target)], out, err) == 0, err.getvalue()
    rows = catalog.loads(target.read_text(encoding="utf-8"))
    found = {(p.platform, p.region, p.item, p.tier): p for p in rows if p.usd_per_hour}
    h100 = found["vertex", "us-central1", "NVIDIA_H100_80GB", "on-demand"]
    assert h100.usd_per_hour == Decimal("11.2660332")
    assert h100.source == "cloudbilling SKU 3F95-001E-B747 (service C7E2-9256-1C43)"
    # Read from the Billing Catalog today: verified, dated the refresh.
    assert (h100.status, h100.as_of) == ("verified", datetime.date.today().isoformat())
    # A machine: its family's core and RAM SKUs × its vCPUs and GB (208, 1872).
    assert found["vertex", "us-central1", "a3-highgpu-8g", "on-demand"].usd_per_hour \
        == Decimal("10.8790864")
    assert found["vertex", "us-central1", "a3-highgpu-1g", "on-demand"].usd_per_hour \
        == 26 * Decimal("0.0293227") + 234 * Decimal("0.0025534")
    # Preemptible → spot; a management fee and a commitment price are no training rate.
    assert found["vertex", "europe-west4", "NVIDIA_TESLA_T4", "spot"].usd_per_hour \
        == Decimal("0.123")
    assert not any(p.source.endswith(("5853-505F-A5C4 (service C7E2-9256-1C43)",
                                      "0000-EMUL-C0M1 (service C7E2-9256-1C43)")) for p in rows)
    # Kept: the page-sourced ai-platform rows and the Flex-start rows (not Vertex AI SKUs).
    assert found["ai-platform", "us-central1", "BASIC", "on-demand"].usd_per_hour \
        == Decimal("0.1900")
    # ... with their own status: a refresh does not verify what it did not read.
    assert found["ai-platform", "us-central1", "BASIC", "on-demand"].status == "secondary"
    assert found["vertex", "us-central1", "a3-highgpu-8g", "flex-start"].status == "secondary"
    assert ("vertex", "us-central1", "a3-highgpu-8g", "flex-start") in found
    # Every catalog item is priced or listed unknown, and the text is deterministic.
    assert {(p.platform, p.item) for p in rows} == set(catalog.catalog_items())
    assert target.read_text(encoding="utf-8") == catalog.dumps(rows)
    assert "wrote" in out.getvalue()


def test_refresh_without_a_vertex_ai_service_fails_clearly():
    with pytest.raises(LookupError, match="Vertex AI"):
        prices.refresh([{"serviceId": "X", "displayName": "Compute Engine"}], lambda s: [],
                       catalog.ROWS, "2026-01-01")


def test_refresh_reports_an_api_error(monkeypatch, tmp_path):
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("TRAINSPEC_REQUEST_DEADLINE", "1")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["prices", "refresh", "--out", str(tmp_path / "p.csv")], out, err) == 1
    assert err.getvalue().startswith("error: ") and not (tmp_path / "p.csv").exists()
