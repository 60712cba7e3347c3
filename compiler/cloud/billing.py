"""The Cloud Billing Catalog API (cloudbilling v1): the public services and their SKUs, with
prices. Sent like every other call (`compiler.cloud.transport`: google-auth credentials,
retries, TRAINSPEC_API_ENDPOINT for the emulator).
https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list"""

from __future__ import annotations

from compiler.cloud.errors import ApiError
from compiler.cloud.transport import Transport

HOST = "https://cloudbilling.googleapis.com"
MAX_PAGES = 1000


class Catalog(Transport):
    """`services()` and `skus(service)`: every page, as lists."""

    def services(self, page_size: int = 5000) -> list[dict]:
        return self._all("v1/services", "services", page_size)

    def skus(self, service_id: str, page_size: int = 5000) -> list[dict]:
        """The SKUs of `service_id` (e.g. the id of the service named "Vertex AI"), in USD."""
        return self._all(f"v1/services/{service_id}/skus", "skus", page_size,
                         {"currencyCode": "USD"})

    def _all(self, path: str, key: str, page_size: int, extra: dict | None = None) -> list[dict]:
        url = f"{self.endpoint or HOST}/{path}"
        until = self._monotonic() + self.deadline
        params = {"pageSize": str(page_size), **(extra or {})}
        items: list[dict] = []
        for _ in range(MAX_PAGES):
            page = self._call("GET", url, params=dict(params), until=until)
            items.extend(page.get(key, []))
            if not page.get("nextPageToken"):
                return items
            params["pageToken"] = page["nextPageToken"]
        raise ApiError(None, f"more than {MAX_PAGES} pages", "INTERNAL", method="GET", url=url)
