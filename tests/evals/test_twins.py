"""Every public sync twin has its async twin's full, typed signature (issue 45, item 13)."""

from __future__ import annotations

import inspect

import pytest

import evals
import evals.testing
import scorers
import scorers.ragas
from evals import run_evals
from scorers import create_id_context_recall_scorer

MODULES = (evals, evals.testing, scorers, scorers.ragas)


def _pairs():
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and hasattr(module, "a" + name):
                yield f"{module.__name__}.{name}", obj, getattr(module, "a" + name)
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    twin = vars(obj).get(attr[1:])
                    if attr.startswith("a") and callable(value) and callable(twin):
                        yield f"{module.__name__}.{name}.{attr[1:]}", twin, value


PAIRS = {name: (sync, async_) for name, sync, async_ in _pairs()}


def test_the_twins_are_found():
    assert {"evals.run_evals", "evals.synthesize", "evals.estimate_run", "evals.judge_qrels",
            "evals.calibrate", "evals.estimate_synthesis", "scorers.Scorer.run",
            "evals.testing.assert_score", "scorers.ragas.evaluate"} <= set(PAIRS)  # fmt: skip


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_a_sync_twin_has_its_async_twins_signature(name):
    sync, async_ = PAIRS[name]
    mine, theirs = inspect.signature(sync), inspect.signature(async_)
    assert list(mine.parameters.values()) == list(theirs.parameters.values()), name
    assert mine.return_annotation == theirs.return_annotation, name
    assert not any(p.kind is p.VAR_KEYWORD for p in mine.parameters.values()) or (
        any(p.kind is p.VAR_KEYWORD for p in theirs.parameters.values())
    )
    assert sync.__doc__, name


def test_run_evals_shows_every_option_and_catches_a_typo_at_the_call():
    parameters = inspect.signature(run_evals).parameters
    assert {"concurrency", "results_path", "resume", "thresholds", "max_cost"} <= set(parameters)
    assert "kwargs" not in parameters
    assert "results_path" in (run_evals.__doc__ or "")
    with pytest.raises(TypeError, match=r"'concurency' \(did you mean 'concurrency'\?\)"):
        run_evals([], [create_id_context_recall_scorer()], concurency=4)
    with pytest.raises(TypeError, match="run_evals"):
        run_evals()  # type: ignore[call-arg]
