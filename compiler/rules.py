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

RULES: dict[str, Rule] = _table(_SOURCE, _SCHEMA, _TREE, _PULUMI, _PACKAGING, _TUNING,
                                _IMPORT, _CATALOG, _DOCUMENTED, _CONFIG)
