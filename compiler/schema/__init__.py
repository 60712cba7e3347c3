"""The published JSON Schema: validation with located diagnostics (validate.py), the catalog
completions written into it (completions.py) and validate's editor note (modeline.py)."""
