"""Prebuilt Vertex training images and legacy AI Platform runtime versions.

Dates are data; the caller passes ``today`` so every function stays pure.
"""

from __future__ import annotations

import csv
import datetime
import re
from pathlib import Path

from compiler.rules import Problem


# Prebuilt training images: framework, version, end of availability and image names, one row
# a (framework, version, date) in prebuilt_images.csv, which names its source ([PBC], facts
# §A.11). Only the images in that table are listed; newer ones the snapshot does not know are
# reported as "unknown", not rejected.
def _rows() -> list[tuple[str, str, datetime.date | None, list[str]]]:
    text = (Path(__file__).parent / "prebuilt_images.csv").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    return [(framework, version, datetime.date.fromisoformat(eoa) if eoa else None,
             names.split())
            for framework, version, eoa, names in csv.reader(lines[1:])]


PREBUILT_TRAINING_IMAGES: dict[str, tuple[str, str, datetime.date | None]] = {
    image: (framework, version, eoa)
    for framework, version, eoa, images in _rows() for image in images
}

# What an image reference can be: the grammar of distribution/reference (regexp.go,
# https://github.com/distribution/reference/blob/main/regexp.go), which Docker and containerd
# parse references with; its repository and tag parts are the OCI Distribution Spec's
# (https://github.com/opencontainers/distribution-spec/blob/main/spec.md#pulling-manifests:
# <name> and a tag `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`). ASCII only (Go's \w is ASCII).
_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?"
_PATH = rf"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
IMAGE_REFERENCE = re.compile(rf"(?:{_HOST}/)?{_PATH}(?:/{_PATH})*(?::{_TAG})?(?:@{_DIGEST})?")


def unpullable_character(image: str) -> str | None:
    """A character no registry, client or reference grammar accepts in an image (white space, a
    control or format character, non-ASCII), if `image` holds one: such a value is never pulled."""
    return next((ch for ch in image if not ch.isascii() or not ch.isprintable() or ch.isspace()),
                None)


def reference_problem(image: str) -> str | None:
    """Why `image` cannot be a container image reference, if it cannot."""
    if IMAGE_REFERENCE.fullmatch(image):
        return None
    odd = unpullable_character(image)
    if odd is not None:
        return f"it holds the character U+{ord(odd):04X}, which no image reference has"
    if "$" in image:
        return ("it holds '$': a shell variable left unsubstituted? It is sent as written, not "
                "the variable's value")
    return ("it is not of the image reference grammar: [HOST[:PORT]/]PATH[:TAG][@DIGEST], the "
            "path lower-case")


PREBUILT_HOSTS: tuple[str, ...] = ("us-docker.pkg.dev", "europe-docker.pkg.dev",
                                   "asia-docker.pkg.dev")
_PREBUILT_URI = re.compile(
    r"^(?P<host>(?:us|europe|asia)-docker\.pkg\.dev)/vertex-ai/training/"
    r"(?P<image>[a-z0-9][a-z0-9._-]*)(?P<ref>[:@].*)?$"
)


def prebuilt_uri(image: str, host: str = "us-docker.pkg.dev") -> str:
    """Full ``:latest`` URI of a prebuilt training image name."""
    return f"{host}/vertex-ai/training/{image}:latest"


def executor_image_problem(uri: str, *, today: datetime.date) -> Problem | None:
    """What is wrong with a ``pythonPackageSpec.executorImageUri``, if anything (key
    ``executorImage``): past the image's end of availability (``executor-image-retired``),
    an image name not in the table (``executor-image-unknown``), or anything outside the
    prebuilt repositories or not tagged ``:latest`` (``executor-image-prebuilt``).
    """
    match = _PREBUILT_URI.match(uri)
    if match is None:
        return _image("executor-image-prebuilt", f"{uri} is not a Vertex AI prebuilt training "
                      "image; executorImageUri must be one of {us,europe,asia}-docker.pkg.dev/"
                      "vertex-ai/training/<image>:latest (use containerSpec for other images)")
    image, ref = match["image"], match["ref"]
    if ref != ":latest":
        got = f"got {ref}" if ref else "got no tag"
        return _image("executor-image-prebuilt", "prebuilt training images are only supported "
                      f"with the :latest tag ({got}); use {prebuilt_uri(image, match['host'])}")
    entry = PREBUILT_TRAINING_IMAGES.get(image)
    if entry is None:
        return _image("executor-image-unknown", f"{image} is not in trainspec's list of "
                      "prebuilt training images (it may be newer than the list); check the "
                      "Vertex AI prebuilt containers page")
    framework, version, eoa = entry
    if eoa is not None and today >= eoa:
        return _image("executor-image-retired", f"{image} ({framework} {version}) reached end "
                      f"of availability on {eoa.isoformat()}; choose a newer prebuilt image or "
                      "a custom container")
    return None


def _image(code: str, message: str) -> Problem:
    return Problem(code, "executorImage", message)


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


def check_runtime_python(runtime: str, python: str) -> list[Problem]:
    """Problems with a legacy ``runtimeVersion`` / ``pythonVersion`` pair; empty = ok.

    The runtime list is incomplete (facts §B.6, ◐): an unknown runtime is a warning, at
    ``runtimeVersion``. The Python/runtime pairing of a known runtime is ✅ ([DD-ML]
    pythonVersion): an error, at ``pythonVersion``.
    """
    allowed = ML_RUNTIME_VERSIONS.get(runtime)
    if allowed is None:
        return [Problem("runtime-python-unverified", "runtimeVersion", f"runtimeVersion "
                        f"{runtime!r} is not a known AI Platform Training runtime version "
                        "(1.0-1.15 or 2.1-2.11)")]
    if python not in allowed:
        shown = ", ".join(sorted(allowed))
        return [Problem("runtime-python", "pythonVersion", f"runtimeVersion {runtime} "
                        f"supports pythonVersion {shown}, not {python!r}")]
    return []


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
