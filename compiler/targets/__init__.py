"""One lowering module per API, and the one registry of platforms every other stage reads.

Each lowering module lists its passes as data: RESOLVE (the defaults the API needs, each with a
note; the only place defaults are chosen) then CHECK (pure: what the API refuses), both run by
`prepare` (common.py); then `lower(job)`, a pure mapping to the request body. `PLATFORMS` names,
per platform, its lowering module, API (discovery document), request schema per spec kind,
Pulumi resource per spec kind (compiler.pulumi_resources), console page, and every other fact
in which the platforms differ that a stage outside targets/ decides by (explain's endpoint and
catalog marks, local-run's environment, plan's in-place updates, the set rules' job ids): a
new platform is one row here and one lowering module, and no other stage asks which platform
it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType

from ..catalog import accelerators, machines, regions
from ..cloud import jobs
from ..model import PythonPackage
from . import ml, vertex
from .common import compact, prepare

__all__ = ["PLATFORMS", "TRAINING", "TUNING", "Platform", "body_schema", "compact", "prepare"]


@dataclass(frozen=True)
class Platform:
    name: str  # spec.platform
    target: ModuleType  # RESOLVE, CHECK, lower
    api: str  # the discovery document of its REST API
    bodies: Mapping[str, str]  # spec kind → schema of the create request body
    resources: Mapping[str, str]  # spec kind → job resource (trainspec:index:NAME; 0.1: class)
    console: Mapping[str, Callable[[str, str], str]]  # spec kind → (name, project) → page URL
    # spec kind → the create request's method and URL ({project}, {region}), for explain.
    endpoint: Mapping[str, str]
    # The job's id from metadata.name and metadata.run when the client chooses it (ml v1: a
    # jobId unique per project, so the set rules check it); None: the API names the job.
    job_id: Callable[[str, str | None], str] | None
    tuning_field: str | None  # where a tuning job's search goes in the job body (None: its own)
    boot_disk: Callable[[str], str]  # machine type → the boot disk type the API defaults to
    python_runtime: Callable[[PythonPackage], str]  # what runs a python package (explain)
    # The catalog: training regions, machine types known, accelerators (None: the request
    # schema's enum is closed, nothing else reaches explain), accelerator in region.
    regions: frozenset[str]
    known_machine: Callable[[str], bool]
    accelerators: frozenset[str] | None
    in_region: Callable[[str, str, int | None], bool]
    # The replica's environment (local-run): the service sets CLUSTER_SPEC with workerpoolN
    # names; TF_CONFIG names the chief "master" unless aiPlatform.useChiefInTfConfig; the
    # argument the trainer gets spec.outputDir as (None: an environment variable only).
    cluster_spec: bool
    chief_is_master: bool
    job_dir_argument: str | None
    labels_in_place: bool  # a change of labels alone updates the job in place (ml v1 patch)


TRAINING, TUNING = "TrainingJob", "HyperparameterTuningJob"

_VERTEX_URL = ("POST https://{region}-aiplatform.googleapis.com/v1/projects/{project}"
               "/locations/{region}/")
_ML_URL = "POST https://ml.googleapis.com/v1/projects/{project}/jobs"


def _vertex_machine(machine: str) -> bool:
    return machine in machines.VERTEX_MACHINES or machine in machines.LEGACY_TO_VERTEX


def _ml_machine(machine: str) -> bool:
    return machine in machines.ML_CE_MACHINES or machine in machines.ML_LEGACY_MACHINES \
        or machine == machines.ML_CLOUD_TPU


PLATFORMS = {p.name: p for p in (
    Platform("vertex", vertex, vertex.API,
             {TRAINING: vertex.SCHEMA, TUNING: vertex.TUNING_SCHEMA},
             {TRAINING: "VertexCustomJob", TUNING: "VertexHyperparameterTuningJob"},
             {TRAINING: jobs.vertex_console_url, TUNING: jobs.tuning_console_url},
             {TRAINING: _VERTEX_URL + "customJobs",
              TUNING: _VERTEX_URL + "hyperparameterTuningJobs"},
             job_id=None, tuning_field=None, boot_disk=machines.default_boot_disk_type,
             python_runtime=lambda task: f"in {task.executor_image}",
             regions=regions.VERTEX_TRAINING_REGIONS, known_machine=_vertex_machine,
             accelerators=accelerators.VERTEX_TYPES,
             in_region=regions.vertex_accelerator_in_region,
             cluster_spec=True, chief_is_master=False, job_dir_argument=None,
             labels_in_place=False),
    # On ai-platform a tuning job is a Job like any other.
    Platform("ai-platform", ml, ml.API,
             {TRAINING: ml.SCHEMA, TUNING: ml.SCHEMA},
             {TRAINING: "AiPlatformJob", TUNING: "AiPlatformJob"},
             {TRAINING: jobs.ml_console_url, TUNING: jobs.ml_console_url},
             {TRAINING: _ML_URL, TUNING: _ML_URL},
             job_id=ml.job_id, tuning_field="trainingInput.hyperparameters",
             boot_disk=lambda machine: "pd-ssd",
             python_runtime=lambda task: f"runtime {task.runtime_version}, "
                                         f"Python {task.python_version}",
             regions=regions.ML_TRAINING_REGIONS, known_machine=_ml_machine, accelerators=None,
             in_region=lambda region, accel, count: regions.ml_accelerator_in_region(region,
                                                                                     accel),
             cluster_spec=False, chief_is_master=True, job_dir_argument="--job-dir",
             labels_in_place=True),
)}


def body_schema(platform: str, kind: str = TRAINING) -> tuple[str, str]:
    """(discovery API, schema name) of the request a job of `kind` compiles to on `platform`."""
    found = PLATFORMS[platform]
    return found.api, found.bodies[kind]
