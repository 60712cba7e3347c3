"""Valid values of the field table's rows (compiler/fields.py) for the strategies and the
mutations: valid specs draw every simple field a platform accepts from the rows, and the
mutations put each row where it is refused, outside its enum or in a broken duration. A new
row is drawn and mutated without editing the kit (a row whose codec cannot make a valid value,
such as a resource name, needs its example below)."""

from __future__ import annotations

import functools
from typing import Any

from .. import fields
from ..fields import Row
from ..schema import validate as schemas
from .draws import _duration, _names, _st

# The values a row's codec cannot make: a format the schema holds the value to (a resource
# name, a bucket URI, a pool's hardware) or the job's own project or region (a CMEK key is in
# the job's region). Keyed by the row's spec path; strings are filled from `context`.
EXAMPLES: dict[str, Any] = {
    "serviceAccount": "trainer@{project}.iam.gserviceaccount.com",
    "network": "projects/123456789012/global/networks/ml-vpc",
    "outputDir": "gs://{bucket}/{name}",
    "encryptionKey": "projects/acme/locations/{region}/keyRings/ml/cryptoKeys/k1",
    "vertex.pscInterfaceConfig": {
        "networkAttachment": "projects/acme/regions/{region}/networkAttachments/ml",
        "dnsPeeringConfigs": [{"domain": "corp.example.", "targetProject": "acme-net",
                               "targetNetwork": "corp"}]},
    "vertex.tensorboard": "projects/acme/locations/{region}/tensorboards/123",
    "vertex.experiment": "projects/acme/locations/{region}/metadataStores/default/contexts/exp",
    "vertex.experimentRun": "projects/acme/locations/{region}/metadataStores/default/contexts/"
                            "exp-run1",
    "vertex.persistentResourceId": "shared-a100",
    "vertex.protectedArtifactLocationId": "{other_region}",  # only when not the job's region
    "vertex.models": ["projects/acme/locations/{region}/models/m1"],
    "tpuTopology": "2x2",
    "reservation": {"affinity": "ANY"},
    "gpuPartitionSize": "1g.5gb",
    "nfsMounts": [{"server": "10.0.0.2", "path": "/exports/data", "mountPoint": "data"}],
    "lustreMounts": [{"instanceIp": "10.0.0.3", "volumeHandle": "vol-1", "filesystem": "lfs",
                      "mountPoint": "scratch"}],
    "tpuTfVersion": "2.11",
}
_TEXT = "abc XYZ-_0123"  # a free string's alphabet (displayName)
# One valid value of each codec, for a mutation (an enum row takes a value of its enum).
_FIXED = {"bool": True, "duration": "1h", "string": "x", "list": ["x"]}


def context(region: str, project: str, bucket: str, name: str) -> dict[str, str]:
    """What EXAMPLES are filled with: the job's region and project, a bucket, a name."""
    other = "us-east1" if region != "us-east1" else "us-central1"
    return {"region": region, "project": project, "bucket": bucket, "name": name,
            "other_region": other}


def accepts(row: Row, platform: str) -> bool:
    """`platform` writes the row, or accepts some of its values by sending nothing."""
    how = row.target(platform)
    return isinstance(how, str) or bool(how.allowed)


def enum(row: Row, platform: str, refused: bool = False) -> tuple[str, ...]:
    """The row's enum values `platform` accepts (`refused`: those it refuses)."""
    how = row.target(platform)
    allowed = row.values if isinstance(how, str) else how.allowed
    return tuple(v for v in row.values if (v in allowed) != refused)


def _fill(value: Any, job: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**job)
    if isinstance(value, list):
        return [_fill(v, job) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, job) for k, v in value.items()}
    return value


def _bounds(row: Row) -> tuple[int, int]:
    """An integer row's range, from the schema (0 to 10**6 where it sets none)."""
    return _schema_bounds(row.scope, row.spec)


@functools.cache
def _schema_bounds(scope: str, spec: str) -> tuple[int, int]:
    published = schemas.schema()  # read once per row: draws ask for it thousands of times
    node = published["properties"]["spec"] if scope == fields.JOB else published["$defs"]["pool"]
    for key in spec.split("."):
        node = node["properties"][key]
    return node.get("minimum", 0), node.get("maximum", 10**6)


def draw_value(draw, row: Row, platform: str, job: dict[str, str]) -> Any:
    """A valid value of `row` on `platform`, drawn."""
    st = _st()
    kind = row.codec.name
    if row.spec in EXAMPLES:
        return _fill(EXAMPLES[row.spec], job)
    if row.values:
        return draw(st.sampled_from(enum(row, platform)))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "duration":
        return _duration(draw)
    if kind == "integer":
        return draw(st.integers(*_bounds(row)))
    if kind == "string":
        return draw(st.text(_TEXT, min_size=1, max_size=30))
    if kind == "list":
        return draw(st.lists(_names(), min_size=1, max_size=3))
    raise LookupError(f"no valid value of {row.spec} ({kind}): give it one in {__name__}.EXAMPLES")


def example(row: Row, platform: str, job: dict[str, str]) -> Any:
    """One valid value of `row`, the same each time, that `platform` refuses where it refuses
    the row (an enum row: a value outside the refusal's allowed ones)."""
    if row.spec in EXAMPLES:
        return _fill(EXAMPLES[row.spec], job)
    if row.values:
        return (enum(row, platform, refused=True) or row.values)[0]
    if row.codec.name == "integer":
        return _bounds(row)[0]
    if row.codec.name in _FIXED:
        return _FIXED[row.codec.name]
    raise LookupError(f"no valid value of {row.spec} ({row.codec.name}): give it one in "
                      f"{__name__}.EXAMPLES")

