"""The ``scorekit`` command line: one module per subcommand (``_run`` has ``run`` and
``demo``), what they share in ``_common``, exit codes and printing in ``_output``.

Exit codes: 0 passed, 1 a threshold failed, 2 usage / configuration / data / judge
setup error, 3 items errored, 4 a gate could not decide (nothing scored or compared),
130 interrupted (see `evals.cli._output`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Sequence

from scorers import JudgeAPIError, ScorekitError

from . import (
    _calibrate,
    _compare,
    _judge_qrels,
    _merge,
    _power,
    _report,
    _run,
    _scorers,
    _synth,
    _trec,
    _view,
)
from ._common import version
from ._output import (
    EXIT_INTERRUPTED,
    EXIT_ITEM_ERRORS,
    EXIT_OK,
    EXIT_THRESHOLD,
    EXIT_USAGE,
)
from ._spelling import for_cli

# kept for callers of earlier versions
EXIT_FAILED = EXIT_THRESHOLD

_COMMANDS = (
    _run, _scorers, _compare, _power, _trec, _calibrate, _merge, _report, _judge_qrels, _synth,
    _view,
)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``scorekit``; each subcommand sets its ``handler``."""
    parser = argparse.ArgumentParser(
        prog="scorekit",
        description="Score RAG retrieval and agents.",
        epilog="exit codes: 0 passed, 1 threshold failed, 2 usage/config/setup error, "
        "3 items errored, 4 a gate could not decide (nothing scored or compared), "
        "130 interrupted",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS:
        command.add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line
        return _handle(args)


def _one_line(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
    """A warning as the CLI prints it: one line in the command's words, no source line."""
    text = for_cli(" ".join(str(message).split()))
    print(f"scorekit: warning: {text} ({category.__name__})", file=sys.stderr)


def _handle(args: argparse.Namespace) -> int:
    try:
        return int(args.handler(args))
    except BrokenPipeError:  # `scorekit trec ... | head`: the reader has what it wanted
        # further writes to stdout (Python's own flush at exit) would raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt as exc:
        where = "; finished items are in --out" if getattr(args, "out", None) else ""
        print(f"\nscorekit: interrupted{where}", file=sys.stderr)
        return _failed(args, exc, f"interrupted{where}", EXIT_INTERRUPTED)
    except JudgeAPIError as exc:  # a provider's message may span lines: one line here
        message = for_cli(" ".join(str(exc).split()))
        print(f"scorekit: error: {message}", file=sys.stderr)
        return _failed(args, exc, message, EXIT_USAGE)
    except ScorekitError as exc:
        message = for_cli(str(exc))
        print(f"scorekit: error: {message}", file=sys.stderr)
        return _failed(args, exc, message, EXIT_USAGE)


def _failed(args: argparse.Namespace, exc: BaseException, message: str, code: int) -> int:
    """``code``; with ``--format json``, after a JSON error object on stdout, so that a
    CI step parsing the output always has JSON to parse."""
    if getattr(args, "format", None) == "json":
        error = {"type": type(exc).__name__, "message": message, "exit_code": code}
        print(json.dumps({"error": error}, indent=2))
    return code


__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_ITEM_ERRORS",
    "EXIT_OK",
    "EXIT_THRESHOLD",
    "EXIT_USAGE",
    "build_parser",
    "main",
]
