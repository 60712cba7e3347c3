"""The pool roles: one row each, read wherever a role's name, pool or ml field is decided.

Vertex runs up to four worker pools by index; the ml v1 API names each role's fields
(masterType, workerCount, parameterServerConfig…); gcloud ai-platform names its flags by a
prefix (--master-machine-type); logs name the replicas (workerpool0-0, master-replica-0);
TF_CONFIG names the task types. Sources: aiplatform v1 CustomJobSpec.workerPoolSpecs
("the first is the chief"), ml v1 TrainingInput, gcloud ai-platform jobs submit training,
[DIST] (TF_CONFIG task types).

Pool 2 has two roles ([DIST]'s table: "Parameter servers, Reduction Server"): the
parameterServer, and the reductionServer, told apart by its image. The reduction server is
Vertex-only (no ml fields, no gcloud ai-platform flags) and runs Google's image, not the job's
code, so it is no TF_CONFIG task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    name: str  # the key under spec.pools
    pool: int  # Vertex workerPoolSpecs index
    ml_type: str | None  # ml v1 TrainingInput machine type field (None: not on AI Platform)
    ml_count: str | None  # ml v1 replica count field (None: the master is always one)
    ml_config: str | None  # ml v1 ReplicaConfig field
    gcloud: str | None  # gcloud ai-platform flag prefix (--PREFIX-machine-type); None: no flags
    ml_name: str  # what AI Platform calls it (explain's title on ai-platform)
    ml_task: str | None  # AI Platform's task name in logs (master-replica-0, ps-replica-1)
    tf_type: str | None  # TF_CONFIG task type on Vertex (and AI Platform with useChiefInTfConfig)
    ml_tf_type: str | None  # TF_CONFIG task type on AI Platform by default (chief: "master")
    in_tf_cluster: bool  # listed in TF_CONFIG's cluster (an evaluator never is, [DIST])
    label: str | None = None  # what people call it, where its key would mislead
    image: str | None = None  # the image it runs unless the pool names one (Google's, not yours)

    def title(self, platform: str) -> str:
        """explain's name of the role on `platform`."""
        return f"{self.label or self.name} (pool {self.pool})" if platform == "vertex" \
            else self.ml_name


REDUCTION_SERVER_IMAGE = "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest"
# The regional copies [DIST] lists ({us,europe,asia}-docker.pkg.dev), any tag or digest.
_REDUCTION_SERVER = re.compile(
    r"(us|europe|asia)-docker\.pkg\.dev/vertex-ai-restricted/training/reductionserver"
    r"(:[\w][\w.-]*|@sha256:[0-9a-f]{64})?")


def is_reduction_server_image(image: str | None) -> bool:
    """`image` is Google's reduction-server image (any region, tag or digest)."""
    return bool(image) and _REDUCTION_SERVER.fullmatch(image or "") is not None


ROLES: tuple[Role, ...] = (
    Role("chief", 0, "masterType", None, "masterConfig", "master", "master", "master", "chief",
         "master", True),
    Role("worker", 1, "workerType", "workerCount", "workerConfig", "worker", "worker", "worker",
         "worker", "worker", True),
    Role("parameterServer", 2, "parameterServerType", "parameterServerCount",
         "parameterServerConfig", "parameter-server", "parameter server", "ps", "ps", "ps", True),
    # Reduction Server: pool 2 running Google's reducer image ([DIST] table, "Parameter servers,
    # Reduction Server", cloud.google.com/vertex-ai/docs/training/distributed-training; the
    # image: Google's blog "Optimize training performance with Reduction Server on Vertex AI",
    # 2021-08-25, and googleapis/python-aiplatform tests/unit/aiplatform/constants.py
    # _TEST_REDUCTION_SERVER_CONTAINER_URI, with machine type n1-highcpu-16).
    Role("reductionServer", 2, None, None, None, None, "reduction server", None, None, None,
         False, label="reduction server", image=REDUCTION_SERVER_IMAGE),
    Role("evaluator", 3, "evaluatorType", "evaluatorCount", "evaluatorConfig", None, "evaluator",
         "evaluator", "evaluator", "evaluator", False),
)
CHIEF = ROLES[0]  # the primary replica: Vertex pool 0, the ml master; exactly one replica
NAMES = tuple(r.name for r in ROLES)
ON_ML = tuple(r for r in ROLES if r.ml_type)  # the roles the ml v1 API has fields for
BY_NAME = {r.name: r for r in ROLES}
# The role a pool index means by itself (pool 2: the parameterServer); of_pool tells the rest.
BY_POOL = {r.pool: r for r in ROLES if r.image is None}
PARAMETER_SERVER, REDUCTION_SERVER = BY_NAME["parameterServer"], BY_NAME["reductionServer"]


def of_pool(index: int, image: str | None) -> Role:
    """The role of Vertex pool `index` running `image`: the reduction server by its image."""
    if index == REDUCTION_SERVER.pool and is_reduction_server_image(image):
        return REDUCTION_SERVER
    return BY_POOL[index]

