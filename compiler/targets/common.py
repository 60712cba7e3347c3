"""What every lowering module shares: dropping unset values and running a target's passes."""

from __future__ import annotations

import datetime
from types import ModuleType

from ..diagnostics import Collector
from ..model import Job


def compact(d: dict) -> dict:
    """Drop unset values: absent, empty lists and empty mappings are never sent."""
    return {k: v for k, v in d.items() if v is not None and v != [] and v != {}}


def prepare(target: ModuleType, job: Job, c: Collector, today: datetime.date) -> None:
    """Run `target`'s passes over `job`: resolve, then check."""
    for resolve in target.RESOLVE:
        resolve(job)
    for check in target.CHECK:
        check(job, c, today)
