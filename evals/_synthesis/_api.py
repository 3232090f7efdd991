"""`synthesize` / `asynthesize`: the public entry, its checks and the run loop."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from scorers import BudgetExceededError, ConfigError, Judge
from scorers._internal import integer

from .._twins import sync_twin
from ._corpus import MAX_CHARS, read_corpus
from ._journal import Journal, corpus_digest, log_path
from ._result import SynthesisResult
from ._run import KINDS, _Synthesis

Corpus = str | os.PathLike[str] | Iterable[Any]


def _judge(model: Judge | str) -> Judge:
    if isinstance(model, Judge):
        return model
    if isinstance(model, str) and model.strip():
        return Judge(model)
    raise ConfigError(
        f"synthesize needs a judge: a litellm model string or a scorers.Judge; got {model!r}"
    )


def _options(
    n: int,
    kinds: Sequence[str],
    language: str,
    seed: int,
    max_cost: float | None,
    concurrency: int,
    progress: bool | str | None,
) -> dict[str, Any]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds or len(set(kinds)) != len(kinds):
        raise ConfigError(f"kinds must be distinct values of {list(KINDS)}; got {list(kinds)}")
    if not isinstance(language, str) or not language.strip():
        raise ConfigError(f"language must be 'auto' or a language code; got {language!r}")
    if max_cost is not None and (
        isinstance(max_cost, bool)
        or not isinstance(max_cost, (int, float))
        or not math.isfinite(max_cost)
        or max_cost <= 0
    ):
        raise ConfigError(f"max_cost must be a positive number of USD; got {max_cost!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer; got {seed!r}")
    return {
        "n": integer("n", n),
        "kinds": list(kinds),
        "language": language.strip(),
        "seed": seed,
        "max_cost": max_cost,
        "concurrency": integer("concurrency", concurrency),
        "progress": progress,
    }


def _out_path(out: str | os.PathLike[str] | None, resume: bool) -> Path | None:
    if out is None:
        if resume:
            raise ConfigError("resume=True needs out=: the file an earlier run wrote")
        return None
    path = Path(out)
    if path.is_dir():
        raise ConfigError(f"out={path} is a directory; give a .jsonl file path")
    if resume and path.exists() and not log_path(path).exists():
        raise ConfigError(
            f"{path} exists but {log_path(path).name} does not: synthesize did not write it, "
            "and a file it did not write is never replaced. Give another out= (CLI: --out)"
        )
    if not resume:
        for existing in (path, log_path(path)):
            if existing.exists():
                raise ConfigError(
                    f"{existing} exists: pass resume=True (CLI: --resume) to continue that run, "
                    "or remove it to start again"
                )
    return path


async def asynthesize(
    corpus: Corpus,
    model: Judge | str,
    n: int = 100,
    *,
    kinds: Sequence[str] = KINDS,
    language: str = "auto",
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    max_cost: float | None = None,
    concurrency: int = 16,
    max_chars: int = MAX_CHARS,
    progress: bool | str | None = None,
) -> SynthesisResult:
    """A labelled set written from your own documents, with the gold passage ids known.

    Each row is a question the judge wrote from one passage (``single``), from two
    passages that belong together (``multi``: they share names, or else words; both
    are gold), or in words other than the passage's (``paraphrase``: kept only when the
    shipped BM25 does not rank the gold passage first). A row is kept when it passes
    every gate (`evals.SYNTHESIS_GATES`): the judge checks that the gold passages answer
    the question, that the question does not give its answer away, that it is in the
    passages' language and (multi) that both passages are needed; near-duplicate
    questions are dropped. Candidates are drawn in a seeded order until ``n`` rows are
    kept or the corpus runs out.

    Args:
        corpus: A folder of ``.txt`` / ``.md`` documents, one document, a table of
            passages (``.jsonl`` / ``.csv`` / ``.parquet`` with ``id`` and ``text``), or a
            list of strings or dicts (see `read_corpus`).
        model: The judge: a litellm model string or a `scorers.Judge` (its cache,
            limits and retries apply).
        n: Rows wanted, split evenly over ``kinds``.
        kinds: Any of ``"single"``, ``"multi"``, ``"paraphrase"``.
        language: ``"auto"`` (questions in each passage's language) or a language code.
        seed: Decides the order passages are drawn in.
        out: The ``.jsonl`` to write the rows to (after every round); its log (every
            prompt and answer) goes beside it as ``<out>.log``.
        resume: Continue the run that wrote ``out``: no row is repeated and no step a
            finished invocation logged is asked again.
        max_cost: A cap in USD on this invocation's model calls.
        concurrency: Judge steps in flight.
        max_chars: The longest passage cut from a document.
        progress: ``"auto"`` (default), ``"bar"``, ``"plain"`` or ``"none"``.

    Returns:
        A `SynthesisResult`: ``.rows`` (scorekit's data format), ``.dropped`` (each
        with its gate and reason), ``.summary`` (calls, tokens, cost).

    Raises:
        ConfigError: For bad options, or an ``out`` that exists without ``resume``.
        DatasetError: For a corpus that cannot be read.
        BudgetExceededError: When ``max_cost`` is reached (the rows kept are in ``out``).
    """
    options = _options(n, kinds, language, seed, max_cost, concurrency, progress)
    return await run_synthesis(
        corpus, _judge(model), options, _out_path(out, resume), resume, max_chars
    )


async def run_synthesis(
    corpus: Corpus,
    judge: Judge,
    options: dict[str, Any],
    path: Path | None,
    resume: bool,
    max_chars: int,
) -> SynthesisResult:
    """`asynthesize` once its arguments are checked (``options`` from `_options`, with
    an optional ``token_counter``)."""
    started = time.monotonic()
    passages = read_corpus(corpus, max_chars=max_chars)
    state = _Synthesis(passages, judge, options, Journal(None, {}, False), path)
    header = {
        "corpus": corpus_digest(passages),
        "passages": len(passages),
        "seed": options["seed"],
        "kinds": options["kinds"],
        "language": options["language"],
        "writers": {k: w.fingerprint for k, w in state.writers.items()},
        "checker": state.checker.fingerprint,
        "model": judge.model,
        "n": options["n"],
    }
    state.journal = Journal(log_path(path) if path else None, header, resume)
    try:
        while await state.round():
            pass
    except BudgetExceededError as exc:
        state.save()
        kept = f"; {len(state.rows)} rows kept are in {path}" if path else ""
        raise BudgetExceededError(
            f"{exc}{kept}; resume with a higher max_cost to go on",
            spent=exc.spent,
            max_cost=exc.max_cost,
            model=judge.model,
        ) from exc
    finally:
        state.journal.close()
    state.summary.wall_s = round(time.monotonic() - started, 3)
    state.save()
    return state.result()


synthesize = sync_twin(asynthesize)
