"""The registry of diagnostic codes: every problem trainspec reports has one stable code.

A code names one rule (one fact): users write it in `ignore:`, `severity:`, inline
`# trainspec: ignore[code]` and code-scanning tools key alerts on it, so a code is never
renamed or reused for another rule. `docs/rules.md` is generated from this table.

Codes are kebab-case nouns of the fact they check (`accelerator-count`, `unknown-machine`,
`region-accelerator`, `secret-namespace`), never of the message's wording.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # the default; a repo config's `severity:` may change it
    summary: str  # what the rule checks, one line (docs/rules.md)
    source: str  # where the fact comes from: facts §, discovery document, a URL, or "trainspec"


def _table(*sections: tuple[Rule, ...]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for section in sections:
        for rule in section:
            if rule.code in table:
                raise ValueError(f"rule code {rule.code!r} declared twice")
            table[rule.code] = rule
    return table


# Each part of the pipeline declares its rules in its own section below.

# normalize (compiler/normalize.py): the spec's meaning, either platform.
_TABLE_NORMALIZE = (
    Rule("misread-number", ERROR, "a number YAML reads otherwise than it looks (0600, 1:30) or "
         "that JSON cannot carry (.inf, beyond int64)", "trainspec (YAML 1.1 vs 1.2)"),
    Rule("missing-chief", ERROR, "pools without a chief pool",
         "facts §A.4 ✅ (workerPoolSpecs[0] is the chief), §B.4 ✅ (masterType)"),
    Rule("chief-replicas", ERROR, "the chief pool runs exactly one replica",
         "facts §A.4 ✅, §B.4 ✅"),
    Rule("unused-staging-bucket", WARNING, "spec.stagingBucket without a python.source",
         "trainspec"),
    Rule("tuning-kind", ERROR, "spec.tuning if and only if kind HyperparameterTuningJob; the "
         "legacy aiPlatform.hyperparameters only on a TrainingJob", "trainspec"),
    Rule("option-ignored", WARNING, "a --project/--region/--staging-bucket (or stack config) "
         "value that the spec's own value overrides", "trainspec"),
    Rule("staging-bucket-name", ERROR, "--staging-bucket / trainspec:stagingBucket is a bucket "
         "name", "https://cloud.google.com/storage/docs/buckets#naming"),
    Rule("label-key", ERROR, "label keys: a lower-case letter, then lower-case letters, digits, "
         "'_' and '-', at most 63", "https://cloud.google.com/compute/docs/labeling-resources"),
    Rule("label-value", ERROR, "label values: lower-case letters, digits, '_' and '-', at most 63",
         "https://cloud.google.com/compute/docs/labeling-resources"),
    Rule("label-prefix", ERROR, "the label prefix trainspec- is trainspec's own", "trainspec"),
    Rule("label-count", ERROR, "at most 64 labels, less the ones trainspec adds",
         "aiplatform v1 CustomJob.labels, ml v1 Job.labels"),
    Rule("task-kind", ERROR, "a spec or pool runs a container or a Python package, not both",
         "aiplatform v1 WorkerPoolSpec (containerSpec | pythonPackageSpec)"),
    Rule("package-count", ERROR, "at most 100 Python packages, a built python.source included",
         "aiplatform v1 PythonPackageSpec.packageUris, ml v1 TrainingInput.packageUris"),
    Rule("gpu-partition-count", ERROR, "a GPU partition needs accelerator count 1",
         "aiplatform v1 MachineSpec.gpuPartitionSize"),
    Rule("unknown-accelerator", ERROR, "an accelerator name that is no API enum or known short "
         "name", "facts §A.6 ✅"),
    Rule("reservation-values", ERROR, "a SPECIFIC reservation names the reservation (values)",
         "aiplatform v1 ReservationAffinity.values"),
    Rule("reservation-keys", ERROR, "reservation key and values apply only to SPECIFIC",
         "aiplatform v1 ReservationAffinity.key"),
    Rule("no-task", ERROR, "a pool without a container or Python package to run", "trainspec"),
    Rule("missing-image", ERROR, "a container without an image",
         "aiplatform v1 ContainerSpec.imageUri (required)"),
    Rule("missing-package", ERROR, "a Python task without source or packages",
         "aiplatform v1 PythonPackageSpec.packageUris (required)"),
    Rule("missing-module", ERROR, "a Python task without module",
         "aiplatform v1 PythonPackageSpec.pythonModule (required)"),
    Rule("args-size", WARNING, "command and args over 100,000 characters (no documented limit)",
         "facts §D.1 ❌"),
    Rule("env-count", ERROR, "at most 100 environment variables per pool",
         "aiplatform v1 ContainerSpec.env"),
    Rule("duration-syntax", ERROR, "a duration trainspec cannot read (90s, 30m, 2h, 1d, 1h30m)",
         "trainspec"),
    Rule("duration-range", ERROR, "a duration the API cannot carry (a timeout of 0, beyond "
         "google.protobuf.Duration)", "google.protobuf.Duration"),
    Rule("kms-region", ERROR, "the Cloud KMS key is in the job's region", "facts §A.2 ✅"),
    Rule("reserved-ip-network", WARNING, "reservedIpRanges without spec.network", "facts §A.3 ◐"),
)
# The platform refusals of compiler/fields.py (and env, which only Vertex has).
_TABLE_FIELDS = (
    Rule("vertex-only", ERROR, "a field the ml v1 API cannot express (compiler/fields.py)",
         "ml v1 TrainingInput (no such field)"),
    Rule("ml-only", ERROR, "a field Vertex cannot express (compiler/fields.py)",
         "aiplatform v1 CustomJob (no such field)"),
)
# Both targets (compiler/targets/*_resolve.py, *_check.py).
_TABLE_TARGETS = (
    Rule("scale-tier-pools", ERROR, "a scale tier other than CUSTOM with pools", "facts §B.3 ✅"),
    Rule("no-machine", ERROR, "no machine takes the pool's accelerator and count",
         "facts §A.6 ✅, §B.5 ◐"),
    Rule("disk-type", ERROR, "a boot disk type the platform does not offer",
         "facts §A.9 ✅, §B.5 ◐"),
)
_TABLE_VERTEX = (
    Rule("tensorboard-service-account", WARNING, "Vertex TensorBoard without a serviceAccount",
         "aiplatform v1 CustomJobSpec.tensorboard"),
    Rule("vertex-region", ERROR, "not a Vertex AI training region", "facts §A.8 ✅"),
    Rule("scale-tier-vertex", ERROR, "a scale tier whose machines are not documented",
         "facts §B.10 ◐"),
    Rule("tuning-vertex-required", ERROR, "Vertex requires maxTrialCount and parallelTrialCount",
         "aiplatform v1 HyperparameterTuningJob"),
    Rule("tuning-id-whitespace", ERROR, "metric and parameter ids without whitespace",
         "aiplatform v1 StudySpec.MetricSpec.metricId"),
    Rule("tuning-discrete-gap", ERROR, "discrete values at least 1e-10 apart",
         "aiplatform v1 StudySpec.ParameterSpec.DiscreteValueSpec"),
    Rule("tuning-default-stopping", WARNING, "earlyStopping: true sent as a named rule",
         "aiplatform v1 StudySpec (one stopping spec)"),
    Rule("machine-type", ERROR, "not a Vertex AI training machine type, or one it does not "
         "take as written", "facts §A.5 ✅"),
    Rule("machine-accelerator", ERROR, "an accelerator the machine does not take",
         "facts §A.6 ✅, §A.7 ✅"),
    Rule("accelerator-count", ERROR, "an accelerator count the machine does not take",
         "facts §A.6 ✅"),
    Rule("tpu-topology", ERROR, "a TPU topology the machine does not take", "facts §A.7 ✅"),
    Rule("gpu-partition-accelerator", ERROR, "a GPU partition without an accelerator",
         "aiplatform v1 MachineSpec.gpuPartitionSize"),
    Rule("tpu-single-pool", ERROR, "a TPU job runs one pool of one replica", "facts §A.7 ✅"),
    Rule("vertex-ignores-runtime", WARNING, "runtimeVersion/pythonVersion beside executorImage "
         "(not sent on vertex)", "trainspec"),
    Rule("missing-executor-image", ERROR, "a Python task on vertex without executorImage or "
         "runtimeVersion", "aiplatform v1 PythonPackageSpec.executorImageUri (required)"),
    Rule("runtime-executor", ERROR, "no prebuilt Vertex container for the runtimeVersion",
         "facts §A.11 ✅"),
    Rule("executor-image", WARNING, "an unknown or retired prebuilt executor image",
         "facts §A.11 ✅"),
    Rule("region-accelerator", ERROR, "an accelerator not offered for training in the region",
         "facts §A.8 ✅"),
    Rule("region-machine", ERROR, "a machine not offered for training in the region",
         "facts §A.8 ✅"),
    Rule("max-wait-flex-start", ERROR, "maxWait only with strategy FLEX_START", "facts §A.10 ✅"),
    Rule("flex-start-gpu", ERROR, "FLEX_START needs an L4, A100, H100, H200 or B200 in every "
         "pool", "facts §A.10 ✅ [DWS]"),
    Rule("flex-start-timeout", ERROR, "FLEX_START jobs run at most 7 days", "facts §A.10 ✅"),
    Rule("flex-start-shape", ERROR, "FLEX_START needs one machine shape in every pool",
         "facts §A.10 ✅"),
)
_TABLE_ML = (
    Rule("job-id", ERROR, "the ml v1 jobId: letters, digits and '_', a letter first, at most "
         "128", "facts §B.2 ✅"),
    Rule("ml-region-required", ERROR, "ai-platform needs a region", "ml v1 TrainingInput.region"),
    Rule("ml-region", WARNING, "a region missing from trainspec's old AI Platform list",
         "facts §B.8 ◐"),
    Rule("ml-max-wait", ERROR, "maxWait of at least 30m on ai-platform",
         "ml v1 Scheduling.maxWaitTime"),
    Rule("scale-tier-k80", WARNING, "BASIC_GPU ran on a retired K80", "facts §B.3 ◐"),
    Rule("ml-machine-kinds", ERROR, "legacy machine names and Compute Engine types mixed",
         "facts §B.4 ✅"),
    Rule("ml-task-kind", ERROR, "all ml pools run one kind of task", "facts §B.4 ✅"),
    Rule("ml-one-package", ERROR, "ml runs one Python package for all replicas",
         "ml v1 TrainingInput.packageUris"),
    Rule("ml-ignores-executor-image", WARNING, "executorImage is not sent on ai-platform",
         "trainspec"),
    Rule("ml-runtime-version", ERROR, "a Python task on ai-platform needs runtimeVersion",
         "facts §B.6 ✅"),
    Rule("ml-python-version", WARNING, "no pythonVersion: the service picks one", "facts §B.6 ◐"),
    Rule("runtime-python", ERROR, "a pythonVersion the runtimeVersion does not offer",
         "facts §B.6 ✅"),
    Rule("runtime-python-unverified", WARNING, "a runtimeVersion missing from trainspec's table",
         "facts §B.6 ◐"),
    Rule("retired-accelerator", ERROR, "a retired accelerator", "facts §B.5 ✅"),
    Rule("ml-accelerator", ERROR, "an accelerator ai-platform does not offer", "facts §B.5 ◐"),
    Rule("ml-machine", ERROR, "a machine/accelerator pairing ai-platform refuses",
         "facts §B.5 ✅"),
    Rule("ml-machine-unverified", WARNING, "a machine/accelerator pairing the old ml tables "
         "refuse", "facts §B.5 ◐"),
    Rule("ml-region-accelerator", WARNING, "an accelerator not offered in the region (old table)",
         "facts §B.8 ◐"),
)
# import (compiler/importers/vertex.py, ml.py, flags.py, compiler/decompile.py).
_TABLE_IMPORT = (
    Rule("import-unknown-field", ERROR, "a request field the importer does not know",
         "aiplatform v1 / ml v1 discovery documents"),
    Rule("import-shape", ERROR, "a request value of the wrong shape (a mapping, a list)",
         "aiplatform v1 / ml v1 discovery documents"),
    Rule("import-pool-count", ERROR, "at most 4 worker pools", "facts §A.4 ✅"),
    Rule("import-empty-chief", ERROR, "pool 0 (the chief) is empty", "facts §A.4 ✅"),
    Rule("import-task-kind", ERROR, "a pool or job runs exactly one of a container and a Python "
         "package", "aiplatform v1 WorkerPoolSpec, ml v1 TrainingInput"),
    Rule("import-no-task", ERROR, "nothing to run in the source", "ml v1 TrainingInput"),
    Rule("import-env-twice", ERROR, "an environment variable set twice", "trainspec"),
    Rule("import-runtime-container", ERROR, "runtimeVersion/pythonVersion with a custom "
         "container", "trainspec"),
    Rule("import-args", ERROR, "args for every replica and containerArgs per replica",
         "ml v1 ReplicaConfig.containerArgs"),
    Rule("import-own-flags", ERROR, "before `--` in an imported gcloud command line, only "
         "trainspec's --platform and --name", "trainspec"),
    Rule("import-trial-job-only", ERROR, "--trial-job-only without a tuning job", "trainspec"),
    Rule("import-no-region", WARNING, "an ai-platform source without a region",
         "ml v1 TrainingInput.region"),
    Rule("gcloud-flag-api", ERROR, "a gcloud flag of another command than the config's",
         "gcloud ai-platform jobs submit training, ai custom-jobs create, ai hp-tuning-jobs "
         "create"),
    Rule("gcloud-refuses", ERROR, "what gcloud itself refuses of flags and --config",
         "gcloud (googlecloudsdk/command_lib/ai)"),
    Rule("gcloud-ignored-flag", WARNING, "a gcloud flag gcloud ignores with --config pools",
         "gcloud ai custom-jobs create"),
)

RULES: dict[str, Rule] = _table(_TABLE_NORMALIZE, _TABLE_FIELDS, _TABLE_TARGETS, _TABLE_VERTEX,
                                _TABLE_ML, _TABLE_IMPORT)
