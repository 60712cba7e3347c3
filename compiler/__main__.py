"""`python -m compiler ...` — the trainspec CLI."""

import sys

from .cli import main

sys.exit(main())
