"""Reading spec text: a file or stream read safely, composed into plain data with the position of
every JSON path (read.py, compose.py), its cost bounded (limits.py), numbers YAML 1.1 misreads
flagged (numbers.py), inline suppressions found (inline.py)."""
