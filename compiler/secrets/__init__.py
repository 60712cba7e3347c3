"""Plaintext secrets in a spec: what detect-secrets finds (scan.py) and the located warning
validate reports for it (check.py); review/redact.py hides what the same detector finds."""
