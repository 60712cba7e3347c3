"""Accelerator enums of both APIs, the names people write for them, and their status.

Pure data and lookups: every function here is deterministic and reads no clock; anything
date-dependent (end of support) is recorded as data and decided by the caller.
"""

from __future__ import annotations

from compiler import suggest

# aiplatform v1 MachineSpec.acceleratorType enum, minus ACCELERATOR_TYPE_UNSPECIFIED.
# Source: discovery doc aiplatform.v1.json rev 20261106 (facts §A.6); a test compares it.
VERTEX_TYPES: frozenset[str] = frozenset({
    "NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_P4",
    "NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100", "NVIDIA_A100_80GB", "NVIDIA_L4",
    "NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200",
    "NVIDIA_GB200", "NVIDIA_RTX_PRO_6000",
    "TPU_V2", "TPU_V3", "TPU_V4_POD", "TPU_V5_LITEPOD",
})

# ml v1 AcceleratorConfig.type enum, minus ACCELERATOR_TYPE_UNSPECIFIED.
# Source: discovery doc ml.v1.json rev 20251213 (facts §B.5); a test compares it.
ML_TYPES: frozenset[str] = frozenset({
    "NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_P4",
    "NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100",
    "TPU_V2", "TPU_V3", "TPU_V2_POD", "TPU_V3_POD", "TPU_V4_POD",
})

ALL_TYPES: frozenset[str] = VERTEX_TYPES | ML_TYPES

# Proto numbers of google.cloud.aiplatform.v1.AcceleratorType: SDK users sometimes pass the
# number instead of the name (corpus 050 uses 7 for TPU_V3), and the numbers are not the
# discovery-doc list order. Source: googleapis aiplatform/v1/accelerator_type.proto.
VERTEX_ENUM_NUMBERS: dict[int, str] = {
    1: "NVIDIA_TESLA_K80", 2: "NVIDIA_TESLA_P100", 3: "NVIDIA_TESLA_V100",
    4: "NVIDIA_TESLA_P4", 5: "NVIDIA_TESLA_T4", 6: "TPU_V2", 7: "TPU_V3",
    8: "NVIDIA_TESLA_A100", 9: "NVIDIA_A100_80GB", 10: "TPU_V4_POD", 11: "NVIDIA_L4",
    12: "TPU_V5_LITEPOD", 13: "NVIDIA_H100_80GB", 14: "NVIDIA_H100_MEGA_80GB",
    15: "NVIDIA_H200_141GB", 16: "NVIDIA_B200", 17: "NVIDIA_GB200", 18: "NVIDIA_RTX_PRO_6000",
}

# enum -> (human name, extra accepted spellings). Spellings are compared after upper-casing
# and mapping '-' and ' ' to '_'; the human name itself is always accepted too.
# Source: GPU names in the Vertex "Configure compute" page ([CC], facts §A.6/§A.7).
_NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "NVIDIA_TESLA_K80": ("K80", ("K80",)),
    "NVIDIA_TESLA_P100": ("P100", ("P100",)),
    "NVIDIA_TESLA_V100": ("V100", ("V100",)),
    "NVIDIA_TESLA_P4": ("P4", ("P4",)),
    "NVIDIA_TESLA_T4": ("T4", ("T4",)),
    "NVIDIA_TESLA_A100": ("A100 40GB", ("A100", "A100_40GB")),
    "NVIDIA_A100_80GB": ("A100 80GB", ("A100_80GB",)),
    "NVIDIA_L4": ("L4", ("L4",)),
    "NVIDIA_H100_80GB": ("H100 80GB", ("H100", "H100_80GB")),
    "NVIDIA_H100_MEGA_80GB": ("H100 Mega 80GB", ("H100_MEGA", "H100_MEGA_80GB")),
    "NVIDIA_H200_141GB": ("H200 141GB", ("H200", "H200_141GB")),
    "NVIDIA_B200": ("B200", ("B200",)),
    "NVIDIA_GB200": ("GB200", ("GB200",)),
    "NVIDIA_RTX_PRO_6000": ("RTX PRO 6000", ("RTX_PRO_6000", "RTX_PRO")),
    "TPU_V2": ("TPU v2", ("V2", "TPUV2")),
    "TPU_V3": ("TPU v3", ("V3", "TPUV3")),
    "TPU_V4_POD": ("TPU v4 Pod", ("V4_POD", "V4", "TPU_V4", "TPUV4")),
    "TPU_V5_LITEPOD": (
        "TPU v5e",
        ("TPU_V5E", "V5E", "TPUV5E", "V5LITEPOD", "V5_LITEPOD", "TPU_V5LITEPOD", "TPU_V5_LITE"),
    ),
    "TPU_V2_POD": ("TPU v2 Pod", ("V2_POD", "TPUV2_POD")),
    "TPU_V3_POD": ("TPU v3 Pod", ("V3_POD", "TPUV3_POD")),
}

# Accelerators that must not be used for new jobs; the value is the user-facing reason.
# K80: enumDeprecated in aiplatform v1 ("has reached end of support",
# https://cloud.google.com/compute/docs/eol/k80-eol) and missing from [CC]'s training GPU list.
# P100: [CC] gives end of support 2026-09-15, which is before the date this catalog was cut
# (2026-11-22), so it is treated as retired rather than as a dated warning.
RETIRED: dict[str, str] = {
    "NVIDIA_TESLA_K80": (
        "NVIDIA_TESLA_K80 is retired: the K80 reached end of support on Compute Engine "
        "(https://cloud.google.com/compute/docs/eol/k80-eol) and is not available for "
        "Vertex AI training; use NVIDIA_TESLA_T4 or NVIDIA_L4"
    ),
    "NVIDIA_TESLA_P100": (
        "NVIDIA_TESLA_P100 is retired: Vertex AI training support for the P100 ended on "
        "2026-09-15; use NVIDIA_TESLA_T4, NVIDIA_L4 or NVIDIA_TESLA_V100"
    ),
}


# On the legacy ml v1 service only the K80 is refused: it is gone from Compute Engine. The P100
# date above is Vertex's end of support; ml v1 jobs (a shut-down service) are compiled as written.
RETIRED_ML: dict[str, str] = {
    "NVIDIA_TESLA_K80": (
        "NVIDIA_TESLA_K80 is retired: the K80 reached end of support on Compute Engine "
        "(https://cloud.google.com/compute/docs/eol/k80-eol); use NVIDIA_TESLA_T4 or "
        "NVIDIA_TESLA_V100"
    ),
}


def _key(name: str) -> str:
    return name.strip().upper().replace("-", "_").replace(" ", "_")


def _build_aliases() -> dict[str, str]:
    aliases: dict[str, str] = {}
    for enum, (human, spellings) in _NAMES.items():
        for spelling in (enum, human, *spellings):
            aliases[_key(spelling)] = enum
    return aliases


_ALIASES: dict[str, str] = _build_aliases()

# Prefixes people add or drop ("NVIDIA_T4", "TESLA_V100", "NVIDIA_TESLA_A100_80GB").
_PREFIXES = ("NVIDIA_TESLA_", "NVIDIA_", "TESLA_")


def canonical(name: str) -> str | None:
    """Return the API enum for an accelerator name (enum or short name), or None if unknown.

    Case, '-', '_' and spaces are treated alike: ``a100-80gb``, ``A100_80GB`` and
    ``A100 80GB`` all give ``NVIDIA_A100_80GB``.
    """
    if not isinstance(name, str):
        return None
    key = _key(name)
    if key in _ALIASES:
        return _ALIASES[key]
    for prefix in _PREFIXES:
        if key.startswith(prefix) and key[len(prefix):] in _ALIASES:
            return _ALIASES[key[len(prefix):]]
    return None


def from_enum_number(number: int) -> str | None:
    """Return the aiplatform v1 enum name for a proto enum number (``7`` -> ``TPU_V3``)."""
    return VERTEX_ENUM_NUMBERS.get(number)


def suggestions(name: str) -> list[str]:
    """Close matches among enums and short names, best first, for a did-you-mean hint.

    Each suggestion is an API enum (short names are resolved), without duplicates.
    """
    matches = suggest.close(_key(name), _ALIASES, n=6, cutoff=0.5)
    result: list[str] = []
    for match in matches:
        enum = _ALIASES[match]
        if enum not in result:
            result.append(enum)
    return result[:3]


def is_tpu(enum: str) -> bool:
    """True for TPU accelerator enums (``TPU_V3``, ``TPU_V5_LITEPOD`` ...)."""
    return enum in ALL_TYPES and enum.startswith("TPU_")


def is_gpu(enum: str) -> bool:
    """True for NVIDIA GPU enums."""
    return enum in ALL_TYPES and enum.startswith("NVIDIA_")


def short_name(enum: str) -> str:
    """Human name for an enum (``NVIDIA_TESLA_A100`` -> ``A100 40GB``); unknown names
    are returned unchanged."""
    entry = _NAMES.get(enum)
    return entry[0] if entry else enum
