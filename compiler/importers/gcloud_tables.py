"""gcloud's flag tables: which flags each training command takes, and their value choices.

Source: gcloud 528, `command_lib/ai/custom_jobs/flags.py` (AddCreateCustomJobFlags),
`gcloud ai hp-tuning-jobs create --help`, `command_lib/ml_engine/flags.py`
(_AddSubmitTrainingArgs, AddCustomContainerFlags), `command_lib/ai/constants.py`. Read by
gcloud.py (the grammar), gcloud_values.py (one value) and gcloud_checks.py (a whole command).
"""

from __future__ import annotations

from ..roles import ROLES

# What gcloud builds from local code and trainspec cannot: trainspec packages a folder as it is
# (python.source), so extra pip requirements belong in the package's own dependencies.
LOCAL_ONLY_KEYS = {
    "requirements": "declare them in the package's dependencies (pyproject.toml [project] "
                    "dependencies): trainspec packages the folder as it is",
    "extra-packages": "upload them and list their gs:// URIs in python.packages",
    "extra-dirs": "move them into the package folder (python.source is one folder)",
}

KMS = ("--kms-key", "--kms-keyring", "--kms-location", "--kms-project")
# Flags taking a value, and boolean flags, per command. Source: AddCreateCustomJobFlags and
# _AddSubmitTrainingArgs / AddCustomContainerFlags (GA); beta and alpha add the last two ml ones.
VERTEX_VALUE = frozenset({"--region", "--service-account", "--network", *KMS, "--labels",
                          "--display-name", "--python-package-uris", "--args", "--command",
                          "--persistent-resource-id", "--config", "--worker-pool-spec"})
VERTEX_BOOL = frozenset({"--enable-web-access", "--enable-dashboard-access"})
# `ai hp-tuning-jobs create` (its --help in gcloud 528): --config and --display-name required;
# its booleans are the custom-jobs ones.
TUNING_VALUE = frozenset({"--region", "--service-account", "--network", *KMS, "--labels",
                          "--display-name", "--config", "--max-trial-count",
                          "--parallel-trial-count", "--algorithm"})
ALGORITHMS = ("algorithm-unspecified", "grid-search", "random-search")
ML_VALUE = frozenset({"--package-path", "--packages", "--module-name", "--region", "--config",
                      "--staging-bucket", "--job-dir", "--scale-tier", "--runtime-version",
                      "--python-version", "--service-account", "--labels", *KMS,
                      "--use-chief-in-tf-config",
                      # --PREFIX-machine-type… per role (compiler/roles.py; no evaluator flags)
                      *(f"--{r.gcloud}-{k}" for r in ROLES if r.gcloud
                        for k in ("machine-type", "accelerator", "image-uri")),
                      *(f"--{r.gcloud}-count" for r in ROLES if r.gcloud and r.ml_count)})
ML_VALUE_PRE_GA = frozenset({"--network", "--tpu-tf-version"})
ML_BOOL = frozenset({"--enable-web-access", "--async", "--stream-logs"})
# --worker-pool-spec keys gcloud accepts (ArgDict spec), and those that build local code
# (output-image-uri without local-package-path is accepted and ignored by gcloud, so by import).
POOL_KEYS = ("replica-count", "machine-type", "accelerator-type", "accelerator-count",
             "container-image-uri", "executor-image-uri", "output-image-uri", "python-module",
             "script", "local-package-path", "requirements", "extra-dirs", "extra-packages")
LOCAL_POOL_KEYS = frozenset({"output-image-uri", "script", "local-package-path", "requirements",
                             "extra-dirs", "extra-packages"})
# Vertex MachineSpec.acceleratorType values gcloud accepts (NVIDIA*/TPU* of the v1 enum).
VERTEX_ACCELERATORS = ("NVIDIA_A100_80GB", "NVIDIA_B200", "NVIDIA_H100_80GB",
                       "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_L4",
                       "NVIDIA_TESLA_A100", "NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100",
                       "NVIDIA_TESLA_P4", "NVIDIA_TESLA_T4", "NVIDIA_TESLA_V100", "TPU_V2",
                       "TPU_V3", "TPU_V4_POD", "TPU_V5_LITEPOD")
# --{master,worker,parameter-server}-accelerator type choices (ml v1 enum, lower-case).
ML_ACCELERATORS = ("nvidia-tesla-a100", "nvidia-tesla-k80", "nvidia-tesla-p100",
                   "nvidia-tesla-p4", "nvidia-tesla-t4", "nvidia-tesla-v100", "tpu-v2",
                   "tpu-v2-pod", "tpu-v3", "tpu-v3-pod", "tpu-v4-pod")
SCALE_TIERS = ("basic", "basic-gpu", "basic-tpu", "custom", "premium-1", "standard-1")
# gcloud's SUPPORTED_TRAINING_REGIONS for custom jobs (command_lib/ai/constants.py).
VERTEX_REGIONS = frozenset({
    "africa-south1", "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2",
    "asia-northeast3", "asia-south1", "asia-southeast1", "asia-southeast2",
    "australia-southeast1", "australia-southeast2", "europe-central2", "europe-north1",
    "europe-southwest1", "europe-west1", "europe-west2", "europe-west3", "europe-west4",
    "europe-west6", "europe-west8", "europe-west9", "europe-west12", "me-central1",
    "me-central2", "me-west1", "northamerica-northeast1", "northamerica-northeast2",
    "southamerica-east1", "southamerica-west1", "us-central1", "us-east1", "us-east4",
    "us-east5", "us-south1", "us-west1", "us-west2", "us-west3", "us-west4"})
