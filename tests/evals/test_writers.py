"""No writer replaces a file that scorekit did not write (issue 45, item 1).

Each test puts a user's own file where a command writes, runs the command, and checks
that the file is byte for byte what it was and that the message names a way out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import run_evals
from evals.cli import main
from evals.quickstart import passages as quickstart_passages
from evals.testing import FakeLLMServer
from scorers import ConfigError, create_id_context_recall_scorer

HAND = b'{"id": "h1", "input": "hand-labelled", "reference_context_ids": ["d1"]}\n'
PAGE = b"<!DOCTYPE html><html><body>my own page</body></html>"
ITEMS = [
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


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    texts = [p.text for p in quickstart_passages()]
    for i in range(0, 12, 3):
        (docs / f"part{i}.md").write_text("\n\n".join(texts[i : i + 3]) + "\n")
    return docs


def _results(tmp_path: Path, name: str = "run.jsonl") -> Path:
    path = tmp_path / name
    run_evals(ITEMS, [create_id_context_recall_scorer()], results_path=path, progress=False)
    return path


def test_synth_resume_never_replaces_a_file_synthesis_did_not_write(tmp_path, monkeypatch, capsys):
    hand = tmp_path / "handmade.jsonl"
    hand.write_bytes(HAND * 2)
    with FakeLLMServer() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        args = ["synth", str(_docs(tmp_path)), "--model", "openai/m", "--api-base", fake.url]
        args += ["-n", "4", "--out", str(hand), "--progress", "none", "--no-cache"]
        assert main(args) == 2
        assert main([*args, "--resume"]) == 2
        assert fake.call_count == 0
    err = capsys.readouterr().err
    assert "handmade.jsonl.log does not: synthesize did not write it" in err
    assert "--out" in err and "out=" not in err
    assert hand.read_bytes() == HAND * 2
    assert not (tmp_path / "handmade.jsonl.log").exists()


def test_synth_passages_replace_only_the_same_passages(tmp_path, monkeypatch, capsys):
    docs = _docs(tmp_path)
    passages = tmp_path / "passages.jsonl"
    passages.write_bytes(HAND)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    base = ["synth", str(docs), "--model", "openai/m", "-n", "2", "--estimate"]
    assert main([*base, "--passages", str(passages)]) == 2
    assert passages.read_bytes() == HAND
    assert "passages file that scorekit wrote" in capsys.readouterr().err
    fresh = tmp_path / "fresh.jsonl"
    assert main([*base, "--passages", str(fresh)]) == 0
    assert main([*base, "--passages", str(fresh)]) == 0  # the same passages again


@pytest.mark.parametrize("last_newline", [True, False])
def test_run_resume_never_appends_to_or_cuts_a_file_it_did_not_write(tmp_path, last_newline):
    data = tmp_path / "labelled.jsonl"
    content = HAND if last_newline else HAND.rstrip(b"\n")
    data.write_bytes(content)
    with pytest.raises(ConfigError, match="was not written by scorekit"):
        run_evals(ITEMS, [create_id_context_recall_scorer()], results_path=data, resume=True)
    assert data.read_bytes() == content


def test_run_resume_goes_on_with_its_own_file(tmp_path):
    path = _results(tmp_path)
    more = [*ITEMS, {**ITEMS[0], "id": "q3"}]
    result = run_evals(more, [create_id_context_recall_scorer()], results_path=path, resume=True)
    assert [i.item.id for i in result.items] == ["q1", "q2", "q3"]


def test_report_and_compare_pages_replace_only_scorekit_pages(tmp_path, capsys):
    run = _results(tmp_path)
    base = _results(tmp_path, "base.jsonl")
    page = tmp_path / "index.html"
    page.write_bytes(PAGE)
    assert main(["report", str(run), "-o", str(page)]) == 2
    assert main(["compare", str(base), str(run), str(run), "--html", str(page)]) == 2
    assert page.read_bytes() == PAGE
    assert "is not a report page that scorekit wrote" in capsys.readouterr().err
    ours = tmp_path / "ours.html"
    assert main(["report", str(run), "-o", str(ours)]) == 0
    assert main(["report", str(run), "-o", str(ours)]) == 0  # its own page: replaced
    assert main(["compare", str(base), str(run), str(run), "--html", str(ours)]) == 0


def test_judge_qrels_updates_an_existing_file_only_when_asked(tmp_path, monkeypatch, capsys):
    data = tmp_path / "items.jsonl"
    row = {"id": "q1", "input": "Where was Einstein born?", "ground_truth": "In Ulm."}
    data.write_text(json.dumps({**row, "context": [{"id": "d1", "text": "He was born in Ulm."}]}))
    out = tmp_path / "qrels.txt"
    out.write_text("q9 0 x 2\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        args = ["judge-qrels", str(data), "-o", str(out), "--model", "openai/f"]
        args += ["--api-base", server.url, "--no-cache", "--no-progress"]
        assert main(args) == 2
        assert server.call_count == 0
        assert "Pass --update" in capsys.readouterr().err
        assert out.read_text() == "q9 0 x 2\n"
        assert main([*args, "--update"]) == 0
    assert out.read_text().splitlines() == ["q9 0 x 2", "q1 0 d1 1"]


def test_merge_and_calibrate_keep_existing_files(tmp_path, monkeypatch, capsys):
    run = _results(tmp_path)
    mine = tmp_path / "mine.jsonl"
    mine.write_bytes(HAND)
    assert main(["merge", str(mine), str(run)]) == 2
    assert mine.read_bytes() == HAND
    rows = tmp_path / "labels.jsonl"
    rows.write_text(
        json.dumps({"claim": "Bees speak Latin.", "context": ["Paris."], "label": "supported"})
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        args = ["calibrate", str(rows), "--scorer", "context-recall", "--model", "openai/j"]
        args += ["--api-base", server.url, "--no-cache", "--disagreements", str(mine)]
        assert main(args) == 2
        assert mine.read_bytes() == HAND
        fresh = tmp_path / "disagreements.jsonl"
        args[-1] = str(fresh)
        assert main(args) == 0 and main(args) == 0  # its own file: replaced
    assert "is not a disagreements file that scorekit wrote" in capsys.readouterr().err


def test_a_page_of_an_earlier_version_is_replaced_a_look_alike_is_not(tmp_path):
    from evals._pages._page import asset

    run = _results(tmp_path)
    earlier = tmp_path / "earlier.html"
    earlier.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>scorekit report"
        f"</title><style>{asset('report.css')}</style></head><body>old</body></html>"
    )
    assert main(["report", str(run), "-o", str(earlier)]) == 0  # before the mark: still ours
    assert "generator" in earlier.read_text()
    look_alike = tmp_path / "mine.html"
    look_alike.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>mine</title>"
        "<style>body{color:red}</style></head><body>mine</body></html>"
    )
    assert main(["report", str(run), "-o", str(look_alike)]) == 2
    assert "mine</body>" in look_alike.read_text()
