"""One file, one configuration: a resume never mixes two, and readers refuse a file that
does (issue 34, item 6)."""

from __future__ import annotations

import pytest

from evals import merge_results, read_results, run_evals
from evals.cli import main
from scorers import ConfigError, create_id_context_recall_scorer

DATA = [
    {
        "id": f"q{i}",
        "input": "q",
        "reference_context_ids": ["a"],
        "context": [{"id": "a" if i % 2 else "b", "text": "x"}],
    }
    for i in range(4)
]


def recall(scale=1):
    return [create_id_context_recall_scorer({"scale": scale})]


def test_resuming_part_of_a_file_under_another_scale_is_refused_before_writing(tmp_path):
    path = tmp_path / "r.jsonl"
    run_evals(DATA[:2], recall(), results_path=path, progress=False)
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"id-context-recall: scale 1 vs 100 \(2 items\)"):
        run_evals(DATA[2:], recall(100), results_path=path, resume=True, progress=False)
    assert path.read_bytes() == before  # not even a header was added
    again = run_evals(DATA, recall(100), results_path=path, resume=True, progress=False)
    assert again.summary.rescored_for_config == 2
    items = read_results(path)
    assert {item.scales.get("id-context-recall") for item in items} == {100.0}
    assert again.scores == {"id-context-recall": 50.0}


def test_a_file_of_two_configurations_is_refused_by_every_reader(tmp_path, capsys):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_evals(DATA[:2], recall(), results_path=one, progress=False)
    run_evals(DATA[2:], recall(100), results_path=two, progress=False)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(one.read_bytes() + two.read_bytes())  # e.g. `cat one two > mixed`
    says = r"id-context-recall: scale 1 vs 100 \(2 vs 2 items\)"
    with pytest.raises(ConfigError, match=says):
        read_results(mixed)
    assert len(read_results(mixed, mixed=True)) == 4
    with pytest.raises(ConfigError, match=says):
        merge_results(tmp_path / "merged.jsonl", mixed)
    assert main(["report", str(mixed), "-o", str(tmp_path / "r.html")]) == 2
    assert "scale 1 vs 100" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_one_configuration_resumed_reads_as_before(tmp_path):
    path = tmp_path / "r.jsonl"
    run_evals(DATA[:2], recall(), results_path=path, progress=False)
    run_evals(DATA, recall(), results_path=path, resume=True, progress=False)
    assert len(read_results(path)) == 4
