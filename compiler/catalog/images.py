"""Prebuilt Vertex training images and legacy AI Platform runtime versions.

Dates are data; the caller passes ``today`` so every function stays pure.
"""

from __future__ import annotations

import datetime
import re

# Prebuilt training images: image name -> (framework, framework version, end of availability).
# Source: docs "Prebuilt containers for serverless training" ([PBC], facts §A.11),
# https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/training/pre-built-containers
# (markdown mirror read 2026). Only the images in that table are listed; newer ones the
# snapshot does not know are reported as "unknown", not rejected.
_D = datetime.date
_ROWS: tuple[tuple[str, str, _D | None, tuple[str, ...]], ...] = (
    ("tensorflow", "2.17", _D(2026, 7, 11), ("tf-cpu.2-17.py310", "tf-gpu.2-17.py310")),
    ("tensorflow", "2.16", _D(2026, 6, 28), ("tf-cpu.2-16.py310", "tf-gpu.2-16.py310")),
    ("tensorflow", "2.15", _D(2025, 11, 14), ("tf-cpu.2-15.py310", "tf-gpu.2-15.py310")),
    ("tensorflow", "2.15", _D(2025, 10, 23), ("tf-tpu.2-15.cp310",)),
    ("tensorflow", "2.14", _D(2025, 9, 26), ("tf-cpu.2-14.py310", "tf-gpu.2-14.py310")),
    ("tensorflow", "2.13", _D(2025, 7, 5), ("tf-cpu.2-13.py310", "tf-gpu.2-13.py310")),
    ("tensorflow", "2.12", _D(2025, 6, 30),
     ("tf-cpu.2-12.py310", "tf-gpu.2-12.py310", "tf-tpu.2-12")),
    ("tensorflow", "2.11", _D(2024, 11, 15),
     ("tf-cpu.2-11.py310", "tf-gpu.2-11.py310", "tf-cpu.2-11", "tf-gpu.2-11")),
    ("tensorflow", "2.9", _D(2024, 11, 15),
     ("tf-cpu.2-9.py310", "tf-gpu.2-9.py310", "tf-cpu.2-9", "tf-gpu.2-9")),
    ("tensorflow", "2.8", _D(2024, 11, 15),
     ("tf-cpu.2-8.py310", "tf-gpu.2-8.py310", "tf-cpu.2-8", "tf-gpu.2-8")),
    *(("tensorflow", v, _D(2024, 9, 1), (f"tf-cpu.{v.replace('.', '-')}",
                                         f"tf-gpu.{v.replace('.', '-')}"))
      for v in ("2.7", "2.6", "2.5", "2.4", "2.3", "2.2", "2.1", "1.15")),
    ("pytorch", "2.4", _D(2026, 7, 24), ("pytorch-xla.2-4.py310", "pytorch-gpu.2-4.py310")),
    ("pytorch", "2.3", _D(2026, 4, 24), ("pytorch-xla.2-3.py310", "pytorch-gpu.2-3.py310")),
    # [PBC] really gives the 2.2 CPU image a later date than the 2.2 GPU image.
    ("pytorch", "2.2", _D(2026, 10, 23), ("pytorch-xla.2-2.py310",)),
    ("pytorch", "2.2", _D(2026, 1, 30), ("pytorch-gpu.2-2.py310",)),
    ("pytorch", "2.2", _D(2025, 11, 6), ("pytorch-tpu.2-2.cp310",)),
    ("pytorch", "2.1", _D(2025, 10, 4), ("pytorch-xla.2-1.py310", "pytorch-gpu.2-1.py310")),
    ("pytorch", "2.1", _D(2025, 10, 23), ("pytorch-tpu.2-1.cp310",)),
    ("pytorch", "2.0", _D(2025, 3, 15), ("pytorch-xla.2-0.py310", "pytorch-gpu.2-0.py310")),
    ("pytorch", "2.0", _D(2025, 5, 15), ("pytorch-tpu.2-0",)),
    ("pytorch", "1.13", _D(2025, 5, 15), ("pytorch-gpu.1-13.py310",)),
    ("pytorch", "1.13", _D(2024, 12, 8), ("pytorch-gpu.1-13",)),
    ("pytorch", "1.12", _D(2025, 5, 15), ("pytorch-gpu.1-12.py310",)),
    ("pytorch", "1.12", _D(2024, 9, 1), ("pytorch-gpu.1-12",)),
    *(("pytorch", v, _D(2024, 9, 1), (f"pytorch-xla.{v.replace('.', '-')}",
                                      f"pytorch-gpu.{v.replace('.', '-')}"))
      for v in ("1.11", "1.10", "1.9", "1.7", "1.6")),
    ("pytorch", "1.4", _D(2024, 9, 1), ("pytorch-cpu.1-4", "pytorch-gpu.1-4")),
    ("scikit-learn", "1.6", _D(2026, 7, 11), ("sklearn-cpu.1-6", "sklearn-gpu.1-6")),
    ("scikit-learn", "1.0", _D(2025, 6, 30), ("sklearn-cpu.1-0", "sklearn-gpu.1-0")),
    ("scikit-learn", "0.23", _D(2024, 9, 1), ("scikit-learn-cpu.0-23",)),
    ("xgboost", "2.1", _D(2026, 7, 11), ("xgboost-cpu.2-1", "xgboost-gpu.2-1")),
    ("xgboost", "1.6", _D(2025, 6, 30), ("xgboost-cpu.1-6", "xgboost-gpu.1-6")),
    ("xgboost", "1.1", _D(2024, 11, 15), ("xgboost-cpu.1-1",)),
    ("ray", "2.47", _D(2027, 7, 28), ("ray-cpu.2-47.py311", "ray-gpu.2-47.py311")),
    ("ray", "2.42", _D(2027, 3, 1), ("ray-cpu.2-42.py311", "ray-gpu.2-42.py311",
                                     "ray-cpu.2-42.py310", "ray-gpu.2-42.py310")),
    ("ray", "2.33", _D(2026, 9, 16), ("ray-cpu.2-33.py310", "ray-gpu.2-33.py310")),
    ("ray", "2.9", _D(2026, 5, 7), ("ray-cpu.2-9.py310", "ray-gpu.2-9.py310")),
)

PREBUILT_TRAINING_IMAGES: dict[str, tuple[str, str, datetime.date | None]] = {
    image: (framework, version, eoa)
    for framework, version, eoa, images in _ROWS for image in images
}

PREBUILT_HOSTS: tuple[str, ...] = ("us-docker.pkg.dev", "europe-docker.pkg.dev",
                                   "asia-docker.pkg.dev")
_PREBUILT_URI = re.compile(
    r"^(?P<host>(?:us|europe|asia)-docker\.pkg\.dev)/vertex-ai/training/"
    r"(?P<image>[a-z0-9][a-z0-9._-]*)(?P<ref>[:@].*)?$"
)


def prebuilt_uri(image: str, host: str = "us-docker.pkg.dev") -> str:
    """Full ``:latest`` URI of a prebuilt training image name."""
    return f"{host}/vertex-ai/training/{image}:latest"


def executor_image_status(uri: str, *, today: datetime.date) -> tuple[str, str | None]:
    """Classify a ``pythonPackageSpec.executorImageUri``.

    Returns ("ok", None), ("retired", message) past the image's end of availability,
    ("unknown", message) for an image name not in the table, or ("not-prebuilt", message)
    for anything outside the prebuilt repositories or not tagged ``:latest``.
    """
    match = _PREBUILT_URI.match(uri)
    if match is None:
        return ("not-prebuilt", f"{uri} is not a Vertex AI prebuilt training image; "
                "executorImageUri must be one of {us,europe,asia}-docker.pkg.dev/"
                "vertex-ai/training/<image>:latest (use containerSpec for other images)")
    image, ref = match["image"], match["ref"]
    if ref != ":latest":
        got = f"got {ref}" if ref else "got no tag"
        return ("not-prebuilt", "prebuilt training images are only supported with the "
                f":latest tag ({got}); use {prebuilt_uri(image, match['host'])}")
    entry = PREBUILT_TRAINING_IMAGES.get(image)
    if entry is None:
        return ("unknown", f"{image} is not in trainspec's list of prebuilt training images "
                "(it may be newer than the list); check the Vertex AI prebuilt containers page")
    framework, version, eoa = entry
    if eoa is not None and today >= eoa:
        return ("retired", f"{image} ({framework} {version}) reached end of availability on "
                f"{eoa.isoformat()}; choose a newer prebuilt image or a custom container")
    return ("ok", None)


# Legacy runtime version -> Python versions it accepted.
# Source: ml v1 pythonVersion docs and the TF 2 runtime page ([DD-ML], [VERS]; facts §B.6):
# 2.7 for <=1.15, 3.5 for 1.4-1.14, 3.7 for >=1.15, and only 3.7 from 2.1 on.
def _pythons(minor_1: int) -> frozenset[str]:
    versions = {"2.7"}
    if 4 <= minor_1 <= 14:
        versions.add("3.5")
    if minor_1 == 15:
        versions.add("3.7")
    return frozenset(versions)


ML_RUNTIME_VERSIONS: dict[str, frozenset[str]] = {
    **{f"1.{m}": _pythons(m) for m in range(0, 16)},
    **{f"2.{m}": frozenset({"3.7"}) for m in range(1, 12)},
}


def check_runtime_python(runtime: str, python: str) -> tuple[bool, list[str]]:
    """(whether ``runtimeVersion`` is in the table, problems with the pair; empty = ok).

    The runtime list is incomplete (facts §B.6, ◐): an unknown runtime is a warning for the
    caller. The Python/runtime pairing of a known runtime is ✅ ([DD-ML] pythonVersion).
    """
    allowed = ML_RUNTIME_VERSIONS.get(runtime)
    if allowed is None:
        return False, [f"runtimeVersion {runtime!r} is not a known AI Platform Training runtime "
                       "version (1.0-1.15 or 2.1-2.11)"]
    if python not in allowed:
        shown = ", ".join(sorted(allowed))
        return True, [f"runtimeVersion {runtime} supports pythonVersion {shown}, not {python!r}"]
    return True, []


# Legacy runtime -> prebuilt TF image base name. Legacy 2.x jobs ran Python 3.7, so the
# Python 3.7 variant (no .py310 suffix) is the faithful match. [PBC] lists no TF 2.10
# training image and nothing older than 1.15.
_RUNTIME_IMAGES: dict[str, str] = {
    "1.15": "1-15", **{f"2.{m}": f"2-{m}" for m in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11)},
}


def executor_for_runtime(runtime: str, gpu: bool) -> tuple[str, str]:
    """Vertex prebuilt executor URI for a legacy ``runtimeVersion``, with a note.

    Returns ("", reason) when no prebuilt image matches. The note records the image's end of
    availability so the caller can warn; it never raises.
    """
    suffix = _RUNTIME_IMAGES.get(runtime)
    if suffix is None:
        if runtime not in ML_RUNTIME_VERSIONS:
            return ("", f"runtimeVersion {runtime!r} is not an AI Platform Training runtime")
        return ("", f"Vertex AI has no prebuilt training image for TensorFlow {runtime}; "
                "use a custom container (containerSpec)")
    image = f"tf-{'gpu' if gpu else 'cpu'}.{suffix}"
    _, _, eoa = PREBUILT_TRAINING_IMAGES[image]
    note = f"TensorFlow {runtime} prebuilt image (Python 3.7)"
    if eoa is not None:
        note += (f"; its end of availability is {eoa.isoformat()}, after which new jobs "
                 "need a newer image or a custom container")
    return (prebuilt_uri(image), note)
