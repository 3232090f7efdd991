"""A failed scorer run carries no number anywhere (issue 46, item 4)."""

from __future__ import annotations

import json
import math

import pytest

from evals import read_results, run_evals
from evals.cli import main
from scorers import ScoreResult, create_id_context_recall_scorer, create_scorer


def _broken(run, results):
    raise RuntimeError("scorer broke")


BROKEN = create_scorer(id="broken").generate_score(_broken)
ROWS = [
    {
        "id": "q1",
        "input": "q",
        "context": [{"id": "d1", "text": "x"}],
        "reference_context_ids": ["d1"],
    },
    {
        "id": "q2",
        "input": "q",
        "context": [{"id": "d2", "text": "x"}],
        "reference_context_ids": ["d1"],
    },
]


def test_an_error_has_no_score_in_the_api_the_file_and_pandas(tmp_path):
    path = tmp_path / "r.jsonl"
    result = run_evals(ROWS, [BROKEN, create_id_context_recall_scorer()], results_path=path)
    failed = result.items[0].scorer_results["broken"]
    assert failed.status == "error" and failed.score is None and failed.value is None
    assert math.isnan(float(failed))
    assert "score=-" in repr(failed)
    lines = [json.loads(line) for line in path.read_text().splitlines() if '"item"' in line]
    stored = [line["scorer_results"]["broken"] for line in lines]
    assert all(s["score"] is None and s["status"] == "error" for s in stored)  # null, not 0.0
    assert result.scores["broken"] is None and result.summary.scorers["broken"].n_error == 2
    back = read_results(path)
    assert all(r.scorer_results["broken"].score is None for r in back)
    pytest.importorskip("pandas")
    frame = back.to_pandas()
    assert frame[frame.scorer == "broken"]["score"].isna().all()
    assert result.to_pandas(wide=True)["broken"].isna().all()


def test_an_earlier_files_zero_for_an_error_is_read_as_no_number():
    old = {"scorer_id": "x", "score": 0.0, "status": "error", "error": "boom"}
    assert ScoreResult.model_validate(old).score is None
    assert ScoreResult(scorer_id="x", status="skipped").score == 0.0  # the seed's rule
    with pytest.raises(ValueError, match="needs a score"):
        ScoreResult(scorer_id="x", score=None)


def test_the_cli_table_shows_a_dash_for_a_scorer_that_only_failed(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({**r, "context": ["no id"]}) + "\n" for r in ROWS))
    assert main(["run", str(data), "--scorer", "id-context-recall", "--no-progress"]) == 3
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("id-"))
    assert row.split()[1:3] == ["-", "-"]
