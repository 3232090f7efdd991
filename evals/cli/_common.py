"""What the subcommands share: judge and option flags, thresholds, targets."""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorers import ConfigError, Judge

from .._run._options import RunOptions
from .._stats._gate import bounds


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scorekit")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def option_value(text: str) -> Any:
    """An option value: JSON when it parses (``true``, ``3``, ``["a"]``), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def scorer_options(values: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``--option ID.KEY=VALUE`` flags as ``{ID: {KEY: value}}`` (``judge`` for the judge)."""
    found: dict[str, dict[str, Any]] = {}
    for value in values:
        target, sep, assignment = value.partition(".")
        key, eq, raw = assignment.partition("=")
        if not (sep and eq and target and key):
            raise ConfigError(
                f"--option takes SCORER.KEY=VALUE or judge.KEY=VALUE, e.g. "
                f"context-precision.per_chunk=true; got {value!r}"
            )
        found.setdefault(target, {})[key] = option_value(raw)
    return found


def judge_from(args: argparse.Namespace, options: dict[str, Any]) -> Judge | None:
    model = args.model or os.environ.get("SCOREKIT_MODEL")
    if not model:
        if options:
            raise ConfigError("--option judge.* needs a judge: pass --model")
        return None
    api_base = args.api_base or os.environ.get("SCOREKIT_API_BASE")
    try:
        return Judge(
            model,
            api_base=api_base,
            cache=not args.no_cache,
            client_processes=args.client_processes,
            **options,
        )
    except ConfigError as exc:
        raise ConfigError(f"{exc} (from --model / --option judge.*)") from None


thresholds = bounds
"""``--threshold`` / ``--item-threshold`` / ``--max-drop`` values (`_stats._gate.bounds`)."""


def import_modules(names: list[str]) -> None:
    """Import ``--import`` modules (from the working directory first), so that the
    context extractors they register exist when the scorers are built."""
    for name in names:
        _import_from_cwd(name, f"cannot import {name!r} (--import {name})")


def _import_from_cwd(name: str, failure: str) -> Any:
    """The module ``name`` (a dotted name, from the working directory first) or a Python
    file's path (``./my_rag.py``, ``src/app.py``: imported by its stem from its folder)."""
    if name.endswith(".py") or "/" in name or os.sep in name:
        path = Path(name)
        if path.suffix != ".py" or not path.is_file():
            raise ConfigError(f"{failure}: {name} is not a Python file (give path/to/file.py)")
        folder, name = str(path.resolve().parent), path.stem
        if folder not in sys.path:
            sys.path.insert(0, folder)
        module = _imported(name, failure)
        if Path(getattr(module, "__file__", "") or "").resolve() != path.resolve():
            raise ConfigError(
                f"{failure}: another module named {name!r} is already imported "
                f"({getattr(module, '__file__', 'built in')}); rename {path.name}"
            )
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return _imported(name, failure)


def _imported(name: str, failure: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(f"{failure}: {exc}") from None
    except (TypeError, ValueError) as exc:  # a relative name: "the 'package' argument..."
        if name.startswith("."):
            raise ConfigError(f"{failure}: give a module name or a path/to/file.py") from None
        raise _raised_by_module(exc, failure) from exc
    except Exception as exc:
        raise _raised_by_module(exc, failure) from exc


def _raised_by_module(exc: Exception, failure: str) -> ConfigError:
    """An error raised while the user's module ran, with where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    return ConfigError(f"{failure}: {type(exc).__name__}: {exc}{where}")


def load_target(spec: str | None) -> Any:
    """The ``--target module:callable``, its module imported first (what it registers,
    context extractors included, is then known to the scorers)."""
    if not spec:
        return None
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise ConfigError(
            f"--target takes module:callable or path/to/file.py:callable, got {spec!r}"
        )
    module = _import_from_cwd(module_name, f"cannot load target {spec!r}")
    try:
        return getattr(module, attribute)
    except AttributeError as exc:
        raise ConfigError(f"cannot load target {spec!r}: {exc}") from None


def check_run_flags(args: argparse.Namespace) -> None:
    """Refuse bad flag values by their flag names, before any work."""
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be an integer >= 1; got {args.concurrency}")
    if args.client_processes < 0:
        raise ConfigError(f"--client-processes must be >= 0; got {args.client_processes}")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be an integer >= 1; got {args.limit}")
    if args.item_timeout is not None and not (
        math.isfinite(args.item_timeout) and args.item_timeout > 0
    ):
        raise ConfigError(f"--item-timeout must be a finite number > 0; got {args.item_timeout}")
    check_min_agreement(args)
    if args.min_scored is not None and not 0 <= args.min_scored <= 1:
        raise ConfigError(f"--min-scored must be a share between 0 and 1; got {args.min_scored}")
    if args.max_cost is not None and not (math.isfinite(args.max_cost) and args.max_cost > 0):
        raise ConfigError(f"--max-cost must be a finite number > 0 (USD); got {args.max_cost}")
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out FILE (the results file to continue)")
    if args.out:
        out = Path(args.out)
        if out.is_dir():
            raise ConfigError(f"--out {out} is a directory; give a file path")
        if out.exists() and out.stat().st_size and not args.resume:
            raise ConfigError(
                f"--out {out} already exists; add --resume to continue it, or choose another path"
            )


def add_progress_options(parser: argparse.ArgumentParser) -> None:
    """``--progress MODE`` and its older spelling ``--no-progress``."""
    parser.add_argument(
        "--progress",
        choices=("auto", "bar", "plain", "none"),
        default="auto",
        help="auto (default): a bar on a terminal, else a plain line every 10 s once a run "
        "takes more than a few seconds (CI logs); bar; plain (from the first second); none",
    )
    parser.add_argument("--no-progress", action="store_true", help="the same as --progress none")


def check_min_agreement(args: argparse.Namespace) -> None:
    """``--min-agreement`` is a κ: between -1 and 1."""
    bound = args.min_agreement
    if bound is not None and not -1 <= bound <= 1:
        raise ConfigError(f"--min-agreement is a Cohen's κ between -1 and 1; got {bound:g}")


def add_agreement_options(parser: argparse.ArgumentParser) -> None:
    """``--labels`` and ``--min-agreement`` (``run``, ``demo``, ``compare``)."""
    parser.add_argument(
        "--labels",
        metavar="PATH",
        help="people's labels of the judge's verdicts: a scorekit-labels.sqlite or its folder "
        "(default: beside the results file, else the working directory)",
    )
    parser.add_argument(
        "--min-agreement",
        type=float,
        metavar="KAPPA",
        help="fail (exit 1) when people's agreement with an LLM judge (Cohen's κ) is below "
        "KAPPA, or the judge or prompt changed since the labels were made; exit 4 with no "
        "labels for the judge or fewer than 10",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``scorekit run``'s and ``demo``'s flags: the judge's, the run options' (from
    `RunOptions`), ``--limit``, output, cache, client processes, agreement."""
    parser.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    parser.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    RunOptions.add_flags(parser)  # --concurrency, --out, --resume, --threshold...
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N items")
    add_output_options(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=0,
        metavar="N",
        help="run the judge's litellm client in N helper processes (for high --concurrency)",
    )
    add_agreement_options(parser)


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """How a run is shown: ``--format``, ``--by`` slices, ``--progress``."""
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="KEY",
        help="also print the summary per value of this metadata key (repeatable)",
    )
    add_progress_options(parser)


def add_resampling_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="randomization/bootstrap resamples"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling tests")


def check_resamples(args: argparse.Namespace) -> None:
    if args.resamples < 1:
        raise ConfigError(f"--resamples must be an integer >= 1; got {args.resamples}")
