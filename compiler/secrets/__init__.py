"""Plaintext secrets: what detect-secrets (and trainspec's own detect-secrets plugins,
detectors.py) finds in a value (scan.py). A leaf room: the plaintext-secret rule that warns about
them is compiler/config/plaintext.py (it reads the repo config's policy); review/redact.py hides
what the same detector finds."""
