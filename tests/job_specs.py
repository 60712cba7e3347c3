"""Small specs for the engine and CLI tests (project and region come from stack config)."""

VERTEX = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: {name}
  labels: {{team: nlp{labels}}}
spec:
  container:
    image: us-docker.pkg.dev/acme/trainers/bert:1.0
    args: [--steps, "{steps}"]
  pools:
    chief: {{machineType: n1-standard-4}}
{workers}"""

ML = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: {name}
  labels: {{team: tabular{labels}}}
spec:
  platform: ai-platform
  container:
    image: gcr.io/acme/census:1.0
    args: [--epochs, "{steps}"]
  pools:
    chief: {{machineType: n1-standard-8}}
{workers}"""


TUNING = """\
apiVersion: trainspec/v1
kind: HyperparameterTuningJob
metadata:
  name: {name}
  labels: {{team: ads{labels}}}
spec:
  container:
    image: us-docker.pkg.dev/acme/trainers/ads:2.0
  pools:
    chief: {{machineType: n1-standard-4}}
  tuning:
    metrics: {{auc: maximize}}
    parameters:
      lr: {{double: [0.001, 0.1], scale: log}}
      optimizer: {{categorical: [adam, sgd]}}
    maxTrials: 4
    parallelTrials: 2
"""


def _workers(count: int) -> str:
    return f"    worker: {{machineType: n1-standard-4, replicas: {count}}}\n" if count else ""


def vertex(name: str = "bert", steps: int = 10, labels: str = "", workers: int = 0) -> str:
    return VERTEX.format(name=name, steps=steps, labels=labels, workers=_workers(workers))


def tuning(name: str = "ads-hpt", labels: str = "") -> str:
    return TUNING.format(name=name, labels=labels)


def ml(name: str = "census", steps: int = 10, labels: str = "", workers: int = 0) -> str:
    return ML.format(name=name, steps=steps, labels=labels, workers=_workers(workers))


HOLD = ", emulator-hold: running"  # the emulator keeps the job RUNNING until cancelled
FAIL = ", emulator-result: failed"  # the emulator ends the job FAILED


H100 = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: {name}
spec:
  container: {{image: us-docker.pkg.dev/acme/trainers/llm:1.0}}
  pools:
    chief: {{machineType: a3-highgpu-8g}}
{workers}  scheduling: {scheduling}
"""


def h100(name: str, workers: int = 0, scheduling: str = "{timeout: 1d}") -> str:
    """a3-highgpu-8g pools (8 H100s each): a job with a price and a quota that counts."""
    pools = f"    worker: {{replicas: {workers}, machineType: a3-highgpu-8g}}\n" if workers else ""
    return H100.format(name=name, workers=pools, scheduling=scheduling)
