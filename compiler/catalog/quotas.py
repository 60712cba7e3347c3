"""The Vertex AI allocation quotas a custom-training job holds while it runs: which quota metric
each accelerator, TPU and vCPU counts against, per region, on-demand or preemptible.

A row's status says how sure the metric's name *and* what it counts are: ``verified`` (read in a
current primary source, Google's documentation) or ``secondary`` (seen in the real API's own
429 answers as quoted in public issues, or in Google-authored samples, not in the docs). Only
a verified row may make trainspec refuse a job (a quota over its limit is then an error);
over the limit on a secondary row is a warning. An accelerator without a row is not checked.

Spot (``scheduling.strategy: SPOT``) and Flex-start (``FLEX_START``, Dynamic Workload
Scheduler) jobs hold the *preemptible* metrics: ``custom_model_training_preemptible_<stem>``
([DWS] for Flex-start; for Spot the 429 quoted in the sources).

Sources (each row names where its metric was seen; a row's preemptible name is the [DWS]
pattern applied to it unless the source is [DWS] itself):
  [DWS]  https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws ("consumes
         preemptible quota", `custom_model_training_preemptible_nvidia_h100_gpus`), read
         2026-11-26 (docs.cloud.google.com mirror; facts §A.10 ✅)
  [429]  the aiplatform v1 429 body "The following quota metrics exceed quota limits: M" as
         quoted in public issues: GoogleCloudPlatform/vertex-ai-samples#700 (k80, 2022-06-30),
         #3479 (cpus, 2024-08-23), GoogleCloudPlatform/stable-diffusion-on-gcp#12 (l4,
         2023-12-03), google-deepmind/xmanager#29 (tpu_v2, 2022-08-03); openillumi.com on a
         Stack Overflow question (p4); issue 21's own text (a100); an issue's log of a Spot job
         (preemptible t4, 2025-11-16)
  [PAT]  the pattern of the names above applied to an accelerator no source names: unverified
"""

from __future__ import annotations

from dataclasses import dataclass

SERVICE = "aiplatform.googleapis.com"
PLATFORMS = ("vertex",)  # the jobs whose quotas these are (ml v1's are another service's)
PREFIX = f"{SERVICE}/custom_model_training_"
PREEMPTIBLE = "preemptible_"
CPUS = "cpus"
UNLIMITED = -1  # an effectiveLimit of -1: no limit
VERIFIED, SECONDARY = "verified", "secondary"
# Where a project's limits are raised: the console's Quotas page, and how to ask.
CONSOLE = "https://console.cloud.google.com/iam-admin/quotas"
HOW_TO_REQUEST = "https://cloud.google.com/docs/quotas/help/request_increase"


@dataclass(frozen=True)
class Row:
    stem: str  # the metric after PREFIX (and after PREEMPTIBLE for a Spot/Flex-start job)
    on_demand: str  # status of the on-demand metric
    preemptible: str  # status of the preemptible metric
    source: str


# accelerator enum (aiplatform v1 MachineSpec.acceleratorType) → its quota metric. GPUs count
# GPUs; TPU v2/v3 count TPU cores (acceleratorCount is cores on `cloud-tpu`, facts §A.7).
ACCELERATORS: dict[str, Row] = {
    "NVIDIA_TESLA_K80": Row("nvidia_k80_gpus", SECONDARY, SECONDARY, "[429] vertex-ai-samples#700"),
    "NVIDIA_TESLA_P4": Row("nvidia_p4_gpus", SECONDARY, SECONDARY, "[429] openillumi.com"),
    "NVIDIA_TESLA_T4": Row("nvidia_t4_gpus", SECONDARY, SECONDARY, "[429] a Spot job's log"),
    "NVIDIA_TESLA_P100": Row("nvidia_p100_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "NVIDIA_TESLA_V100": Row("nvidia_v100_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "NVIDIA_TESLA_A100": Row("nvidia_a100_gpus", SECONDARY, SECONDARY, "[429] issue 21"),
    "NVIDIA_A100_80GB": Row("nvidia_a100_80gb_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "NVIDIA_L4": Row("nvidia_l4_gpus", SECONDARY, SECONDARY, "[429] stable-diffusion-on-gcp#12"),
    "NVIDIA_H100_80GB": Row("nvidia_h100_gpus", SECONDARY, VERIFIED, "[DWS]"),
    "NVIDIA_H100_MEGA_80GB": Row("nvidia_h100_mega_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "NVIDIA_H200_141GB": Row("nvidia_h200_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "NVIDIA_B200": Row("nvidia_b200_gpus", SECONDARY, SECONDARY, "[PAT]"),
    "TPU_V2": Row("tpu_v2", SECONDARY, SECONDARY, "[429] xmanager#29"),
    "TPU_V3": Row("tpu_v3", SECONDARY, SECONDARY, "[PAT]"),
}
# Every replica's vCPUs ("custom_model_training_cpus", [429] vertex-ai-samples#3479).
CPU_ROW = Row(CPUS, SECONDARY, SECONDARY, "[429] vertex-ai-samples#3479")


def metric(row: Row, preemptible: bool) -> str:
    """The full metric name: ``aiplatform.googleapis.com/custom_model_training_...``."""
    return PREFIX + (PREEMPTIBLE if preemptible else "") + row.stem


def status(row: Row, preemptible: bool) -> str:
    return row.preemptible if preemptible else row.on_demand


def console_url(project: str | None) -> str:
    """The console's Quotas page of `project` (filter it by the metric there)."""
    return f"{CONSOLE}?project={project}" if project else CONSOLE
