"""A user's gcloud command line → the config file it names and the flags it sets, as gcloud reads them.

`python -m compiler import -- gcloud ai custom-jobs create ...` (or `gcloud ai hp-tuning-jobs
create ...`, `gcloud ai-platform jobs submit training JOB ...`): the words are parsed the way
gcloud 528 parses them (flag tables per command and release track, `--flag=value` /
`--flag value`, list and dict values with gcloud's `^DELIM^` escape, global flags anywhere) and
refused where gcloud refuses them, with gcloud's reason. What the flags then do to the request
is `flags.merge`, shared with `import FILE`. Source of every rule: the gcloud SDK,
`command_lib/ai/custom_jobs/{flags,validation}.py`, `gcloud ai hp-tuning-jobs create --help`,
`command_lib/ml_engine/{flags,jobs_util}.py`, `surface/ai_platform/jobs/submit/training.py`,
`calliope/arg_parsers.py` (ArgList, ArgDict, UpdateAction); the recorded cases in
tests/golden-import/ check it against the real gcloud.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field

from .. import suggest
from ..roles import ROLES

VERTEX_COMMAND = ("ai", "custom-jobs", "create")
TUNING_COMMAND = ("ai", "hp-tuning-jobs", "create")
ML_COMMAND = ("ai-platform", "jobs", "submit", "training")
TRACKS = ("alpha", "beta")
# What gcloud builds from local code and trainspec cannot: trainspec packages a folder as it is
# (python.source), so extra pip requirements belong in the package's own dependencies.
LOCAL_ONLY_KEYS = {
    "requirements": "declare them in the package's dependencies (pyproject.toml [project] "
                    "dependencies): trainspec packages the folder as it is",
    "extra-packages": "upload them and list their gs:// URIs in python.packages",
    "extra-dirs": "move them into the package folder (python.source is one folder)",
}

# gcloud's global flags: none changes the request body except --project (the URL's project).
GLOBAL_VALUE = frozenset({"--project", "--account", "--billing-project", "--configuration",
                          "--flatten", "--format", "--trace-token", "--verbosity",
                          "--access-token-file", "--impersonate-service-account"})
GLOBAL_BOOL = frozenset({"--quiet", "-q", "--log-http", "--no-log-http", "--user-output-enabled",
                         "--no-user-output-enabled"})
GLOBAL_REFUSED = {"--help": "prints help and sends nothing", "-h": "prints help and sends nothing",
                  "--flags-file": "reads more flags from a file; write them on the command line"}

_KMS = ("--kms-key", "--kms-keyring", "--kms-location", "--kms-project")
# Flags taking a value, and boolean flags, per command. Source: AddCreateCustomJobFlags and
# _AddSubmitTrainingArgs / AddCustomContainerFlags (GA); beta and alpha add the last two ml ones.
VERTEX_VALUE = frozenset({"--region", "--service-account", "--network", *_KMS, "--labels",
                          "--display-name", "--python-package-uris", "--args", "--command",
                          "--persistent-resource-id", "--config", "--worker-pool-spec"})
VERTEX_BOOL = frozenset({"--enable-web-access", "--enable-dashboard-access"})
# `ai hp-tuning-jobs create` (its --help in gcloud 528): --config and --display-name required;
# its booleans are the custom-jobs ones.
TUNING_VALUE = frozenset({"--region", "--service-account", "--network", *_KMS, "--labels",
                          "--display-name", "--config", "--max-trial-count",
                          "--parallel-trial-count", "--algorithm"})
ALGORITHMS = ("algorithm-unspecified", "grid-search", "random-search")
ML_VALUE = frozenset({"--package-path", "--packages", "--module-name", "--region", "--config",
                      "--staging-bucket", "--job-dir", "--scale-tier", "--runtime-version",
                      "--python-version", "--service-account", "--labels", *_KMS,
                      "--use-chief-in-tf-config",
                      # --PREFIX-machine-type… per role (compiler/roles.py; no evaluator flags)
                      *(f"--{r.gcloud}-{k}" for r in ROLES if r.gcloud
                        for k in ("machine-type", "accelerator", "image-uri")),
                      *(f"--{r.gcloud}-count" for r in ROLES if r.gcloud and r.ml_count)})
ML_VALUE_PRE_GA = frozenset({"--network", "--tpu-tf-version"})
ML_BOOL = frozenset({"--enable-web-access", "--async", "--stream-logs"})
REPEATABLE = frozenset({"--worker-pool-spec", "--args", "--command", "--labels",
                        "--packages", "--python-package-uris"})

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
_JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}\Z")  # [MMJ] job naming rules
_SERVICE_ACCOUNT = re.compile(r"^(.+@.+\..+|[0-9]+)\Z")  # iam_util.GetIamAccountFormatValidator
_LABEL_KEY = re.compile(r"^[a-z\u00c0-\uffff][a-z0-9_\-\u00c0-\uffff]{0,62}\Z")
_LABEL_VALUE = re.compile(r"^[a-z0-9_\-\u00c0-\uffff]{0,63}\Z")


class GcloudError(ValueError):
    """gcloud would refuse the command: the message says why (gcloud's own words where it has
    them)."""


@dataclass
class Invocation:
    """What a gcloud command line asks for."""

    api: str  # "vertex" or "ai-platform"
    track: str  # "ga", "beta" or "alpha"
    tuning: bool = False  # `ai hp-tuning-jobs create` (api "vertex")
    project: str | None = None
    config: str | None = None  # --config FILE, as written
    values: dict[str, object] = field(default_factory=dict)  # flag → parsed value
    job: str | None = None  # ai-platform's JOB argument
    user_args: list[str] | None = None  # ai-platform: the words after `--`

    @property
    def text(self) -> str:
        name = "gcloud " + ("" if self.track == "ga" else self.track + " ")
        command = TUNING_COMMAND if self.tuning else VERTEX_COMMAND if self.api == "vertex" \
            else ML_COMMAND
        return name + " ".join(command)


def arg_list(text: str) -> list[str]:
    """gcloud's ArgList: split on ',' (or on DELIM after a `^DELIM^` prefix); one trailing
    delimiter is dropped, empty items elsewhere are kept."""
    delim = ","
    if text.startswith("^") and "^" in text[1:]:
        delim, text = text[1:].split("^", 1)
        if not delim:
            raise GcloudError("invalid delimiter (see `gcloud topic escaping`)")
    if not text:
        return []
    if not text.endswith(delim):
        text += delim
    return text.split(delim)[:-1]


def arg_dict(text: str, flag: str) -> dict[str, str]:
    """gcloud's ArgDict: KEY=VALUE items of an ArgList; a repeated key keeps the last value."""
    out: dict[str, str] = {}
    for item in arg_list(text):
        key, sep, value = item.partition("=")
        if not key or not sep:
            raise GcloudError(f"{flag}: bad syntax for dict arg: [{item}] (write KEY=VALUE; "
                              "see `gcloud topic escaping` for values with commas)")
        out[key] = value
    return out


def parse(words: list[str]) -> Invocation:
    """Parse a gcloud command line (starting with the word `gcloud`); GcloudError if gcloud
    would refuse it before sending anything."""
    if words[:1] != ["gcloud"]:
        raise GcloudError("expected a gcloud command line after `--` (it starts with `gcloud`)")
    rest = list(words[1:])
    project, positional, options = _split(rest)
    track = "ga"
    if positional[:1] and positional[0] in TRACKS:
        track = positional.pop(0)
    if tuple(positional[:3]) == VERTEX_COMMAND:
        inv, extra = Invocation("vertex", track), positional[3:]
    elif tuple(positional[:3]) == TUNING_COMMAND:
        inv, extra = Invocation("vertex", track, tuning=True), positional[3:]
    elif tuple(positional[:4]) == ML_COMMAND:
        inv, extra = Invocation("ai-platform", track), positional[4:]
    else:
        shown = " ".join(positional[:4]) or "(no command)"
        raise GcloudError(f"`gcloud {shown}` is not a training job command trainspec imports",
                          ) from None
    inv.project = project
    value_flags, bool_flags = (TUNING_VALUE, VERTEX_BOOL) if inv.tuning else (
        VERTEX_VALUE, VERTEX_BOOL) if inv.api == "vertex" else (
        ML_VALUE | (ML_VALUE_PRE_GA if track != "ga" else frozenset()), ML_BOOL)
    _options(inv, options, value_flags, bool_flags)
    if inv.api == "ai-platform":
        if len(extra) > 1:
            raise GcloudError(f"unrecognized arguments: {' '.join(extra[1:])}")
        if not extra:
            raise GcloudError("argument JOB: must be specified")
        inv.job = extra[0]
        inv.config = inv.values.get("--config")  # type: ignore[assignment]
    elif extra:
        raise GcloudError(f"unrecognized arguments: {' '.join(extra)}")
    (_check_tuning if inv.tuning else _check_vertex if inv.api == "vertex" else _check_ml)(inv)
    return inv


def _split(words: list[str]) -> tuple[str | None, list[str], list[tuple[str, str | None]]]:
    """(--project, positional words, [(flag, value or None)]) with global flags removed."""
    project: str | None = None
    positional: list[str] = []
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            options.append(("--", None))
            options.extend(("", w) for w in words[i:])
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, eq, value = word.partition("=")
        if name in GLOBAL_REFUSED:
            raise GcloudError(f"{name} {GLOBAL_REFUSED[name]}")
        if name in GLOBAL_BOOL:
            continue
        if name in GLOBAL_VALUE:
            if not eq:
                if i >= len(words) or words[i].startswith("-"):
                    raise GcloudError(f"argument {name}: expected one argument")
                value, i = words[i], i + 1
            if name == "--project":
                project = value
            continue
        if not eq and i < len(words) and not words[i].startswith("-") and \
                not _is_bool_name(name):
            value, eq, i = words[i], "=", i + 1
        options.append((name, value if eq else None))
    return project, positional, options


def _is_bool_name(name: str) -> bool:
    bare = name[5:] if name.startswith("--no-") else name[2:]
    return f"--{bare}" in VERTEX_BOOL | ML_BOOL


def _options(inv: Invocation, options: list[tuple[str, str | None]],
             value_flags: frozenset[str], bool_flags: frozenset[str]) -> None:
    unknown: list[str] = []
    for i, (name, value) in enumerate(options):
        if name == "--":
            if inv.api != "ai-platform":
                raise GcloudError("unrecognized arguments: -- "
                                  + " ".join(v or "" for _, v in options[i + 1:]))
            inv.user_args = [v or "" for _, v in options[i + 1:]]
            return
        if name in bool_flags or (name.startswith("--no-") and "--" + name[5:] in bool_flags):
            if value is not None:
                raise GcloudError(f"argument {name}: ignored explicit argument {value!r}")
            inv.values[name.replace("--no-", "--")] = not name.startswith("--no-")
            continue
        if name not in value_flags:
            close = suggest.close(name, sorted(value_flags | bool_flags))
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            pre_ga = inv.api == "ai-platform" and name in ML_VALUE_PRE_GA
            unknown.append(name + (" (only in gcloud beta and alpha)" if pre_ga else hint))
            continue
        if value is None:
            raise GcloudError(f"argument {name}: expected one argument")
        set_flag(inv, name, value)
    if unknown:
        raise GcloudError("unrecognized arguments: " + ", ".join(unknown))


def set_flag(inv: Invocation, name: str, value: str) -> None:
    """Parse one flag value the way gcloud does (type, checks, repeated-flag rules) into
    `inv.values`."""
    v = inv.values
    if name == "--worker-pool-spec":
        v.setdefault(name, []).append(_pool(value))  # type: ignore[union-attr]
    elif name in ("--args", "--command", "--packages", "--python-package-uris"):
        items = arg_list(value)
        merged: list[str] = list(v.get(name) or ()) if name in ("--args", "--command") else []
        for item in items:
            if name in ("--args", "--command") and item in merged:
                # UpdateAction refuses a value given twice, even inside one flag.
                raise GcloudError(f"argument {name}: \"{item}\" cannot be specified multiple "
                                  "times")
            merged.append(item)
        v[name] = merged
    elif name == "--labels":
        labels = dict(v.get(name) or {})  # type: ignore[call-overload]
        for key, val in arg_dict(value, name).items():
            if not _LABEL_KEY.match(key):
                raise GcloudError(f"argument --labels: bad value [{key}]: keys start with a "
                                  "lower-case letter and hold only lower-case letters, digits, "
                                  "'-' and '_', at most 63 characters")
            if not _LABEL_VALUE.match(val):
                raise GcloudError(f"argument --labels: bad value [{val}]: values hold only "
                                  "lower-case letters, digits, '-' and '_'")
            if key in labels:
                raise GcloudError(f"argument --labels: \"{key}\" cannot be specified multiple "
                                  "times")
            labels[key] = val
        v[name] = labels
    elif name.endswith("-accelerator"):
        v[name] = _ml_accelerator(name, value)
    elif name in ("--worker-count", "--parameter-server-count"):
        if not value.isdigit() or int(value) < 1:
            raise GcloudError(f"argument {name}: value must be an integer of at least 1, "
                              f"not {value!r}")
        v[name] = int(value)
    elif name == "--use-chief-in-tf-config":
        if value.lower() not in ("true", "false"):
            raise GcloudError(f"argument {name}: invalid Boolean value {value!r} (true or false)")
        v[name] = value.lower() == "true"
    elif name == "--scale-tier":
        if value.lower() not in SCALE_TIERS and value not in [t.upper().replace("-", "_")
                                                              for t in SCALE_TIERS]:
            raise GcloudError(f"argument --scale-tier: invalid choice: {value!r} (choose from "
                              + ", ".join(SCALE_TIERS) + ")")
        v[name] = value.upper().replace("-", "_")
    elif name in ("--max-trial-count", "--parallel-trial-count"):
        try:
            v[name] = int(value)
        except ValueError:
            raise GcloudError(f"argument {name}: invalid int value: {value!r}") from None
    elif name == "--algorithm":
        if value not in ALGORITHMS:
            raise GcloudError(f"argument --algorithm: Invalid choice: {value!r} (choose from "
                              + ", ".join(ALGORITHMS) + ")")
        v[name] = value
    elif name == "--service-account":
        if not _SERVICE_ACCOUNT.match(value):
            raise GcloudError(f"argument --service-account: bad value [{value}]: not a service "
                              "account email or numeric unique id")
        v[name] = value
    else:
        v[name] = value


def _pool(text: str) -> dict:
    spec = arg_dict(text, "--worker-pool-spec")
    for key, value in spec.items():
        if key not in POOL_KEYS:
            raise GcloudError(f"argument --worker-pool-spec: valid keys are "
                              f"[{', '.join(sorted(POOL_KEYS))}]; received: {key}")
        if key in ("replica-count", "accelerator-count"):
            try:
                int(value)
            except ValueError:
                raise GcloudError(f"argument --worker-pool-spec: {key}={value} is not an "
                                  "integer") from None
    return spec


def _ml_accelerator(flag: str, text: str) -> dict:
    spec = arg_dict(text, flag)
    for key in spec:
        if key not in ("type", "count"):
            raise GcloudError(f"argument {flag}: valid keys are [count, type]; received: {key}")
    kind = spec.get("type", "")
    if "type" in spec and kind.lower() not in ML_ACCELERATORS and kind.upper().replace(
            "-", "_") not in [a.upper().replace("-", "_") for a in ML_ACCELERATORS]:
        raise GcloudError(f"argument {flag}: invalid accelerator: {kind}. Valid choices are: "
                          f"[{', '.join(ML_ACCELERATORS)}]")
    if "count" in spec:
        try:
            count = int(spec["count"])
        except ValueError:
            raise GcloudError(f"argument {flag}: count={spec['count']} is not an integer") \
                from None
        if count <= 0:
            raise GcloudError(f"argument {flag}: the count of the accelerator must be greater "
                              "than 0")
    for key in ("type", "count"):
        if key not in spec:
            raise GcloudError(f"argument {flag}: key [{key}] required in dict arg but not "
                              "provided")
    return {"type": kind.upper().replace("-", "_"), "count": int(spec["count"])}


def _kms(inv: Invocation) -> None:
    """--kms-key with --kms-keyring/--kms-location/--kms-project: the key's full name."""
    v = inv.values
    key = v.get("--kms-key")
    parts = [v.get(f) for f in _KMS[1:]]
    if key is None:
        if any(parts):
            raise GcloudError("--kms-key: encryption key not fully specified")
        return
    if str(key).startswith("projects/"):
        return
    ring, location, project = parts
    if not (ring and location and project):
        # gcloud falls back to no property for these: the key must be fully specified.
        raise GcloudError("--kms-key: encryption key not fully specified (give the full "
                          "projects/.../cryptoKeys/KEY name, or --kms-keyring, --kms-location "
                          "and --kms-project)")
    v["--kms-key"] = f"projects/{project}/locations/{location}/keyRings/{ring}/cryptoKeys/{key}"


def _region(inv: Invocation) -> None:
    if "--region" not in inv.values:
        raise GcloudError("no --region: gcloud would take it from your configuration (the "
                          "ai/region or compute/region property, or a prompt); pass --region so "
                          "the spec says where the job runs")


def _check_vertex(inv: Invocation) -> None:
    v = inv.values
    _vertex_common(inv, "custom-job", ("--display-name",))
    pools = v.get("--worker-pool-spec")
    if not pools and "--config" not in v:
        raise GcloudError("one of --config and --worker-pool-spec must be specified")
    _kms(inv)
    if pools:
        check_pools(pools)  # type: ignore[arg-type]


def _check_tuning(inv: Invocation) -> None:
    """hp-tuning-jobs create: the region as for custom jobs, --config and --display-name."""
    _vertex_common(inv, "tuning-job", ("--config", "--display-name"))
    _kms(inv)


def _vertex_common(inv: Invocation, what: str, required: tuple[str, ...]) -> None:
    """Both Vertex commands: a region of gcloud's training list, the required flags, and a
    display name that is not empty."""
    v = inv.values
    _region(inv)
    if v["--region"] not in VERTEX_REGIONS:
        raise GcloudError(f"invalid value for [region]: {v['--region']!r} is not one of gcloud's "
                          f"{what} training regions")
    for flag in required:
        if flag not in v:
            raise GcloudError(f"argument {flag}: must be specified")
    if not v["--display-name"]:
        raise GcloudError("argument --display-name: must not be empty")


def check_pools(pools: list[dict]) -> None:
    """custom_jobs/validation.py _ValidateWorkerPoolSpecArgs, in gcloud's order."""
    if not pools[0]:
        raise GcloudError("--worker-pool-spec: an empty value is not allowed for the first "
                          "--worker-pool-spec flag")
    for spec in pools:
        if not spec:
            continue
        if "machine-type" not in spec:
            raise GcloudError("--worker-pool-spec: key [machine-type] required in dict arg but "
                              "not provided")
        if "accelerator-count" in spec and "accelerator-type" not in spec:
            raise GcloudError("--worker-pool-spec: key [accelerator-type] required as "
                              "[accelerator-count] is specified")
        kind = spec.get("accelerator-type")
        if kind and kind not in VERTEX_ACCELERATORS:
            raise GcloudError(f"--worker-pool-spec: invalid value of [accelerator-type]: {kind}. "
                              f"Available values are [{', '.join(VERTEX_ACCELERATORS)}]")
    local = "local-package-path" in pools[0]
    if local:
        _check_local_pool(pools[0])
    for i, spec in enumerate(pools):
        if not spec or (local and i == 0):
            continue
        if local:
            software = sorted({"executor-image-uri", "container-image-uri", "python-module",
                               "script", *LOCAL_ONLY_KEYS} & set(spec))
            if software:
                raise GcloudError(f"--worker-pool-spec: keys [{', '.join(software)}] are not "
                                  "allowed: a local package has been specified in the first "
                                  "--worker-pool-spec and is used for all workers")
            continue
        if "local-package-path" in spec:
            raise GcloudError("--worker-pool-spec: key [local-package-path] is only allowed in "
                              "the first --worker-pool-spec")
        images = ("executor-image-uri" in spec) + ("container-image-uri" in spec)
        if images != 1:
            raise GcloudError("--worker-pool-spec: exactly one of keys [executor-image-uri, "
                              "container-image-uri] is required")
        if "container-image-uri" in spec and "python-module" in spec:
            raise GcloudError("--worker-pool-spec: key [python-module] is not allowed together "
                              "with key [container-image-uri]")
        if "executor-image-uri" in spec and "python-module" not in spec:
            raise GcloudError("--worker-pool-spec: key [python-module] is required")
        only_local = sorted((LOCAL_POOL_KEYS - {"output-image-uri", "local-package-path"})
                            & set(spec))
        if only_local:
            raise GcloudError(f"--worker-pool-spec: keys [{', '.join(only_local)}] are not "
                              "allowed: gcloud takes them only with local-package-path in the "
                              "first --worker-pool-spec (local code, which import does not "
                              "build)")


def _check_local_pool(spec: dict) -> None:
    """_ValidateWorkerPoolSoftwareWithLocalPackage, and what trainspec cannot build."""
    if not os.path.isdir(spec["local-package-path"]):
        raise GcloudError(f"--worker-pool-spec: directory {spec['local-package-path']!r} is not "
                          "found")
    if "executor-image-uri" not in spec:
        raise GcloudError("--worker-pool-spec: key [executor-image-uri] is required when "
                          "local-package-path is specified")
    if ("python-module" in spec) + ("script" in spec) != 1:
        raise GcloudError("--worker-pool-spec: exactly one of keys [python-module, script] is "
                          "required when local-package-path is specified")
    for key, how in LOCAL_ONLY_KEYS.items():
        if key in spec:
            raise GcloudError(f"--worker-pool-spec: key [{key}]: gcloud installs it into the "
                              f"image it builds, which python.source does not; {how}")
    script = spec.get("script")
    if script is not None and not re.fullmatch(r"[A-Za-z_]\w*(/[A-Za-z_]\w*)*\.py", script):
        raise GcloudError(f"--worker-pool-spec: script {script!r} cannot run as a module of the "
                          "package (python.source runs `python -m MODULE`): pass "
                          "python-module=PACKAGE.MODULE")


def check_package_path(path: str, staging: object) -> None:
    """What gcloud checks of --package-path (jobs_util / uploads): a staging place, and a
    package folder (with __init__.py), read relative to the current folder."""
    if not staging:
        raise GcloudError("if local packages are provided, the --staging-bucket or --job-dir "
                          "flag must be given")
    if not os.path.isfile(os.path.join(path, "__init__.py")):
        raise GcloudError(f"--package-path {path} is not a valid Python package: it has no "
                          "__init__.py (or is not a folder)")


def script_module(script: str) -> str:
    """script=trainer/task.py (relative to local-package-path) → the module trainer.task."""
    return script[:-3].replace("/", ".")


def package_source(package_path: str) -> str:
    """--package-path trainer/ (the package itself) → its parent folder, where gcloud looks
    for setup.py (and where python.source points)."""
    parent = os.path.dirname(os.path.normpath(package_path))
    return parent or "."


def _check_ml(inv: Invocation) -> None:
    v = inv.values
    _region(inv)
    _kms(inv)
    for role in ("worker", "parameter-server"):
        machine, count = f"--{role}-machine-type", f"--{role}-count"
        if (machine in v) != (count in v):
            missing = count if machine in v else machine
            raise GcloudError(f"argument {missing}: must be specified (with {machine} and "
                              f"{count} together)")
    local = [p for p in v.get("--packages") or () if not str(p).startswith("gs://")]  # type: ignore[union-attr]
    staging = v.get("--staging-bucket") or v.get("--job-dir")
    if local and not staging:
        raise GcloudError("if local packages are provided, the --staging-bucket or --job-dir "
                          "flag must be given")
    if "--package-path" in v:
        check_package_path(str(v["--package-path"]), staging)
    if local:
        raise GcloudError(f"--packages {local[0]} is a local archive, which gcloud uploads at "
                          "submit time; trainspec packages source folders (python.source), not "
                          "archives: upload it and pass its gs:// URI, or use --package-path")
    if "--master-image-uri" in v and "--runtime-version" in v:
        raise GcloudError("only one of --master-image-uri, --runtime-version can be set")
    if v.get("--scale-tier") == "CUSTOM" and "--master-machine-type" not in v:
        raise GcloudError("--master-machine-type is required if --scale-tier is custom")
    if not _JOB_ID.match(inv.job or ""):
        raise GcloudError(f"JOB {inv.job!r} is not a valid job id: the API takes letters, "
                          "digits and '_', starting with a letter, at most 128 characters")


def namespace(inv: Invocation, base: argparse.Namespace) -> argparse.Namespace:
    """`import`'s flags namespace (see flags.add_arguments) filled from the invocation."""
    ns = argparse.Namespace(**vars(base))
    for flag, value in inv.values.items():
        setattr(ns, flag[2:].replace("-", "_"), value)
    if inv.user_args is not None:
        ns.args = inv.user_args
    if inv.job is not None and not ns.name:
        ns.name = inv.job
    ns.job_id = inv.job
    ns.project = ns.project or inv.project
    ns.gcloud = inv
    return ns
