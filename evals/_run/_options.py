"""The checked options of a run: what `run_evals` validates before any work starts."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from scorers import ConfigError, Scorer
from scorers._internal import (
    args_doc,
    checked,
    declared,
    declared_names,
    finite,
    integer,
    optional,
    positive,
)

from .._stats._gate import bounds
from ._progress import progress_mode
from ._shards import parse_shard


def _negated(value: bool, flag: str) -> bool:
    return not value


def option(
    default: Any,
    doc: str,
    *,
    flag: str | None = None,
    read: Callable[[Any, str], Any] | None = None,
    check: Callable[[str, Any], Any] | None = None,
    **argparse: Any,
) -> Any:
    """One run option: its default, what it means (`arun_evals`' docstring, the docs'
    table), its ``scorekit run`` flag (``argparse``: how argparse reads it, with the
    flag's ``help``; ``read(value, flag)``: the option's value from the flag's, when not
    the same); ``check(name, value)``: the value checked, or `ConfigError`."""
    return declared(default, doc, check=check, flag=flag, argparse=argparse, read=read)


@dataclass(frozen=True)
class RunOptions:
    """`run_evals`' keyword options — the one place they are declared: `arun_evals`'
    signature is held to these fields by a test, its docstring and the docs' options
    table are made from them, and ``scorekit run`` reads its flags from them (`flags`).
    Each is checked by `checked` (the messages name the option, the allowed range and
    the value given)."""

    concurrency: int = option(
        8,
        "Items in flight at once (an integer >= 1); each item's scorers run concurrently.",
        check=integer,
        flag="--concurrency",
        help="items in flight (default 8)",
        type=int,
        metavar="N",
    )
    model_concurrency: int | None = option(
        None,
        (
            "An extra cap on model requests in flight across the whole run (an integer >= 1; "
            "default ``concurrency × number of scorers``). Each judge's own ``max_concurrency`` "
            "and ``requests_per_minute`` still hold: the smaller limit wins."
        ),
        check=optional(integer),
    )
    results_path: str | os.PathLike[str] | None = option(
        None,
        "Stream one JSON line per finished item here.",
        flag="--out",
        help="stream one JSON line per finished item to this file",
        metavar="FILE",
    )
    resume: bool = option(
        False,
        (
            "Keep the items already in ``results_path``. An item runs again from scratch when its "
            "content changed since (same id, different fields) or it failed outside its scorers "
            "(target error, timeout); a scorer is re-run on a kept target output when it has no "
            "result for the item, failed, or had another configuration (its `Scorer.fingerprint`: "
            "judge, options, scale, prompt version). A line cut short by a crash is dropped; the "
            "last line per id wins."
        ),
        flag="--resume",
        help="keep items already in --out",
        action="store_true",
    )
    fail_fast: bool = option(
        False,
        "Stop at the first failed item with `ItemFailedError`.",
    )
    item_timeout: float | None = option(
        None,
        "Seconds allowed per item (target and scorers): finite and > 0; None for no limit.",
        check=optional(positive),
        flag="--item-timeout",
        help="time allowed per item",
        type=float,
        metavar="SECONDS",
    )
    thresholds: Mapping[str, float] | None = option(
        None,
        "Minimum mean per scorer id (finite numbers); sets ``passed``.",
        flag="--threshold",
        help="fail (exit 1) when a scorer's mean is below VALUE",
        action="append",
        metavar="ID=VALUE",
        read=bounds,
    )
    min_scored: float | None = option(
        None,
        (
            "With thresholds: the share of items (0 to 1) each thresholded scorer must have "
            "scored; skipped and errored items count against it."
        ),
        flag="--min-scored",
        help="with --threshold: also fail unless each thresholded scorer scored this share of items (0-1; skipped and errored items count against it)",
        type=float,
        metavar="SHARE",
    )
    item_thresholds: Mapping[str, float] | None = option(
        None,
        (
            "Minimum score per scorer id for an item to pass (recorded in the results file's "
            "header; reports and `EvalResult.item_status` mark the items below it as failed). "
            "Without one, a scorer's ``thresholds`` entry is its items' bar too."
        ),
        flag="--item-threshold",
        help="mark each item passed/failed by its score (default: the --threshold)",
        action="append",
        metavar="ID=VALUE",
        read=bounds,
    )
    store_prompts: bool = option(
        True,
        (
            "Keep prompts and sent messages in ``results_path`` (each once); False writes compact "
            "lines with what explains each score (verdicts, claims, short reasons; chunks as "
            "references to the item's; raw responses only of failed calls)."
        ),
        flag="--no-prompts",
        help="compact --out lines: no prompts, sent messages or raw responses of answered calls, chunks referenced (what explains each score stays)",
        action="store_true",
        read=_negated,
    )
    shard: Any = option(
        None,
        (
            '``(i, n)`` (or ``"i/n"``): run only the items whose id hashes to shard i of n — a '
            "stable, content-independent split, so n processes or machines can each run one shard "
            "into its own results file and `merge_results` combines them."
        ),
        check=lambda name, value: parse_shard(value),
        flag="--shard",
        help="only shard I of N (items split by a hash of their id), e.g. --shard 0/4",
        metavar="I/N",
    )
    max_cost: float | None = option(
        None,
        (
            "A cap in USD on this invocation's model calls: once the finished calls' cost plus "
            "what calls in flight reserved (their prompt tokens and ``max_tokens`` — 512 when "
            "unset — at the judge's price) would pass it, no new call starts. A new item starts "
            "only when it and the rest of every started item fit (the first runs alone to measure "
            "an item), so the run stops with `BudgetExceededError` having finished what it "
            "started; finished items stay in ``results_path``, and ``resume=True`` with a new cap "
            "continues."
        ),
        check=optional(positive),
        flag="--max-cost",
        help="stop starting model calls once this run would spend more (finished items stay)",
        type=float,
        metavar="USD",
    )
    progress: bool | str | None = option(
        None,
        (
            '``"auto"`` (default; None too): a bar on a terminal or in a notebook, plain lines '
            'every 10 s on stderr for a longer run with no terminal (CI logs); ``"bar"`` (True), '
            '``"plain"``, ``"none"`` (False).'
        ),
        flag="--progress",
        choices=("auto", "bar", "plain", "none"),
    )
    keep_items: bool = option(
        True,
        (
            "Keep every item's result in memory (`EvalResult.items`). False, with a "
            "``results_path``: memory is bounded by the items in flight, not by the run — a data "
            "file is validated first, then read again in chunks, results go to the file only "
            "(`EvalResult.iter_items` reads them back), and the summary, gates and errors are "
            "complete. For runs of hundreds of thousands of items."
        ),
    )

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options, in `arun_evals`' order."""
        return declared_names(cls)

    @classmethod
    def args_doc(cls, indent: str = "        ") -> str:
        """The options as Google-style ``Args:`` lines (for `arun_evals`' docstring)."""
        return args_doc(cls, indent)

    @classmethod
    def flags(cls) -> dict[str, str]:
        """Each option ``scorekit run`` has a flag for, by name → the flag."""
        return {f.name: f.metadata["flag"] for f in fields(cls) if f.metadata["flag"]}

    @classmethod
    def table(cls) -> str:
        """The options as docs/runs.md's Markdown table (a test holds the docs to it)."""
        rows = ["| option | default | `scorekit run` | meaning |", "|---|---|---|---|"]
        for f in fields(cls):
            flag = f"`{f.metadata['flag']}`" if f.metadata["flag"] else "—"
            rows.append(f"| `{f.name}` | `{f.default!r}` | {flag} | {f.metadata['doc']} |")
        return "\n".join(rows)

    @classmethod
    def add_flags(cls, parser: Any) -> None:
        """Add ``scorekit run``'s flag of each option to ``parser`` (its ``help``: the
        flag's words). ``--progress`` is shared with other commands and added with them."""
        for f in fields(cls):
            flag, how = f.metadata["flag"], dict(f.metadata["argparse"])
            if flag is None or flag == "--progress":
                continue
            if how.get("action") == "append":
                how["default"] = []
            elif how.get("action") not in ("store_true", "store_false"):
                how["default"] = f.default
            parser.add_argument(flag, **how)

    @classmethod
    def from_flags(cls, args: Any) -> dict[str, Any]:
        """The options ``scorekit run``'s parsed flags give (those with a flag; the
        shared ``--progress`` with ``--no-progress``)."""
        found = {}
        for name, flag in cls.flags().items():
            value = getattr(args, flag.lstrip("-").replace("-", "_"))
            read = cls.__dataclass_fields__[name].metadata["read"]
            found[name] = value if read is None else read(value, flag)
        if getattr(args, "no_progress", False):
            found["progress"] = "none"
        return found

    @classmethod
    def checked(cls, scorers: Mapping[str, Scorer], **options: Any) -> RunOptions:
        """The options with numbers checked, ``shard`` parsed and ``thresholds`` known.

        Raises:
            ConfigError: Naming the first option that is out of range.
        """
        given = cls(**options)
        progress_mode(given.progress)
        min_scored = given.min_scored
        if min_scored is not None and not 0 <= finite("min_scored", min_scored) <= 1:
            raise ConfigError(f"min_scored must be a share between 0 and 1; got {min_scored!r}")
        if given.results_path is None and given.resume:
            raise ConfigError("resume=True needs results_path")
        if given.results_path is None and not given.keep_items:
            raise ConfigError(
                "keep_items=False needs results_path: the items' results go there and nowhere else"
            )
        values = checked(cls, str, options)  # each option's own check
        values["thresholds"] = _thresholds(given.thresholds, scorers)
        values["item_thresholds"] = _thresholds(given.item_thresholds, scorers, "item_thresholds")
        return cls(**values)


def _thresholds(
    thresholds: Mapping[str, float] | None,
    scorers: Mapping[str, Scorer],
    name: str = "thresholds",
) -> dict[str, float]:
    found = {sid: finite(f"{name}[{sid!r}]", v) for sid, v in (thresholds or {}).items()}
    unknown = sorted(set(found) - set(scorers))
    if unknown:
        raise ConfigError(f"{name} name unknown scorers {unknown}; scorers: {sorted(scorers)}")
    for sid, minimum in found.items():
        scale = scorers[sid].scale
        if not 0 <= minimum <= scale:
            raise ConfigError(
                f"{name}[{sid!r}] is {minimum:g}, outside the scorer's scores [0, {scale:g}]: "
                "it could never pass (or never fail)"
            )
    return found
