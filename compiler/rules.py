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


@dataclass(frozen=True)
class Problem:
    """What a pure check (the catalog's) found: the caller adds the JSON path and position.

    `key` is the spec key the problem is about, relative to the object the caller checked
    (`accelerator.count` of a pool; "" for the object itself), so the caller locates it
    without reading the message."""

    code: str
    key: str
    message: str
    hint: str | None = None

    @property
    def severity(self) -> str:
        return RULES[self.code].severity


def _table(*sections: tuple[Rule, ...]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for section in sections:
        for rule in section:
            if rule.code in table:
                raise ValueError(f"rule code {rule.code!r} declared twice")
            table[rule.code] = rule
    return table


# Each part of the pipeline declares its rules in its own section below.

_F = "facts"  # the facts reference, shared/reference/gcp-training-facts.md
_CC = "https://cloud.google.com/vertex-ai/docs/training/configure-compute"
_SPOT = "https://cloud.google.com/vertex-ai/docs/training/use-spot-vms"
_DWS = "https://cloud.google.com/vertex-ai/docs/training/schedule-jobs-dws"
_NFS = "https://cloud.google.com/vertex-ai/docs/training/train-nfs-share"
_MIG = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi#multi-instance_gpu_partitions"
_DISKS = "https://cloud.google.com/compute/docs/disks/hyperdisks#machine-type-support"
_YAML = "trainspec (YAML 1.1, read safely: compiler/source.py)"
_SCHEMA_FILE = "schemas/v1/trainspec.schema.json"

# Reading a file: compiler/source.py, cli.py (spec paths), review.py (spec files at a revision).
_SOURCE = (
    Rule("file-missing", ERROR, "a spec path names no file (or a broken symbolic link)",
         "trainspec"),
    Rule("file-unreadable", ERROR, "the operating system refused to read the file", "trainspec"),
    Rule("file-type", ERROR, "a spec is a regular file (not a folder, pipe or device; diff "
         "reads no symbolic links)", "trainspec"),
    Rule("file-name", ERROR, "a spec file name holds no control character (it would forge "
         "output lines)", "trainspec"),
    Rule("file-size", ERROR, "a spec file is at most 1 MiB", "trainspec"),
    Rule("file-encoding", ERROR, "a spec file is UTF-8 text", "https://yaml.org/spec/1.2.2/"
         "#52-character-encodings"),
    Rule("empty-document", ERROR, "the file holds a document", "trainspec"),
    Rule("yaml-syntax", ERROR, "the file is well-formed YAML", "https://yaml.org/spec/1.1/"),
    Rule("yaml-multiple-documents", ERROR, "one document (one spec) per file", "trainspec"),
    Rule("yaml-limits", ERROR, "nesting depth and number of values stay within a spec's size "
         "(aliases cannot expand into huge trees)", _YAML),
    Rule("yaml-recursive-alias", ERROR, "no alias refers to a node that contains it", _YAML),
    Rule("yaml-tag", ERROR, "plain YAML only: no tags (!!python/..., custom types)", _YAML),
    Rule("yaml-duplicate-key", ERROR, "no key is written twice in one mapping (a YAML "
         "loader would keep one silently)", "https://yaml.org/spec/1.2.2/#mapping"),
    Rule("yaml-key", ERROR, "mapping keys are plain strings (quote yes/no/on/off and numbers)",
         _YAML),
    Rule("yaml-merge", ERROR, "a merge key ('<<') takes a mapping or a list of mappings",
         "https://yaml.org/type/merge.html"),
    Rule("top-level-mapping", ERROR, "the document is a mapping (apiVersion, kind, metadata, "
         "spec)", _SCHEMA_FILE),
)

# JSON Schema validation (compiler/schemas.py): one code per kind of schema check.
_SCHEMA = (
    Rule("api-version", ERROR, "apiVersion names a supported trainspec version", _SCHEMA_FILE),
    Rule("not-a-spec", ERROR, "a job config (gcloud, REST, SDK) is imported, not validated as "
         "a spec", "trainspec"),
    Rule("unknown-key", ERROR, "every key is one the schema defines (with a did-you-mean)",
         f"{_SCHEMA_FILE} additionalProperties"),
    Rule("key-format", ERROR, "keys of free-form mappings (labels, env) have the allowed form",
         f"{_SCHEMA_FILE} propertyNames"),
    Rule("required-key", ERROR, "required keys are present", f"{_SCHEMA_FILE} required"),
    Rule("wrong-type", ERROR, "each value has the type its key takes (an integer without a "
         "decimal point, a quoted version string)", f"{_SCHEMA_FILE} type"),
    Rule("enum-value", ERROR, "a value is one of its key's fixed choices", f"{_SCHEMA_FILE} enum, "
         "const"),
    Rule("value-format", ERROR, "a string matches its key's pattern (names, URIs, durations)",
         f"{_SCHEMA_FILE} pattern"),
    Rule("value-range", ERROR, "a number is within its key's bounds", f"{_SCHEMA_FILE} minimum, "
         "maximum"),
    Rule("value-length", ERROR, "a string is within its key's length limits", f"{_SCHEMA_FILE} "
         "minLength, maxLength"),
    Rule("item-count", ERROR, "a list or mapping has an allowed number of entries",
         f"{_SCHEMA_FILE} minItems, maxItems, minProperties, maxProperties"),
    Rule("schema-rule", ERROR, "any other schema keyword (none in schema v1 today)", _SCHEMA_FILE),
)

# A tree of specs (compiler/pipeline.py, the Pulumi program, status/logs/wait).
_TREE = (
    Rule("duplicate-job-name", ERROR, "each spec of a tree names its own job (metadata.name)",
         "trainspec"),
    Rule("duplicate-job-id", ERROR, "on ai-platform, no two specs of a tree give the same "
         "jobId in one project ('-' becomes '_')", f"{_F} §B.2 ✅"),
    Rule("job-location", ERROR, "a job to create or look up has a project and a region",
         f"{_F} §A.1, §B.2 ✅"),
)

# The Pulumi program (compiler/pulumi_program.py) and its stack configuration.
_PULUMI = (
    Rule("no-specs", ERROR, "the stack's spec folder (trainspec:specs) holds a spec",
         "trainspec"),
    Rule("secret-not-set", ERROR, "every {secret: NAME} env value names a set secret config",
         "https://www.pulumi.com/docs/concepts/secrets/"),
    Rule("stack-option", ERROR, "trainspec:protect / trainspec:retainOnDelete are lists of "
         "job names or [\"*\"]", "https://www.pulumi.com/docs/concepts/options/protect/"),
    Rule("stack-option-job", ERROR, "trainspec:protect / trainspec:retainOnDelete name jobs "
         "the stack has", "trainspec"),
)

# python.source: packaging local code (compiler/packaging/).
_PACKAGING = (
    Rule("source-no-repository", ERROR, "python.source needs a spec file inside a repository "
         "(Pulumi.yaml or .git)", "trainspec"),
    Rule("source-outside-repository", ERROR, "python.source is a folder inside the spec's "
         "repository", "trainspec"),
    Rule("source-staging-bucket", ERROR, "python.source needs a staging bucket to upload to",
         f"{_F} §A.4 ✅ (pythonPackageSpec.packageUris: Cloud Storage URIs)"),
    Rule("source-folder", ERROR, "python.source names an existing folder", "trainspec"),
    Rule("source-unreadable", ERROR, "every file of python.source can be read", "trainspec"),
    Rule("source-file-count", ERROR, "python.source holds at most 20000 files to package",
         "trainspec"),
    Rule("source-size", ERROR, "the files to package stay under packaging.maxSizeMiB",
         "trainspec"),
    Rule("source-nested-repository", ERROR, "python.source holds no other git repository "
         "(submodule)", "trainspec"),
    Rule("source-special-file", ERROR, "python.source holds only regular files and links",
         "trainspec"),
    Rule("source-secret-file", ERROR, "no file that looks like a credential is uploaded with "
         "the trainer (unless allowed in packaging.allowSecretFiles)", "trainspec"),
    Rule("source-link", ERROR, "symbolic links in python.source point to files inside it",
         "trainspec"),
    Rule("source-metadata", ERROR, "pyproject.toml / setup.cfg / setup.py give a literal "
         "package name and version", "https://packaging.python.org/en/latest/specifications/"
         "core-metadata/"),
    Rule("source-module-name", ERROR, "python.module is a dotted module name",
         "https://docs.python.org/3/reference/import.html"),
    Rule("source-module-missing", ERROR, "python.module is in the package built from "
         "python.source", "trainspec"),
)

# The search of a tuning job (compiler/tuning_rules.py): rules both APIs share.
_TUNING = (
    Rule("tuning-search-space", ERROR, "each parameter has exactly one search space with its "
         "values", f"{_F} §B.7 ✅; aiplatform v1 StudySpec.ParameterSpec"),
    Rule("tuning-parameter-id", ERROR, "parameter ids are unique (children of one parent may "
         "share one under disjoint conditions)", f"{_F} §B.7 ✅; aiplatform v1 "
         "ParameterSpec.conditionalParameterSpecs"),
    Rule("tuning-range-order", ERROR, "a range's min is at most its max", "aiplatform v1 "
         "DoubleValueSpec, IntegerValueSpec; ml v1 ParameterSpec"),
    Rule("tuning-integer-bounds", ERROR, "an integer parameter has whole bounds",
         f"{_F} §B.7 ✅; aiplatform v1 IntegerValueSpec (int64)"),
    Rule("tuning-single-value", WARNING, "a range of one value searches nothing",
         "trainspec (not documented as refused)"),
    Rule("tuning-log-scale", ERROR, "a log scale needs strictly positive values",
         f"{_F} §B.7 ✅"),
    Rule("tuning-categorical-scale", ERROR, "scale is unset for a categorical parameter",
         f"{_F} §B.7 ✅"),
    Rule("tuning-discrete-order", ERROR, "discrete values are strictly increasing",
         f"{_F} §B.7 ✅"),
    Rule("tuning-discrete-count", ERROR, "at most 1000 discrete values", f"{_F} §B.7 ✅"),
    Rule("tuning-grid", ERROR, "grid search takes integer, discrete and categorical "
         "parameters only", f"{_F} §B.7 ✅"),
    Rule("tuning-parallel-trials", WARNING, "parallel trials do not exceed the trials in all",
         "trainspec (not documented as refused)"),
    Rule("tuning-conditional-parent", ERROR, "only integer, discrete and categorical "
         "parameters have conditional parameters", "aiplatform v1 ParameterSpec."
         "conditionalParameterSpecs"),
    Rule("tuning-condition-value", ERROR, "a condition's values are values of its parent",
         "aiplatform v1 ConditionalParameterSpec parent*Values"),
    Rule("tuning-platform", ERROR, "a tuning setting the target API has no field for "
         "(conditions, stopping rules, several metrics on ai-platform)", f"{_F} §B.7; "
         "aiplatform v1 StudySpec; ml v1 HyperparameterSpec"),
)

# import (compiler/importers/sources.py, study.py): what a job config cannot become.
_IMPORT = (
    Rule("import-already-spec", ERROR, "import reads job configs, not trainspec specs",
         "trainspec"),
    Rule("import-not-job-config", ERROR, "the file is a job config import knows (REST body, "
         "gcloud --config, SDK arguments)", "trainspec"),
    Rule("import-unknown-field", ERROR, "a field (or SDK argument) of the job config that the "
         "spec has no key for", "aiplatform v1 HyperparameterTuningJob, StudySpec; Vertex AI SDK"),
    Rule("import-shape", ERROR, "the job config's fields have the API's shape (mappings, "
         "non-empty lists)", "aiplatform v1 StudySpec"),
    Rule("import-enum-value", ERROR, "the job config's enum values are the API's",
         "aiplatform v1 StudySpec"),
    Rule("import-required-field", ERROR, "the job config gives the fields the API requires "
         "(metricId, parameterId, one value spec)", "aiplatform v1 StudySpec"),
    Rule("import-output-dir", WARNING, "the SDK's per-run output folder (staging_bucket) "
         "becomes one fixed spec.outputDir", "google-cloud-aiplatform utils."
         "_timestamped_gcs_dir"),
    Rule("import-unsupported", ERROR, "a search HyperparameterTuningJob or trainspec does not "
         "take (defaultValue, nested conditions, two stopping specs)",
         "aiplatform v1 StudySpec; trainspec"),
)

# The machine, accelerator and image tables (compiler/catalog/), as structured problems.
_CATALOG = (
    Rule("unknown-machine", ERROR, "a machine type Vertex AI custom training accepts",
         f"{_F} §A.5 ✅ ({_CC})"),
    Rule("legacy-machine", ERROR, "an AI Platform machine name is no Vertex machine type",
         f"{_F} §A.5 ✅, §B.10"),
    Rule("machine-accelerator", ERROR, "the accelerator (or none) the machine type takes",
         f"{_F} §A.6, §A.7 ✅ ({_CC})"),
    Rule("accelerator-count", ERROR, "an acceleratorCount the machine and accelerator allow",
         f"{_F} §A.6, §A.7 ✅; ml v1 AcceleratorConfig.count"),
    Rule("accelerator-pair", ERROR, "acceleratorType and acceleratorCount are given together",
         "aiplatform v1 MachineSpec; ml v1 AcceleratorConfig (server message)"),
    Rule("accelerator-type", ERROR, "an accelerator in the target API's enum",
         "aiplatform v1 MachineSpec.acceleratorType; ml v1 AcceleratorConfig.type "
         f"({_F} §A.6, §B.5 ✅)"),
    Rule("retired-accelerator", ERROR, "an accelerator past its end of support on Vertex AI",
         f"{_F} §A.6 ✅"),
    Rule("tpu-topology", ERROR, "a tpuTopology the TPU VM machine allows, and only on TPU VM "
         "machines", f"{_F} §A.7 ✅"),
    Rule("ml-legacy-accelerator", ERROR, "acceleratorConfig only with Compute Engine machine "
         "types", f"ml v1 ReplicaConfig.acceleratorConfig ({_F} §B.5 ✅)"),
    Rule("ml-machine-accelerator", WARNING, "the accelerators and counts a legacy machine "
         "took", f"{_F} §B.5 ◐ (a 2020 copy of the docs)"),
    Rule("ml-unknown-machine", WARNING, "a machine type AI Platform Training documents",
         f"{_F} §B.5 ◐"),
    Rule("runtime-python-unverified", WARNING, "a runtimeVersion in trainspec's table (the "
         "pairing with pythonVersion cannot be checked otherwise)",
         f"{_F} §B.6 ◐ (the list is incomplete)"),
    Rule("runtime-python", ERROR, "the pythonVersion the runtimeVersion supports",
         f"ml v1 TrainingInput.pythonVersion ({_F} §B.6 ✅)"),
    Rule("executor-image-prebuilt", WARNING, "python.executorImage is a Vertex prebuilt "
         "training image with the :latest tag", f"{_F} §A.11 ✅"),
    Rule("executor-image-unknown", WARNING, "an executor image in trainspec's list of "
         "prebuilt images (it may be newer)", f"{_F} §A.11"),
    Rule("executor-image-retired", WARNING, "an executor image before its end of "
         "availability", f"{_F} §A.11"),
)

# Rules Google documents beyond machine × accelerator × region (compiler/catalog/documented.py):
# only a fact verified (✅) from a current primary source is an error.
_DOCUMENTED = (
    Rule("spot-tpu-pod", ERROR, "no Spot VMs for TPU Pods", f"{_SPOT} (facts §A.7, ✅)"),
    # That a multi-host v5e/v6e/7x slice counts as a "TPU Pod" is not in the facts: warning.
    Rule("spot-multi-host-tpu", WARNING, "no Spot VMs for multi-host TPU slices",
         f"{_SPOT}; multi-host slice = Pod slice is not in the facts reference"),
    Rule("nfs-server-ip", ERROR, "an NFS server is given by IP address",
         "aiplatform v1 NfsMount.server (facts §A.4, ✅)"),
    Rule("nfs-private-ip", WARNING, "an NFS server has a private IP",
         f"{_NFS} (not in the facts reference)"),
    Rule("nfs-network", WARNING, "NFS mounts need the job on a VPC network",
         f"{_NFS} (not in the facts reference)"),
    # facts §A.4 ✅ says the share is mounted under /mnt/nfs/; what an absolute or '..'
    # mountPoint does is not documented: warning.
    Rule("nfs-mount-point", WARNING, "an NFS mountPoint is a folder name under /mnt/nfs/",
         "aiplatform v1 NfsMount.mountPoint (facts §A.4)"),
    Rule("psc-dns-dot", WARNING, "a DNS peering domain ends with a dot",
         "aiplatform v1 DnsPeeringConfig.domain (not in the facts reference)"),
    # facts §A.6 ✅: gpuPartitionSize requires acceleratorCount 1 (normalize, targets/vertex);
    # GPU-only and the sizes per GPU come from the linked NVIDIA/GKE table, not the facts.
    Rule("gpu-partition-gpu", WARNING, "GPU partitions are for NVIDIA GPUs",
         f"{_MIG} (not in the facts reference)"),
    Rule("gpu-partition-size", WARNING, "a partition size the GPU has",
         f"{_MIG} (not in the facts reference)"),
    Rule("reservation-flex-start", WARNING, "no reservation with Dynamic Workload Scheduler",
         f"{_DWS} (not in the facts reference)"),
    Rule("reservation-persistent-resource", WARNING, "no reservation with a persistent "
         "resource", "aiplatform v1 CustomJobSpec.persistentResourceId (not in the facts "
         "reference)"),
    Rule("gb200-reservation", ERROR, "NVIDIA_GB200 (A4X) only through a reservation",
         f"{_CC} (facts §A.6, ✅)"),
    # facts §A.9: hyperdisk-balanced is the default on A3 Ultra/A4 (✅); whether pd-* is refused
    # there, or hyperdisk elsewhere, is ❌: warnings, from Compute Engine's disk support table.
    Rule("disk-family", WARNING, "a boot disk type the machine family takes",
         f"{_DISKS} (facts §A.9, ❌)"),
)

# The repo config (compiler/config/): the config file itself, the codes it names, and the
# policy guardrails a platform team sets in it (compiler/policy.py).
_CONFIG = (
    Rule("repo-config", ERROR, "the repo config (trainspec.yaml, or [tool.trainspec] in "
         "pyproject.toml) is readable, is one file, and follows schemas/v1/config.schema.json",
         "trainspec"),
    Rule("unknown-code", ERROR, "a rule code named in the repo config or in an inline "
         "`# trainspec: ignore[...]` is one trainspec has", "trainspec"),
    Rule("policy-label", ERROR, "the job sets every label of the repo config's "
         "policy.requiredLabels", "trainspec"),
    Rule("policy-region", ERROR, "the job's region is one of policy.allowedRegions", "trainspec"),
    Rule("policy-registry", ERROR, "every container image and executor image comes from "
         "policy.allowedRegistries", "trainspec"),
    Rule("policy-accelerators", ERROR, "the job uses at most policy.maxAcceleratorsPerJob "
         "accelerators (every replica of every pool, every parallel trial)", "trainspec"),
    Rule("policy-timeout", ERROR, "the job sets scheduling.timeout, at most policy.maxTimeout",
         "trainspec"),
    Rule("policy-encryption-key", ERROR, "the job sets spec.encryptionKey (CMEK) when "
         "policy.requireEncryptionKey is true", "trainspec"),
    Rule("policy-spot", ERROR, "a job with worker pools runs on Spot VMs "
         "(scheduling.strategy SPOT) when policy.requireSpotWorkers is true", "trainspec"),
)

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
    Rule("gpu-partition-accelerator", ERROR, "a GPU partition without an accelerator",
         "aiplatform v1 MachineSpec.gpuPartitionSize"),
    Rule("tpu-single-pool", ERROR, "a TPU job runs one pool of one replica", "facts §A.7 ✅"),
    Rule("vertex-ignores-runtime", WARNING, "runtimeVersion/pythonVersion beside executorImage "
         "(not sent on vertex)", "trainspec"),
    Rule("missing-executor-image", ERROR, "a Python task on vertex without executorImage or "
         "runtimeVersion", "aiplatform v1 PythonPackageSpec.executorImageUri (required)"),
    Rule("runtime-executor", ERROR, "no prebuilt Vertex container for the runtimeVersion",
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
    Rule("ml-accelerator", ERROR, "an accelerator ai-platform does not offer", "facts §B.5 ◐"),
    Rule("ml-region-accelerator", WARNING, "an accelerator not offered in the region (old table)",
         "facts §B.8 ◐"),
)
# import (compiler/importers/vertex.py, ml.py, flags.py, compiler/decompile.py).
_TABLE_IMPORT = (
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

RULES: dict[str, Rule] = _table(_SOURCE, _SCHEMA, _TREE, _PULUMI, _PACKAGING, _TUNING,
                                _IMPORT, _CATALOG, _DOCUMENTED, _CONFIG, _TABLE_NORMALIZE,
                                _TABLE_FIELDS, _TABLE_TARGETS, _TABLE_VERTEX, _TABLE_ML,
                                _TABLE_IMPORT)
