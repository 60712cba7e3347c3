"""Whose job is it: the labels every job trainspec starts carries, computed from the spec alone.

Pure and Pulumi-free, so the Pulumi providers (which stamp the labels) and the CLI's `status`,
`logs` and `wait` (which look jobs up by them, with no Pulumi state) compute the same values:

  ``trainspec-resource``  = `identity` (Pulumi organization, project, stack, resource name): one
                            Pulumi resource, i.e. one spec in one stack, across all its runs;
  ``trainspec-spec-hash`` = `spec_hash` (identity, compiled request, `metadata.run`): one
                            generation of that resource's job.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..model import IDENTITY_LABEL, SPEC_HASH_LABEL

__all__ = ["IDENTITY_LABEL", "SPEC_HASH_LABEL", "identity", "spec_hash"]


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]  # a valid label value (<= 63)


def identity(organization: str, project: str, stack: str, resource_name: str) -> str:
    """The job's owner: unique to one Pulumi resource (organization, project, stack, name)."""
    return _digest([organization, project, stack, resource_name])


def spec_hash(owner: str, request: dict, run: str | None = None) -> str:
    """One generation of a resource's job: its identity, the compiled request and, when the
    spec sets one, its `metadata.run` (a new run of an unchanged spec is a new generation)."""
    value: dict[str, Any] = {"identity": owner, "request": request}
    if run is not None:  # without a run, hashes stay what they were before runs existed
        value["run"] = run
    return _digest(value)
