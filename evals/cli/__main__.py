"""``python -m evals.cli``: the ``scorekit`` command."""

import sys

from . import main

sys.exit(main())
