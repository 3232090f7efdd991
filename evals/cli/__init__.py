"""The ``scorekit`` command line: one module per subcommand (``_run`` has ``run`` and
``demo``), found by `_commands` (no list), what they share in ``_common``, exit codes and
printing in ``_output``. `register_command` and ``scorekit.commands`` entry points add
others.

Exit codes: 0 passed, 1 a threshold failed, 2 usage / configuration / data / judge
setup error, 3 items errored, 4 a gate could not decide (nothing scored or compared),
130 interrupted (see `evals.cli._output`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from scorers import JudgeAPIError, ScorekitError

from ._commands import commands, register_command
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


LITELLM_NOISE = r"(?s).*are using the `ReadOnly` qualifier|.*is using the `ReadOnly` qualifier"
"""pydantic's warnings about litellm's TypedDicts, printed by the hundred as it imports."""


class _Parser(argparse.ArgumentParser):
    """argparse, with the flag a mistyped one probably meant."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments:"):
            flags = sorted(
                {o for p in _parsers(self) for a in p._actions for o in a.option_strings}
            )
            hints = []
            for word in message.split(":", 1)[1].split():
                if word.startswith("--"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], flags, 1, 0.75)
                    hints += [f"{word.split('=', 1)[0]}: did you mean {close[0]}?"] if close else []
            if hints:
                message += " (" + "; ".join(hints) + ")"
        super().error(message)


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and its subcommands' parsers."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += list(action.choices.values())
    return found


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``scorekit``; each subcommand sets its ``handler``."""
    parser = _Parser(
        prog="scorekit",
        description="Score RAG retrieval and agents.",
        epilog="exit codes: 0 passed, 1 threshold failed, 2 usage/config/setup error, "
        "3 items errored, 4 a gate could not decide (nothing scored or compared), "
        "130 interrupted",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {version()}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in commands():
        command.add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    # litellm's import makes pydantic warn about its own types; the import may still run
    # in a thread after an early Ctrl-C, when the CLI's warning handler is gone
    warnings.filterwarnings("ignore", message=LITELLM_NOISE, category=UserWarning)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line
        code = _handle(args)
    if code == EXIT_INTERRUPTED:  # what the abandoned work leaves as the process ends is no news
        warnings.filterwarnings("ignore", category=RuntimeWarning)
    return code


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
    "register_command",
]
