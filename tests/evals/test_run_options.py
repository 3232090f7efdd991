"""run_evals' numeric options: errors before any work, never a silent default."""

from __future__ import annotations

import math

import pytest

from evals import run_evals
from scorers import ConfigError, create_id_context_recall_scorer

DATA = [{"input": "q", "context": [{"id": "d1", "text": "t"}], "reference_context_ids": ["d1"]}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 2.5}, r"concurrency must be an integer >= 1; got 2.5"),
        ({"concurrency": 0}, r"concurrency must be an integer >= 1; got 0"),
        ({"model_concurrency": 0}, r"model_concurrency must be an integer >= 1; got 0"),
        ({"item_timeout": 0}, r"item_timeout must be a finite number > 0; got 0"),
        ({"item_timeout": -1}, r"item_timeout must be a finite number > 0; got -1"),
        ({"item_timeout": math.nan}, r"item_timeout must be a finite number > 0; got nan"),
        (
            {"thresholds": {"id-context-recall": math.nan}},
            r"thresholds\['id-context-recall'\] must be a finite number; got nan",
        ),
    ],
)
def test_bad_numbers_are_config_errors(options, message, tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match=message):
        run_evals(DATA, [create_id_context_recall_scorer()], results_path=out, **options)
    assert not out.exists()  # refused before anything was written


def test_good_numbers_run():
    result = run_evals(
        DATA,
        [create_id_context_recall_scorer()],
        concurrency=2,
        model_concurrency=1,
        item_timeout=5,
        thresholds={"id-context-recall": 1},
        progress=False,
    )
    assert result.passed is True and result.scores == {"id-context-recall": 1.0}


def test_run_options_are_declared_once_and_every_place_agrees():
    """`RunOptions` declares each option; `arun_evals`' signature (and its sync twin's),
    its docstring, ``scorekit run``'s flags and docs/runs.md's table must all hold every
    one of them — an option added in one place only fails here."""
    import inspect
    from dataclasses import fields
    from pathlib import Path

    from evals import arun_evals, run_evals
    from evals._run._options import RunOptions
    from evals.cli import build_parser

    declared = {f.name: f.default for f in fields(RunOptions)}
    for fn in (arun_evals, run_evals):
        params = inspect.signature(fn).parameters
        keyword = {n: p.default for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
        keyword.pop("on_item_complete")
        assert keyword == declared, fn.__name__
        assert all(f"    {name}: " in (fn.__doc__ or "") for name in declared) or fn is run_evals
    run_parser = next(
        a for a in build_parser()._actions if hasattr(a, "choices") and a.choices
    ).choices["run"]
    flags = {o for a in run_parser._actions for o in a.option_strings}
    assert set(RunOptions.flags().values()) <= flags
    args = run_parser.parse_args(["d.jsonl", "--scorer", "mrr", "--threshold", "mrr=0.5",
                                  "--no-prompts", "--shard", "0/2", "--no-progress"])  # fmt: skip
    given = RunOptions.from_flags(args)
    assert given["thresholds"] == {"mrr": 0.5} and given["store_prompts"] is False
    assert given["shard"] == "0/2" and given["progress"] == "none"
    docs = (Path(__file__).parents[2] / "docs" / "runs.md").read_text()
    assert RunOptions.table() in docs, "regenerate docs/runs.md's table from RunOptions.table()"
