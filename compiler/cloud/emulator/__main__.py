"""`python -m compiler.cloud.emulator`: the same as `python -m compiler emulator`."""

import sys

from . import main

sys.exit(main())
