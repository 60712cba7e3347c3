"""The pool roles: one row each, read wherever a role's name, pool or ml field is decided.

Vertex runs up to four worker pools by index; the ml v1 API names each role's fields
(masterType, workerCount, parameterServerConfig…); gcloud ai-platform names its flags by a
prefix (--master-machine-type); logs name the replicas (workerpool0-0, master-replica-0);
TF_CONFIG names the task types. Sources: aiplatform v1 CustomJobSpec.workerPoolSpecs
("the first is the chief"), ml v1 TrainingInput, gcloud ai-platform jobs submit training,
[DIST] (TF_CONFIG task types).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    name: str  # the key under spec.pools
    pool: int  # Vertex workerPoolSpecs index
    ml_type: str  # ml v1 TrainingInput machine type field
    ml_count: str | None  # ml v1 replica count field (None: the master is always one)
    ml_config: str  # ml v1 ReplicaConfig field
    gcloud: str | None  # gcloud ai-platform flag prefix (--PREFIX-machine-type); None: no flags
    ml_name: str  # what AI Platform calls it (explain's title on ai-platform)
    ml_task: str  # AI Platform's task name in logs (master-replica-0, ps-replica-1)
    tf_type: str  # TF_CONFIG task type on Vertex (and AI Platform with useChiefInTfConfig)
    ml_tf_type: str  # TF_CONFIG task type on AI Platform by default (the chief is "master")
    in_tf_cluster: bool  # listed in TF_CONFIG's cluster (an evaluator never is, [DIST])

    def title(self, platform: str) -> str:
        """explain's name of the role on `platform`."""
        return f"{self.name} (pool {self.pool})" if platform == "vertex" else self.ml_name


ROLES: tuple[Role, ...] = (
    Role("chief", 0, "masterType", None, "masterConfig", "master", "master", "master", "chief",
         "master", True),
    Role("worker", 1, "workerType", "workerCount", "workerConfig", "worker", "worker", "worker",
         "worker", "worker", True),
    Role("parameterServer", 2, "parameterServerType", "parameterServerCount",
         "parameterServerConfig", "parameter-server", "parameter server", "ps", "ps", "ps", True),
    Role("evaluator", 3, "evaluatorType", "evaluatorCount", "evaluatorConfig", None, "evaluator",
         "evaluator", "evaluator", "evaluator", False),
)
CHIEF = ROLES[0]  # the primary replica: Vertex pool 0, the ml master; exactly one replica
NAMES = tuple(r.name for r in ROLES)
BY_NAME = {r.name: r for r in ROLES}
BY_POOL = {r.pool: r for r in ROLES}
