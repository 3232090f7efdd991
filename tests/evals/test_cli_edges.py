"""The command line says what it could not do (issue 34, items 11 and 12)."""

from __future__ import annotations

import json
import textwrap

import pytest

from evals import run_evals
from evals.cli import main
from scorers import create_id_context_recall_scorer, scorer_by_id, scorer_ids

EXTRACTOR = textwrap.dedent(
    """
    from scorers import register_context_extractor

    @register_context_extractor("hits", overwrite=True)
    def hits(input, output):
        return [{"id": h, "text": h} for h in output["hits"]]

    def retrieve(question):
        return {"hits": ["d1", "d2"]}
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "my_rag.py").write_text(EXTRACTOR, encoding="utf-8")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a", "input": "q", "reference_context_ids": ["d1"]}) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "my_rag", raising=False)
    return data


def test_an_extractor_registered_by_the_target_module_works(project, capsys):
    code = main(
        [
            "run",
            str(project),
            "--scorer",
            "id-context-recall",
            "--target",
            "my_rag:retrieve",
            "--option",
            "id-context-recall.context_extractor=hits",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["scores"] == {"id-context-recall": 1.0}


def test_import_registers_an_extractor_without_a_target(project, capsys):
    assert main(["scorers", "--import", "my_rag"]) == 0
    assert "  hits" in capsys.readouterr().out
    assert (
        main(["run", str(project), "--scorer", "id-context-recall", "--import", "no_such_mod"]) == 2
    )
    assert "cannot import 'no_such_mod' (--import no_such_mod)" in capsys.readouterr().err


def test_every_listed_scorer_id_is_accepted():
    for sid in scorer_ids():
        assert scorer_by_id(sid, "openai/m").id == sid


def runs(tmp_path):
    data = [{"id": f"q{i}", "input": "q", "reference_context_ids": ["a"],
             "context": [{"id": "a" if i == 0 else "b", "text": "x"}]} for i in range(6)]  # fmt: skip
    better = [{**row, "context": [{"id": "a", "text": "x"}]} for row in data]
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(data, [create_id_context_recall_scorer()], results_path=base, progress=False)
    run_evals(better, [create_id_context_recall_scorer()], results_path=cand, progress=False)
    return str(base), str(cand)


@pytest.mark.slow
def test_max_drop_of_an_unknown_scorer_is_a_usage_error(tmp_path, capsys):
    base, cand = runs(tmp_path)
    assert main(["compare", base, cand, "--max-drop", "context-recal=0.1"]) == 2
    err = capsys.readouterr().err
    assert "context-recal" in err and "id-context-recall" in err
    assert main(["compare", base, cand, "--max-drop", "id-context-recall=0.1"]) == 0


def test_comparison_intervals_stay_within_the_scale(tmp_path, capsys):
    base, cand = runs(tmp_path)
    assert main(["compare", base, cand, "--format", "json", "--resamples", "100"]) == 0
    delta = json.loads(capsys.readouterr().out)["scorers"]["id-context-recall"]
    assert -1.0 <= delta["ci_low"] <= delta["ci_high"] <= 1.0  # was above +1


def test_json_format_writes_an_error_object_on_exit_2(tmp_path, capsys):
    code = main(["run", str(tmp_path / "nope.jsonl"), "--scorer", "id-context-recall",
                 "--format", "json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["error"]["exit_code"] == 2
    assert "does not exist" in out["error"]["message"]


def test_an_exception_in_on_item_complete_stops_the_run_and_names_the_item(tmp_path):
    data = [{"id": f"q{i}", "input": "q", "reference_context_ids": ["a"],
             "context": [{"id": "a", "text": "x"}]} for i in range(20)]  # fmt: skip

    def hook(result):
        if result.item.id == "q3":
            raise ValueError("my hook broke")

    path = tmp_path / "r.jsonl"
    with pytest.raises(ValueError, match="my hook broke") as caught:
        run_evals(data, [create_id_context_recall_scorer()], on_item_complete=hook,
                  results_path=path, progress=False, concurrency=2)  # fmt: skip
    notes = " ".join(getattr(caught.value, "__notes__", []))
    if hasattr(caught.value, "add_note"):
        assert "item 'q3'" in notes and "resume=True" in notes
    written = [json.loads(line)["item"]["id"] for line in path.read_text().splitlines()[1:]]
    assert "q3" in written
    again = run_evals(data, [create_id_context_recall_scorer()], results_path=path, resume=True,
                      progress=False)  # fmt: skip
    assert len(again.items) == 20
