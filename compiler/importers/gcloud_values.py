"""One gcloud flag value, read the way gcloud reads it: the ArgList and ArgDict syntax (with
gcloud's `^DELIM^` escape), each flag's type and choices, and the rules for a flag given twice.

Source: gcloud 528, `calliope/arg_parsers.py` (ArgList, ArgDict, UpdateAction),
`command_lib/ai/custom_jobs/flags.py`, `command_lib/ml_engine/flags.py`,
`command_lib/iam/iam_util.py`; the flag tables are gcloud_tables.py.
"""

from __future__ import annotations

import re

from .gcloud_tables import ALGORITHMS, ML_ACCELERATORS, POOL_KEYS, SCALE_TIERS

_SERVICE_ACCOUNT = re.compile(r"^(.+@.+\..+|[0-9]+)\Z")  # iam_util.GetIamAccountFormatValidator
_LABEL_KEY = re.compile(r"^[a-z\u00c0-\uffff][a-z0-9_\-\u00c0-\uffff]{0,62}\Z")
_LABEL_VALUE = re.compile(r"^[a-z0-9_\-\u00c0-\uffff]{0,63}\Z")


class GcloudError(ValueError):
    """gcloud would refuse the command: the message says why (gcloud's own words where it has
    them)."""


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


def set_flag(v: dict[str, object], name: str, value: str) -> None:
    """Parse one flag value the way gcloud does (type, checks, repeated-flag rules) into `v`
    (flag → parsed value)."""
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
