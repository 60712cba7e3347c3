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


def former_names(value: Any) -> list[str] | None:
    """`trainspec:renamedFrom` as a list of names: one name or a list (stack config holds a list
    as JSON text); each ``STACK``, ``PROJECT/STACK`` or ``ORG/PROJECT/STACK``. None if it is not."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    names = value if isinstance(value, list) else [value] if value else []
    good = all(isinstance(n, str) and 1 <= len(n.split("/")) <= 3 and all(n.split("/"))
               for n in names)
    return names if good else None


def former_stacks(renamed_from: Any, organization: str, project: str,
                  stack: str) -> list[tuple[str, str, str]]:
    """(organization, project, stack) of each name in `trainspec:renamedFrom` (`former_names`),
    the parts a name leaves out being the stack's own now."""
    return [tuple([organization, project, stack][:3 - len(parts)] + parts)  # type: ignore[misc]
            for parts in (n.split("/") for n in former_names(renamed_from) or [])]


def trusted_owners(now: str, state_identity: str | None, former: list[str] | None,
                   renamed: set[str]) -> set[str]:
    """The owner labels a resource whose identity is `now` may act on.

    Its own; those of the stacks it says it was renamed from (`renamed`, identities from
    `trainspec:renamedFrom`); and the former owners its state recorded, but only if that state is
    this stack's (its identity is `now` or a declared former one). A state copied from another
    stack carries that stack's identity, former owners and provider configuration (`destroy`
    configures the provider from the state): none of them is trusted here, only `now`.
    """
    trusted = {now} | renamed
    if state_identity is not None and state_identity not in trusted:
        return {now}
    return trusted | set(former or [])
