"""Catalog tables and lookups: exhaustive where the tables are small, concrete values always."""

from __future__ import annotations

import datetime
import json
import os

import googleapiclient
import pytest

from compiler.catalog import accelerators as acc
from compiler.catalog import images, machines, regions
from compiler.catalog.ml_machines import ML_N1_GPU_COUNTS

TODAY = datetime.date(2026, 11, 22)
DISCOVERY = os.path.join(os.path.dirname(googleapiclient.__file__), "discovery_cache",
                         "documents")


def check_vertex(*args) -> list[str]:
    """The messages of machines.check_vertex's problems."""
    return [p.message for p in machines.check_vertex(*args)]


def check_ml(*args) -> list[str]:
    return [p.message for p in machines.check_ml(*args)]


def _discovery(name: str) -> dict:
    with open(os.path.join(DISCOVERY, name), encoding="utf-8") as f:
        return json.load(f)


# --- accelerators -------------------------------------------------------------------------

def test_vertex_types_equal_discovery_enum():
    prop = _discovery("aiplatform.v1.json")["schemas"]["GoogleCloudAiplatformV1MachineSpec"][
        "properties"]["acceleratorType"]
    assert acc.VERTEX_TYPES == set(prop["enum"]) - {"ACCELERATOR_TYPE_UNSPECIFIED"}
    deprecated = {e for e, d in zip(prop["enum"], prop["enumDeprecated"]) if d}
    assert deprecated == {"NVIDIA_TESLA_K80"}
    assert deprecated <= set(acc.RETIRED)


def test_ml_types_equal_discovery_enum():
    prop = _discovery("ml.v1.json")["schemas"]["GoogleCloudMlV1__AcceleratorConfig"][
        "properties"]["type"]
    assert acc.ML_TYPES == set(prop["enum"]) - {"ACCELERATOR_TYPE_UNSPECIFIED"}


def test_scale_tiers_equal_discovery_enum():
    prop = _discovery("ml.v1.json")["schemas"]["GoogleCloudMlV1__TrainingInput"][
        "properties"]["scaleTier"]
    assert machines.SCALE_TIERS == tuple(prop["enum"])


@pytest.mark.parametrize("enum", sorted(acc.ALL_TYPES))
def test_canonical_accepts_every_enum_in_any_spelling(enum):
    assert acc.canonical(enum) == enum
    assert acc.canonical(enum.lower()) == enum
    assert acc.canonical(enum.lower().replace("_", "-")) == enum
    assert acc.canonical(acc.short_name(enum)) == enum


SHORT_NAMES = [
    ("A100", "NVIDIA_TESLA_A100"), ("a100-40gb", "NVIDIA_TESLA_A100"),
    ("A100-80GB", "NVIDIA_A100_80GB"), ("a100_80gb", "NVIDIA_A100_80GB"),
    ("H100", "NVIDIA_H100_80GB"), ("h100-80gb", "NVIDIA_H100_80GB"),
    ("H100-MEGA", "NVIDIA_H100_MEGA_80GB"), ("H200", "NVIDIA_H200_141GB"),
    ("B200", "NVIDIA_B200"), ("GB200", "NVIDIA_GB200"), ("l4", "NVIDIA_L4"),
    ("T4", "NVIDIA_TESLA_T4"), ("v100", "NVIDIA_TESLA_V100"), ("P100", "NVIDIA_TESLA_P100"),
    ("P4", "NVIDIA_TESLA_P4"), ("K80", "NVIDIA_TESLA_K80"),
    ("RTX-PRO-6000", "NVIDIA_RTX_PRO_6000"), ("TPU_V2", "TPU_V2"), ("tpu-v2", "TPU_V2"),
    ("V2", "TPU_V2"), ("v3", "TPU_V3"), ("TPU-V3", "TPU_V3"), ("TPU_V4_POD", "TPU_V4_POD"),
    ("TPU-V5E", "TPU_V5_LITEPOD"), ("v5e", "TPU_V5_LITEPOD"), ("V5LITEPOD", "TPU_V5_LITEPOD"),
    ("tpu_v5_litepod", "TPU_V5_LITEPOD"), ("TPU_V2_POD", "TPU_V2_POD"),
    ("tpu-v3-pod", "TPU_V3_POD"), ("nvidia-l4", "NVIDIA_L4"), ("NVIDIA_T4", "NVIDIA_TESLA_T4"),
    ("tesla-v100", "NVIDIA_TESLA_V100"), (" t4 ", "NVIDIA_TESLA_T4"),
]


@pytest.mark.parametrize(("name", "enum"), SHORT_NAMES)
def test_canonical_short_names(name, enum):
    assert acc.canonical(name) == enum


@pytest.mark.parametrize("name", ["", "A200", "NVIDIA", "TPU", "V5", "x100", "H100-40GB"])
def test_canonical_unknown_is_none(name):
    assert acc.canonical(name) is None


def test_suggestions_point_at_enums():
    assert acc.suggestions("A10")[0] == "NVIDIA_TESLA_A100"
    assert "NVIDIA_TESLA_T4" in acc.suggestions("T5")
    assert acc.suggestions("NVIDIA_TESLA_A1OO")[0] == "NVIDIA_TESLA_A100"
    assert acc.suggestions("zzzzzz") == []


def test_enum_numbers_match_corpus_and_cover_vertex():
    assert acc.from_enum_number(7) == "TPU_V3"  # corpus 050: accelerator_type 7
    assert acc.from_enum_number(6) == "TPU_V2"
    assert acc.from_enum_number(0) is None
    assert set(acc.VERTEX_ENUM_NUMBERS.values()) == acc.VERTEX_TYPES


def test_retired_and_kinds():
    assert set(acc.RETIRED) == {"NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100"}
    assert "2026-09-15" in acc.RETIRED["NVIDIA_TESLA_P100"]
    assert "K80" in acc.RETIRED["NVIDIA_TESLA_K80"]
    assert acc.is_tpu("TPU_V5_LITEPOD") and not acc.is_gpu("TPU_V5_LITEPOD")
    assert acc.is_gpu("NVIDIA_L4") and not acc.is_tpu("NVIDIA_L4")
    assert not acc.is_gpu("n1-standard-4") and not acc.is_tpu("TPU_V9")
    assert [acc.short_name(e) for e in ("NVIDIA_TESLA_A100", "NVIDIA_TESLA_T4", "TPU_V3")] == [
        "A100 40GB", "T4", "TPU v3"]
    assert {e for e in acc.ALL_TYPES if not (acc.is_gpu(e) or acc.is_tpu(e))} == set()


# --- Vertex machines ----------------------------------------------------------------------

def test_vertex_machine_list_shape():
    m = machines.VERTEX_MACHINES
    assert len(m) == 117
    for name in ("n1-standard-4", "a2-megagpu-16g", "cloud-tpu", "ct5lp-hightpu-8t",
                 "ct6e-standard-1t", "tpu7x-standard-4t", "g4-standard-384", "m1-megamem-96"):
        assert name in m
    for name in ("n1-standard-1", "n1-standard-2", "n1-highcpu-8", "c2d-standard-8",
                 "n2d-standard-8", "c3-standard-8", "a3-edgegpu-8g", "standard_gpu"):
        assert name not in m
    assert set(machines.MACHINE_SHAPES) <= m
    gpu_capable = set(machines.FIXED_GPU_MACHINES) | set(machines.N1_GPU_COUNTS)
    assert gpu_capable == set(machines.MACHINE_SHAPES)


@pytest.mark.parametrize("machine", sorted(machines.FIXED_GPU_MACHINES))
def test_fixed_count_machine_accepts_exactly_its_count(machine):
    accel, count = machines.FIXED_GPU_MACHINES[machine]
    assert machines.implied_accelerator(machine) == (accel, count)
    assert check_vertex(machine, accel, count) == []
    for other in (1, 2, 3, 4, 8, 16):
        if other != count:
            takers = sorted(m for m, row in machines.FIXED_GPU_MACHINES.items()
                            if row == (accel, other))
            smallest = machines.smallest_vertex_machine(accel, other)
            # The machine(s) taking the count asked for end the message (issue 19).
            tail = (f"; {accel} × {other} needs {' or '.join(takers)}" if takers else
                    f"; {accel} × {other} fits {smallest} (the smallest machine taking it)"
                    if smallest else "")
            assert check_vertex(machine, accel, other) == [
                f"{accel} on {machine} needs acceleratorCount {count}{tail}"]
    assert check_vertex(machine, None, None) == [
        f"{machine} needs acceleratorType {accel} and acceleratorCount {count}"]
    wrong = "NVIDIA_TESLA_T4" if accel != "NVIDIA_TESLA_T4" else "NVIDIA_L4"
    assert check_vertex(machine, wrong, count)[0].startswith(
        f"{wrong} is not available on {machine}")


def _n1_cases():
    for machine, row in sorted(machines.N1_GPU_COUNTS.items()):
        for accel in ("NVIDIA_TESLA_P4", "NVIDIA_TESLA_T4", "NVIDIA_TESLA_V100"):
            yield machine, accel, row.get(accel, ())


@pytest.mark.parametrize(("machine", "accel", "allowed"), list(_n1_cases()))
def test_n1_rows(machine, accel, allowed):
    for count in range(1, 17):
        errors = check_vertex(machine, accel, count)
        if count in allowed:
            assert errors == []
        elif allowed:
            shown = ", ".join(map(str, allowed))
            smallest = machines.smallest_vertex_machine(accel, count)
            tail = (f"; {accel} × {count} fits {smallest} (the smallest machine taking it)"
                    if smallest else "")
            assert errors == [f"{accel} on {machine} allows acceleratorCount {shown}, "
                              f"not {count}{tail}"]
        else:
            assert errors and errors[0].startswith(f"{accel} cannot be attached to {machine}")
    assert check_vertex(machine, None, None) == []
    assert check_vertex(machine, None, 0) == []  # SDKs send 0 for CPU pools


def test_n1_table_spot_values():
    n1 = machines.N1_GPU_COUNTS
    assert n1["n1-standard-16"]["NVIDIA_TESLA_T4"] == (1, 2, 4)
    assert n1["n1-standard-32"]["NVIDIA_TESLA_V100"] == (4, 8)
    assert "NVIDIA_TESLA_P100" not in n1["n1-standard-96"]
    assert n1["n1-highcpu-64"]["NVIDIA_TESLA_P100"] == (4,)
    assert len(n1) == 17


def test_check_vertex_messages():
    cv = check_vertex
    assert cv("a2-highgpu-4g", "NVIDIA_TESLA_A100", 2) == [
        "NVIDIA_TESLA_A100 on a2-highgpu-4g needs acceleratorCount 4; NVIDIA_TESLA_A100 × 2 "
        "needs a2-highgpu-2g"]
    assert cv("n1-standard-16", "NVIDIA_TESLA_T4", 3) == [
        "NVIDIA_TESLA_T4 on n1-standard-16 allows acceleratorCount 1, 2, 4, not 3"]
    assert cv("n1-standard-4", "NVIDIA_TESLA_A100", 1) == [
        "NVIDIA_TESLA_A100 cannot be attached to N1 machines such as n1-standard-4 "
        "(for example a2-highgpu-1g)"]
    assert cv("e2-standard-8", "NVIDIA_TESLA_T4", 1) == [
        "e2-standard-8 cannot take GPUs; GPUs are only available on N1, A2, A3, A4, G2 and G4 "
        "machines (for example n1-standard-4)"]
    assert cv("n1-standard-4", "NVIDIA_TESLA_K80", 1) == [acc.RETIRED["NVIDIA_TESLA_K80"]]
    assert cv("n1-standard-4", "NVIDIA_TESLA_P100", 1) == [acc.RETIRED["NVIDIA_TESLA_P100"]]
    assert cv("n1-standard-4", "NVIDIA_TESLA_T4", None) == [
        "acceleratorType and acceleratorCount must be given together"]
    assert cv("n1-standard-4", None, 2) == [
        "acceleratorType and acceleratorCount must be given together"]
    assert cv("n1-standard-4", "NVIDIA_TESLA_T4", 0) == [
        "acceleratorCount must be at least 1, not 0"]
    assert cv("n1-standard-4", "TPU_V2_POD", 8) == ["'TPU_V2_POD' is not a Vertex AI "
                                                    "accelerator type"]
    assert cv("n1-standard-4", "TPU_V3", 8) == [
        "TPU_V3 is not available on n1-standard-4 (for example cloud-tpu)"]
    assert cv("n1-standard-4", "TPU_V4_POD", 8) == ["TPU_V4_POD is not available on "
                                                    "n1-standard-4"]


def test_check_vertex_unknown_and_legacy_machine_names():
    assert check_vertex("n1-standrd-8", None, None) == [
        "'n1-standrd-8' is not a Vertex AI training machine type; did you mean n1-standard-8 "
        "or n4-standard-8 or n2-standard-8?"]
    assert check_vertex("standard_gpu", None, None) == [
        "'standard_gpu' is a legacy AI Platform machine name, not a Vertex AI machine type; "
        "the closest Vertex machine is n1-standard-8 with 1 x NVIDIA_TESLA_K80"]
    assert check_vertex("qqq", None, None) == [
        "'qqq' is not a Vertex AI training machine type"]


@pytest.mark.parametrize(("accel", "count", "ok"), [
    ("TPU_V2", 8, True), ("TPU_V3", 8, True), ("TPU_V3", 32, True), ("TPU_V2", 128, True),
    ("TPU_V3", 16, False), ("TPU_V3", 4, False), ("TPU_V3", 40, False),
])
def test_cloud_tpu_counts(accel, count, ok):
    errors = check_vertex("cloud-tpu", accel, count)
    assert (errors == []) is ok
    if not ok:
        assert errors == [f"{accel} on cloud-tpu needs acceleratorCount 8, or a multiple of 32 "
                          f"for a pod slice, not {count}"]


def test_cloud_tpu_needs_tpu():
    assert check_vertex("cloud-tpu", None, None) == [
        "cloud-tpu needs acceleratorType TPU_V2 or TPU_V3 and acceleratorCount 8 (or a "
        "multiple of 32 for a pod slice)"]
    assert check_vertex("cloud-tpu", "NVIDIA_TESLA_T4", 1) == [
        "NVIDIA_TESLA_T4 is not available on cloud-tpu; it takes TPU_V2 or TPU_V3"]
    assert check_vertex("cloud-tpu", "TPU_V5_LITEPOD", 8) == [
        "TPU_V5_LITEPOD is not available on cloud-tpu; it takes TPU_V2 or TPU_V3"]


@pytest.mark.parametrize("machine", sorted(machines.TPU_VM_MACHINES))
def test_tpu_vm_machines_take_topology_not_accelerator(machine):
    allowed = machines.tpu_topologies(machine)
    assert allowed and machines.omits_accelerator(machine)
    assert machines.implied_accelerator(machine) is None
    for topology in allowed:
        assert check_vertex(machine, None, None, topology) == []
    assert check_vertex(machine, None, None, "3x3") == [
        f"tpuTopology '3x3' is not valid for {machine}; use one of {', '.join(allowed)}"]
    assert check_vertex(machine, None, None) == [
        f"{machine} needs tpuTopology, one of {', '.join(allowed)}"]
    assert len(check_vertex(machine, "TPU_V5_LITEPOD", 4, allowed[0])) == 1


def test_tpu_vm_corpus_examples():
    # corpus 055, 056, 073: machine_type + tpu_topology, no accelerator fields.
    assert check_vertex("ct5lp-hightpu-1t", None, None, "1x1") == []
    assert check_vertex("ct5lp-hightpu-4t", None, None, "4x4") == []
    assert check_vertex("ct5lp-hightpu-4t", None, None, "2x2") == []
    # corpus 050 (TPU_V3 x 8) and 074 (TPU_V3 x 32) on cloud-tpu.
    assert check_vertex("cloud-tpu", "TPU_V3", 8) == []
    assert check_vertex("cloud-tpu", "TPU_V3", 32) == []


def test_each_problem_names_the_key_it_is_about():
    """The target locates a catalog problem by its key, never by reading its message: a
    tpuTopology error is at tpuTopology even when the pool has an accelerator."""
    def keys(*args):
        return [(p.code, p.key) for p in machines.check_vertex(*args)]

    assert keys("n1-standard-4", "NVIDIA_TESLA_T4", 1, "2x2") == [("tpu-topology", "tpuTopology")]
    assert keys("ct5lp-hightpu-4t", None, None, "3x3") == [("tpu-topology", "tpuTopology")]
    assert keys("n1-standard-16", "NVIDIA_TESLA_T4", 3) == [("accelerator-count",
                                                             "accelerator.count")]
    assert keys("n1-standard-4", "NVIDIA_TESLA_A100", 1) == [("machine-accelerator",
                                                              "accelerator.type")]
    assert keys("e2-standard-8", "NVIDIA_TESLA_T4", 1) == [("machine-accelerator", "machineType")]
    assert keys("n1-standrd-8", None, None) == [("unknown-machine", "machineType")]
    assert keys("n1-standard-4", "NVIDIA_TESLA_K80", 1) == [("retired-accelerator",
                                                             "accelerator.type")]
    assert [(p.code, p.severity) for p in machines.check_ml("n1-standard-4", "NVIDIA_TESLA_A100",
                                                            1)] == [("ml-machine-accelerator",
                                                                     "warning")]
    assert [p.severity for p in machines.check_ml("standard_gpu", "NVIDIA_TESLA_K80", 1)] == [
        "error"]


def test_topology_only_on_tpu_vms():
    assert check_vertex("n1-standard-4", None, None, "2x2") == [
        "tpuTopology is only valid on TPU VM machines (ct5lp-hightpu-1t, ct5lp-hightpu-4t, "
        "ct5lp-hightpu-8t, ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t, "
        "tpu7x-standard-4t), not on n1-standard-4"]


def test_topology_helpers():
    assert machines.topology_chips("4x4") == 16
    assert machines.topology_chips("2x2x1") == 4
    assert machines.default_tpu_topology("ct5lp-hightpu-1t") == "1x1"
    assert machines.default_tpu_topology("ct5lp-hightpu-4t") is None
    assert machines.default_tpu_topology("ct5lp-hightpu-4t", 16) == "4x4"
    assert machines.default_tpu_topology("tpu7x-standard-4t", 8) == "2x2x2"
    assert machines.default_tpu_topology("n1-standard-4", 4) is None


@pytest.mark.parametrize(("accel", "count", "machine"), [
    ("NVIDIA_TESLA_A100", 8, "a2-highgpu-8g"), ("NVIDIA_TESLA_A100", 16, "a2-megagpu-16g"),
    ("NVIDIA_TESLA_A100", 1, "a2-highgpu-1g"), ("NVIDIA_A100_80GB", 4, "a2-ultragpu-4g"),
    ("NVIDIA_TESLA_T4", 1, "n1-standard-4"), ("NVIDIA_TESLA_T4", 4, "n1-standard-4"),
    ("NVIDIA_TESLA_V100", 8, "n1-standard-4"),  # [CC]: n1-standard-4 takes 1, 2, 4, 8 V100
    ("NVIDIA_TESLA_P4", 2, "n1-standard-4"), ("NVIDIA_L4", 1, "g2-standard-4"),
    ("NVIDIA_L4", 2, "g2-standard-24"), ("NVIDIA_L4", 8, "g2-standard-96"),
    ("NVIDIA_H100_80GB", 8, "a3-highgpu-8g"), ("NVIDIA_H100_MEGA_80GB", 8, "a3-megagpu-8g"),
    ("NVIDIA_H200_141GB", 8, "a3-ultragpu-8g"), ("NVIDIA_B200", 8, "a4-highgpu-8g"),
    ("NVIDIA_GB200", 4, "a4x-highgpu-4g"), ("NVIDIA_RTX_PRO_6000", 2, "g4-standard-96"),
    ("TPU_V3", 8, "cloud-tpu"), ("TPU_V2", 32, "cloud-tpu"),
    ("TPU_V5_LITEPOD", 1, "ct5lp-hightpu-1t"), ("TPU_V5_LITEPOD", 8, "ct5lp-hightpu-8t"),
    ("TPU_V5_LITEPOD", 16, "ct5lp-hightpu-4t"),
])
def test_smallest_vertex_machine(accel, count, machine):
    assert machines.smallest_vertex_machine(accel, count) == machine


@pytest.mark.parametrize(("accel", "count"), [
    ("NVIDIA_TESLA_K80", 1), ("NVIDIA_TESLA_P100", 1), ("NVIDIA_TESLA_T4", 3),
    ("NVIDIA_L4", 3), ("NVIDIA_H100_80GB", 16), ("TPU_V3", 16), ("TPU_V4_POD", 8),
    ("TPU_V5_LITEPOD", 3), ("NOT_A_GPU", 1),
])
def test_smallest_vertex_machine_none(accel, count):
    assert machines.smallest_vertex_machine(accel, count) is None


def test_smallest_vertex_machine_is_valid_for_every_gpu_and_count():
    for accel in sorted(acc.VERTEX_TYPES - set(acc.RETIRED)):
        for count in (1, 2, 4, 8, 16, 32):
            machine = machines.smallest_vertex_machine(accel, count)
            if machine is None or machines.omits_accelerator(machine):
                continue
            assert check_vertex(machine, accel, count) == [], (accel, count, machine)


def test_disks_and_defaults():
    assert machines.DEFAULT_VERTEX_MACHINE == "n1-standard-4"
    assert machines.DEFAULT_VERTEX_MACHINE in machines.VERTEX_MACHINES
    assert machines.default_boot_disk_type("a3-ultragpu-8g") == "hyperdisk-balanced"
    assert machines.default_boot_disk_type("a4-highgpu-8g") == "hyperdisk-balanced"
    assert machines.default_boot_disk_type("a3-megagpu-8g") == "pd-ssd"
    assert machines.default_boot_disk_type("n1-standard-4") == "pd-ssd"
    assert machines.BOOT_DISK_TYPES_VERTEX == ("pd-ssd", "pd-standard", "hyperdisk-balanced")
    assert machines.BOOT_DISK_TYPES_ML == ("pd-ssd", "pd-standard")
    assert machines.DISK_SIZE_RANGE == (100, 64000)


# --- legacy ml machines -------------------------------------------------------------------

def test_ml_tables():
    assert len(machines.ML_CE_MACHINES) == 17
    assert machines.ML_CE_MACHINES == set(machines.N1_GPU_COUNTS)
    assert len(machines.ML_LEGACY_MACHINES) == 15
    assert set(machines.LEGACY_TO_VERTEX) == set(machines.ML_LEGACY_MACHINES)
    assert machines.is_ml_legacy_name("complex_model_m_v100")
    assert not machines.is_ml_legacy_name("n1-standard-4")
    assert ML_N1_GPU_COUNTS["n1-highcpu-64"]["NVIDIA_TESLA_K80"] == (8,)
    assert "NVIDIA_TESLA_K80" not in ML_N1_GPU_COUNTS["n1-standard-64"]


@pytest.mark.parametrize("legacy", sorted(machines.LEGACY_TO_VERTEX))
def test_every_legacy_name_maps_to_valid_vertex_or_retired(legacy):
    machine, accel, count, note = machines.LEGACY_TO_VERTEX[legacy]
    assert "approximate" in note
    desc, implied, implied_count = machines.ML_LEGACY_MACHINES[legacy]
    assert (accel, count) == (implied, implied_count)
    errors = check_vertex(machine, accel, count)
    if accel in acc.RETIRED:
        assert errors == [acc.RETIRED[accel]]
        # the machine itself is a valid carrier of that GPU count
        assert count in machines.N1_GPU_COUNTS.get(machine, {}).get(accel, ()) or \
            count in ML_N1_GPU_COUNTS[machine].get(accel, ())
    else:
        assert errors == []


def test_legacy_mapping_spot_values():
    assert machines.LEGACY_TO_VERTEX["standard"][:3] == ("n1-standard-4", None, 0)
    assert machines.LEGACY_TO_VERTEX["large_model"][:3] == ("n1-highmem-8", None, 0)
    s = machines.LEGACY_TO_VERTEX["complex_model_s"]
    assert s[0] == "n1-highcpu-16" and "n1-highcpu-8" in s[3]
    assert machines.LEGACY_TO_VERTEX["complex_model_l_v100"][:3] == (
        "n1-highcpu-32", "NVIDIA_TESLA_V100", 8)
    assert machines.LEGACY_TO_VERTEX["cloud_tpu"][:3] == ("cloud-tpu", "TPU_V2", 8)


def test_scale_tiers():
    tiers = machines.SCALE_TIER_TO_VERTEX
    assert tiers["BASIC"][:3] == ("n1-standard-4", None, 0)
    assert tiers["BASIC_GPU"][1] == "NVIDIA_TESLA_K80"
    assert tiers["BASIC_TPU"][:3] == ("cloud-tpu", "TPU_V2", 8)
    assert tiers["STANDARD_1"] is None and tiers["PREMIUM_1"] is None
    assert "CUSTOM" not in tiers
    assert set(machines.SCALE_TIER_REFUSALS) == {"STANDARD_1", "PREMIUM_1"}
    for entry in tiers.values():
        if entry is not None:
            machine, accel, count, note = entry
            assert "approximate" in note
            errors = check_vertex(machine, accel, count)
            assert errors == ([acc.RETIRED[accel]] if accel in acc.RETIRED else [])


def test_check_ml():
    cm = check_ml
    assert cm("standard_gpu", None, None) == []
    assert cm("standard_gpu", "NVIDIA_TESLA_K80", 1) == [
        "acceleratorConfig is only allowed with Compute Engine machine types; standard_gpu is "
        "a legacy name (standard with 1 K80 GPU)"]
    assert cm("cloud_tpu", "TPU_V3", 8) == []
    assert cm("cloud_tpu", None, None) == []
    assert cm("cloud_tpu", "TPU_V3", 32) == ["TPU_V3 on cloud_tpu needs count 8, not 32"]
    assert cm("n1-standard-16", "NVIDIA_TESLA_K80", 1) == [
        "NVIDIA_TESLA_K80 on n1-standard-16 allows count 2, 4, 8, not 1"]
    assert cm("n1-standard-16", "NVIDIA_TESLA_K80", 2) == []
    assert cm("n1-standard-4", "TPU_V2", 8) == ["TPU_V2 is only available with machine type "
                                                 "cloud_tpu"]
    assert cm("n1-standard-4", "NVIDIA_TESLA_A100", 1) == [
        "NVIDIA_TESLA_A100 cannot be attached to n1-standard-4"]
    assert cm("n1-standard-4", "NVIDIA_L4", 1) == [
        "'NVIDIA_L4' is not an AI Platform Training accelerator type"]
    assert cm("a2-highgpu-4g", "NVIDIA_TESLA_A100", 4) == []  # corpus 020
    assert cm("a2-highgpu-4g", "NVIDIA_TESLA_A100", 2) == [
        "a2-highgpu-4g takes exactly 4 x NVIDIA_TESLA_A100"]
    assert cm("a2-highgpu-1g", None, None) == ["a2-highgpu-1g takes exactly 1 x NVIDIA_TESLA_A100"]
    assert cm("g2-standard-4", None, None) == [
        "'g2-standard-4' is a Vertex AI machine type; AI Platform Training documents only "
        "n1-standard/n1-highmem/n1-highcpu machine types and legacy names such as standard_gpu"]
    assert cm("standard-gpu", None, None) == [
        "'standard-gpu' is not an AI Platform Training machine type; did you mean standard_gpu "
        "or standard or standard_p100?"]


@pytest.mark.parametrize("machine", sorted(ML_N1_GPU_COUNTS))
def test_check_ml_every_row(machine):
    for accel, allowed in ML_N1_GPU_COUNTS[machine].items():
        for count in range(1, 9):
            assert (check_ml(machine, accel, count) == []) is (count in allowed)


@pytest.mark.parametrize(("accel", "count", "machine"), [
    ("NVIDIA_TESLA_K80", 1, "n1-standard-4"), ("NVIDIA_TESLA_K80", 8, "n1-standard-4"),
    ("NVIDIA_TESLA_T4", 4, "n1-standard-4"), ("TPU_V2", 8, "cloud_tpu"),
    ("TPU_V3", 32, None), ("NVIDIA_TESLA_A100", 1, "a2-highgpu-1g"), ("NVIDIA_TESLA_T4", 3, None),
])
def test_smallest_ml_machine(accel, count, machine):
    assert machines.smallest_ml_machine(accel, count) == machine
    if machine is not None:
        assert check_ml(machine, accel, count) == []


# --- regions ------------------------------------------------------------------------------

def test_vertex_regions():
    r = regions.VERTEX_TRAINING_REGIONS
    assert len(r) == 39 and "asia-south2" in r and "us-central2" not in r
    assert set(regions.VERTEX_REGION_ACCELERATORS) <= r
    assert set(regions.VERTEX_INFERENCE_ONLY) <= r


@pytest.mark.parametrize(("region", "accel", "count", "ok"), [
    ("us-central1", "NVIDIA_TESLA_T4", None, True),
    ("us-central1", "NVIDIA_GB200", None, True),
    ("asia-east1", "NVIDIA_L4", None, False),          # † inference only
    ("me-west1", "NVIDIA_A100_80GB", None, False),     # †
    ("me-west1", "NVIDIA_TESLA_A100", None, True),
    ("europe-west4", "TPU_V5_LITEPOD", None, False),   # †
    ("us-west1", "TPU_V5_LITEPOD", None, True),
    ("europe-west4", "TPU_V3", 32, True),
    ("us-central1", "TPU_V3", 8, True),
    ("us-central1", "TPU_V3", 32, False),              # us-central1 has v2 pods only
    ("us-central1", "TPU_V2", 64, True),
    ("africa-south1", "NVIDIA_TESLA_T4", None, False),  # CPU-only region
    ("mars-north1", "NVIDIA_TESLA_T4", None, False),
])
def test_vertex_accelerator_in_region(region, accel, count, ok):
    assert regions.vertex_accelerator_in_region(region, accel, count) is ok


def test_regions_with():
    assert regions.regions_with("NVIDIA_GB200") == ["us-central1", "us-east4"]
    assert regions.regions_with("TPU_V3", 32) == ["europe-west4"]
    assert regions.regions_with("NVIDIA_TESLA_V100") == [
        "asia-east1", "europe-west4", "us-central1", "us-east1", "us-west1"]
    assert regions.regions_with("TPU_V5_LITEPOD") == ["us-central1", "us-east1", "us-west1",
                                                      "us-west4"]
    assert regions.regions_with("NVIDIA_TESLA_K80") == []


def test_vertex_machine_in_region():
    assert regions.vertex_machine_in_region("us-central1", "tpu7x-standard-4t")
    assert not regions.vertex_machine_in_region("us-east1", "tpu7x-standard-4t")
    assert regions.vertex_machine_in_region("southamerica-west1", "ct6e-standard-4t")
    assert not regions.vertex_machine_in_region("us-south1", "ct5lp-hightpu-4t")
    assert regions.vertex_machine_in_region("us-east4", "a4x-highgpu-4g")
    assert not regions.vertex_machine_in_region("europe-west1", "g2-standard-8")  # L4 †
    assert regions.vertex_machine_in_region("africa-south1", "n1-standard-4")
    assert not regions.vertex_machine_in_region("mars-north1", "n1-standard-4")
    assert regions.regions_with_machine("tpu7x-standard-4t") == ["us-central1"]


def test_ml_regions():
    assert len(regions.ML_TRAINING_REGIONS) == 9
    assert regions.ml_accelerator_in_region("us-central1", "TPU_V3")
    assert regions.ml_accelerator_in_region("asia-east1", "NVIDIA_TESLA_K80")
    assert not regions.ml_accelerator_in_region("europe-west1", "NVIDIA_TESLA_T4")
    # The 2020 table predates A100 on ml v1: no source to refuse it with, so it is not refused.
    assert regions.ml_accelerator_in_region("us-central1", "NVIDIA_TESLA_A100")
    assert regions.ml_accelerator_in_region("southamerica-east1", "NVIDIA_TESLA_T4")


# --- images -------------------------------------------------------------------------------

@pytest.mark.parametrize(("uri", "status"), [
    ("us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest", "ok"),
    ("asia-docker.pkg.dev/vertex-ai/training/ray-gpu.2-42.py310:latest", "ok"),
    ("europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest", "retired"),
    ("us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest", "retired"),
    ("us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-2.py310:latest", "retired"),
    ("us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-1:latest", "retired"),
    ("us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-19.py310:latest", "unknown"),
    ("us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310", "not-prebuilt"),
    ("us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:2024", "not-prebuilt"),
    ("gcr.io/cloud-aiplatform/training/tf-cpu.2-1:latest", "not-prebuilt"),
    ("us-central1-docker.pkg.dev/vertex-ai/training/tf-cpu.2-1:latest", "not-prebuilt"),
    ("us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest", "not-prebuilt"),
])
def test_executor_image_problem(uri, status):
    problem = images.executor_image_problem(uri, today=TODAY)
    assert (problem.code if problem else "ok") == {
        "ok": "ok", "retired": "executor-image-retired", "unknown": "executor-image-unknown",
        "not-prebuilt": "executor-image-prebuilt"}[status]
    assert problem is None or problem.key == "executorImage"


def test_executor_image_problem_depends_only_on_today():
    uri = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest"
    assert images.executor_image_problem(uri, today=datetime.date(2026, 7, 23)) is None
    problem = images.executor_image_problem(uri, today=datetime.date(2026, 7, 24))
    assert problem.code == "executor-image-retired" and "2026-07-24" in problem.message


def test_image_table_sizes():
    table = images.PREBUILT_TRAINING_IMAGES
    assert len(table) == 91
    assert table["tf-tpu.2-15.cp310"] == ("tensorflow", "2.15", datetime.date(2025, 10, 23))
    assert table["pytorch-xla.2-4.py310"][:2] == ("pytorch", "2.4")
    assert "pytorch-cpu.2-4.py310" not in table  # PyTorch CPU images are named pytorch-xla


@pytest.mark.parametrize("runtime", sorted(images.ML_RUNTIME_VERSIONS))
@pytest.mark.parametrize("gpu", [False, True])
def test_executor_for_runtime_is_recognised(runtime, gpu):
    uri, note = images.executor_for_runtime(runtime, gpu)
    if uri:
        assert images.executor_image_problem(uri, today=TODAY).code == "executor-image-retired"
        assert ("tf-gpu." in uri) is gpu
        assert "end of availability" in note
    else:
        assert runtime not in ("1.15", "2.1", "2.11")
        assert "custom container" in note


def test_executor_for_runtime_values():
    assert images.executor_for_runtime("1.15", False)[0] == (
        "us-docker.pkg.dev/vertex-ai/training/tf-cpu.1-15:latest")
    assert images.executor_for_runtime("2.1", True)[0] == (
        "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-1:latest")
    assert images.executor_for_runtime("2.11", False)[0] == (
        "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest")
    assert images.executor_for_runtime("2.10", False)[0] == ""
    assert images.executor_for_runtime("1.14", False)[0] == ""
    assert images.executor_for_runtime("3.0", False) == (
        "", "runtimeVersion '3.0' is not an AI Platform Training runtime")


def test_runtime_versions():
    rv = images.ML_RUNTIME_VERSIONS
    assert len(rv) == 27 and "2.0" not in rv and "2.12" not in rv
    assert rv["1.0"] == {"2.7"}
    assert rv["1.4"] == {"2.7", "3.5"}
    assert rv["1.14"] == {"2.7", "3.5"}
    assert rv["1.15"] == {"2.7", "3.7"}
    assert all(rv[f"2.{m}"] == {"3.7"} for m in range(1, 12))


@pytest.mark.parametrize(("runtime", "python", "known", "errors"), [
    ("1.15", "3.7", True, []), ("1.15", "2.7", True, []), ("1.14", "3.5", True, []),
    ("2.11", "3.7", True, []),
    ("2.1", "2.7", True, ["runtimeVersion 2.1 supports pythonVersion 3.7, not '2.7'"]),
    ("1.15", "3.5", True, ["runtimeVersion 1.15 supports pythonVersion 2.7, 3.7, not '3.5'"]),
    ("1.3", "3.5", True, ["runtimeVersion 1.3 supports pythonVersion 2.7, not '3.5'"]),
    # The runtime list is ◐ (facts §B.6): an unknown runtime is a warning at runtimeVersion.
    ("2.12", "3.7", False, ["runtimeVersion '2.12' is not a known AI Platform Training runtime "
                            "version (1.0-1.15 or 2.1-2.11)"]),
])
def test_check_runtime_python(runtime, python, known, errors):
    problems = images.check_runtime_python(runtime, python)
    assert [p.message for p in problems] == errors
    # A pairing of a known runtime is verified (an error at pythonVersion); an unknown runtime
    # only a warning at runtimeVersion.
    assert all((p.key, p.severity) == (("pythonVersion", "error") if known else
                                       ("runtimeVersion", "warning")) for p in problems)


def test_documented_rules_refuse_only_on_verified_facts():
    """catalog/documented.py's rules (the registry's `documented` section): an error cites a ✅
    fact; every other rule is a warning."""
    from compiler import rules

    documented = rules.SECTIONS["documented"]
    for rule in documented:
        assert rule.severity in (rules.ERROR, rules.WARNING), rule.code
        assert (rule.severity == rules.ERROR) == ("✅" in rule.source), rule.code
    assert {r.code for r in documented if r.severity == rules.ERROR} == {
        "spot-tpu-pod", "nfs-server-ip", "gb200-reservation"}


@pytest.mark.parametrize(("machine", "topology", "multi"), [
    ("ct5lp-hightpu-4t", "2x2", False), ("ct5lp-hightpu-4t", "2x4", True),
    ("ct5lp-hightpu-8t", "2x4", False), ("ct6e-standard-4t", "4x4", True),
    ("tpu7x-standard-4t", "2x2x1", False), ("tpu7x-standard-4t", "2x2x2", True),
    ("ct5lp-hightpu-1t", "1x1", False), ("n1-standard-4", None, False),
])
def test_multi_host_tpu(machine, topology, multi):
    from compiler.catalog import documented

    assert documented.multi_host_tpu(machine, topology) is multi


def test_catalog_modules_import_no_cycle():
    """Catalog modules import each other without a cycle, and nothing of the compiler but the
    registry (rules.Problem) and suggest (did-you-mean): never a target or a stage."""
    import ast
    from pathlib import Path

    folder = Path(machines.__file__).parent
    imports = {}
    for path in folder.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("compiler"):
                names.add(node.module)
                if node.module == "compiler":
                    assert [a.name for a in node.names] == ["suggest"], path.name
        imports[path.stem] = {n.rsplit(".", 1)[-1] for n in names
                              if n.startswith("compiler.catalog.")}
        assert names <= {f"compiler.catalog.{m}" for m in imports[path.stem]} | {
            "compiler", "compiler.rules", "compiler.catalog"}, path.name
    seen: list[str] = []

    def visit(module: str, stack: tuple[str, ...]) -> None:
        assert module not in stack, " -> ".join((*stack, module))
        for other in imports.get(module, ()):
            visit(other, (*stack, module))
        seen.append(module)

    for module in imports:
        visit(module, ())


def test_one_did_you_mean():
    """Close names are found in one place (compiler/suggest.py), whatever phrases the hint."""
    from pathlib import Path

    compiler_dir = Path(machines.__file__).parent.parent
    users = sorted(str(p.relative_to(compiler_dir)) for p in compiler_dir.rglob("*.py")
                   if "difflib" in p.read_text(encoding="utf-8"))
    assert users == ["suggest.py"]


def test_a_tpu_topology_error_is_located_at_tpu_topology():
    """issue 9: the catalog said which key its problem is about only in prose, and a pool with
    an accelerator had its tpuTopology error reported at machineType."""
    from compiler import pipeline

    text = ("apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: job}\nspec:\n"
            "  region: us-central1\n  container: {image: gcr.io/p/t:1}\n  pools:\n"
            "    chief:\n      machineType: n1-standard-4\n"
            "      accelerator: {type: NVIDIA_TESLA_T4, count: 1}\n      tpuTopology: 2x2\n")
    errors = [d.format() for d in pipeline.compile_text(text, "s.yaml", today=TODAY).errors]
    assert errors == [
        "s.yaml:11:20: error: $.spec.pools.chief.tpuTopology: tpuTopology is only valid on TPU "
        "VM machines (ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t, ct6e-standard-1t, "
        "ct6e-standard-4t, ct6e-standard-8t, tpu7x-standard-4t), not on n1-standard-4 "
        "[tpu-topology]"]
