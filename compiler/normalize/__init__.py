"""A document → the neutral model (job.py), with its parts: pools, tasks, labels, and the typed
reads of data the schema may have refused (reads.py)."""
