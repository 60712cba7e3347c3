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


def _workers(count: int) -> str:
    return f"    worker: {{machineType: n1-standard-4, replicas: {count}}}\n" if count else ""


def vertex(name: str = "bert", steps: int = 10, labels: str = "", workers: int = 0) -> str:
    return VERTEX.format(name=name, steps=steps, labels=labels, workers=_workers(workers))


def ml(name: str = "census", steps: int = 10, labels: str = "", workers: int = 0) -> str:
    return ML.format(name=name, steps=steps, labels=labels, workers=_workers(workers))


HOLD = ", emulator-hold: running"  # the emulator keeps the job RUNNING until cancelled
FAIL = ", emulator-result: failed"  # the emulator ends the job FAILED
