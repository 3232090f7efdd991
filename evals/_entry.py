"""The ``scorekit`` console script: the command line imported inside a guard, so that
Ctrl-C in the first fraction of a second (while Python imports it) is one line too."""

from __future__ import annotations

import sys


def main() -> int:
    """Run ``scorekit``; 130 on Ctrl-C at any moment, with one line on stderr."""
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("\nscorekit: interrupted", file=sys.stderr)
        return 130
    return run()
