"""A local emulator of the Vertex AI CustomJob and HyperparameterTuningJob (aiplatform v1) and
AI Platform Training Job (ml v1) REST APIs, on one port.

It speaks the real paths and JSON shapes and refuses what the real APIs refuse: bodies are checked
against the discovery documents (`compiler.discovery`) plus the server-side rules a body schema
cannot express; refusals are google.rpc.Status bodies with snake_case BadRequest field paths.
A path no route matches gets what Google's front end sends for a wrong URL: an HTML 404 page,
not the API's JSON NOT_FOUND (which means a missing resource).

Jobs advance with the clock, computed lazily on every read (no background thread):
Vertex QUEUED → PENDING → RUNNING → SUCCEEDED and ml QUEUED → PREPARING → RUNNING → SUCCEEDED,
one step per `progress_seconds` (0 = succeed at once); a HyperparameterTuningJob runs its trials
in waves after PENDING (tuning.py). A cancelled job is CANCELLING for `cancel_seconds` (default
one step), then CANCELLED. Labels steer a job, for tests:
``emulator-hold: running`` keeps it RUNNING until cancelled; ``emulator-result: failed`` ends it
FAILED instead of SUCCEEDED.

While a job runs, Vertex jobs with ``jobSpec.enableWebAccess`` (or ``enableDashboardAccess``)
show ``webAccessUris`` keyed by replica (``workerpool0-0``…), ml jobs with
``trainingInput.enableWebAccess`` show ``trainingOutput.webAccessUris`` (``master-replica-0``…).
An ml hyperparameter tuning job reports ``trainingOutput`` trials as they complete (each with a
deterministic objective value), all ``maxTrials`` once it succeeds.

Cloud Logging's ``POST /v2/entries:list`` serves the jobs' log lines (see
`compiler.cloud.emulator.logs`), so `status`, `logs` and `wait` run against the same port.

Cloud Storage's objects.get and simple upload (``/storage/v1/b/B/o/O``,
``/upload/storage/v1/b/B/o``) serve the provider's python.source upload, for the buckets given
with ``--bucket`` (see `compiler.cloud.emulator.storage`).

A project's allocation quotas (``--quota METRIC@REGION=LIMIT[:USED]``) are served as Service
Usage ``consumerQuotaMetrics`` and Cloud Monitoring usage, and a Vertex create over one gets the
real 429 RESOURCE_EXHAUSTED (see `compiler.cloud.emulator.quotas`).

Run it with ``python -m compiler emulator --port 8765`` and point trainspec at it with
``TRAINSPEC_API_ENDPOINT=http://127.0.0.1:8765``. ``--state FILE`` persists jobs (a snapshot plus
an append-only journal, see journal.py). Bodies over `MAX_BODY_BYTES` (common.py) get 413
unread; a connection silent for `REQUEST_TIMEOUT` seconds is closed.

The package, by concern: core.py (the `Emulator`: routes, job progress, cancel, faults, Cloud
Logging), vertex.py and ml.py (each API's methods), storage.py (Cloud Storage), rules.py (what
each API refuses), listing.py (filters, pages), journal.py (``--state``), quotas.py
(allocation quotas), common.py (shared names, the refusal, body parsing) and server.py (HTTP,
the command).
"""

from .core import Emulator
from .rules import server_rules
from .server import main, serve

__all__ = ["Emulator", "server_rules", "main", "serve"]
