"""One lowering module per API: `check(job, collector, today)` then `lower(job)`."""


def compact(d: dict) -> dict:
    """Drop unset values: absent, empty lists and empty mappings are never sent."""
    return {k: v for k, v in d.items() if v is not None and v != [] and v != {}}
