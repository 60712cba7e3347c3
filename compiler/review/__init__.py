"""Pull-request review: what applying HEAD's specs does, compared with BASE's.

`python -m compiler diff BASE [HEAD]` reads the spec files of two git revisions (HEAD omitted:
the working tree, uncommitted and untracked files included) (sides.py), compiles both sides in
memory as one tree each (`compiler.tree`, as `validate` and the Pulumi program do) and reports,
per spec added, removed or changed, the action `pulumi up` takes or the change it refuses
(compare.py: `compiler.plan.decide`, the function the Pulumi provider calls); the `diff` command
(compiler/diff.py) reports it as text, markdown or JSON with a field-level diff of the compiled
request (compiler/report/review.py).

A change of the job's location (the resolved project or region, or the platform) is a replace:
both live in the request URL, not the body, and `pulumi up` creates the job in the new place.

Secrets never reach the output (redact.py): env values compile to ``<secret:KEY>`` markers, and
values that look like credentials (by env name, flag or key name, or shape) are shown as
``<redacted>``, in field values and in diagnostics alike.
"""

from .compare import EXIT_CHANGED, EXIT_ERROR, EXIT_SAME
from .redact import redact, redact_diagnostic, redact_text, spec_secrets

__all__ = ["EXIT_CHANGED", "EXIT_ERROR", "EXIT_SAME", "redact", "redact_diagnostic",
           "redact_text", "spec_secrets"]
