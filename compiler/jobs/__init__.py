"""Jobs after apply: the workspace of applied jobs (workspace.py), finding them (track.py,
identity.py), status, logs and wait (watch.py, log.py, table.py)."""
