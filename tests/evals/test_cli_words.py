"""On the command line, messages name flags, never Python keywords (issue 45, item 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.cli import main
from evals.cli._spelling import PHRASES, for_cli

ROOT = Path(__file__).resolve().parents[2]
PYTHON_WORDS = re.compile(
    r"resume=True|context=\[|Chunk\(|run_evals\(|to run\(\)|results_path|context_extractor=fn"
)


def test_every_phrase_the_cli_rewrites_is_in_a_message_of_the_code():
    code = "".join(
        " ".join(path.read_text().split())
        for package in ("scorers", "evals")
        for path in (ROOT / package).rglob("*.py")
        if "cli" not in path.parts
    )
    flat = re.sub(r'"\s*"', "", code)  # adjacent string literals joined, as Python does
    for phrase in PHRASES:
        assert phrase in flat, phrase


def _run(tmp_path: Path, rows: list[dict], *args: str) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    main(["run", str(data), "--progress", "none", *args])


CASES = {
    "no context": ([{"id": "q1", "input": "q", "reference_context_ids": ["d1"]}], []),
    "chunks without ids": (
        [{"id": "q1", "input": "q", "context": ["a"], "reference_context_ids": ["d1"]}],
        [],
    ),
    "not a results file to resume": (
        [
            {
                "id": "q1",
                "input": "q",
                "context": [{"id": "d1", "text": "a"}],
                "reference_context_ids": ["d1"],
            }
        ],
        ["--resume", "--out", "{hand}"],
    ),
    "an existing results file": (
        [
            {
                "id": "q1",
                "input": "q",
                "context": [{"id": "d1", "text": "a"}],
                "reference_context_ids": ["d1"],
            }
        ],
        ["--out", "{hand}"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_messages_name_flags(case, tmp_path, capsys):
    rows, extra = CASES[case]
    hand = tmp_path / "hand.jsonl"
    hand.write_text('{"my": "labels"}\n')
    args = [a.replace("{hand}", str(hand)) for a in extra]
    _run(tmp_path, rows, "--scorer", "id-context-recall", *args)
    err = capsys.readouterr().err
    assert err.strip(), "the case prints a message"
    assert not PYTHON_WORDS.search(err), err


def test_synth_messages_name_flags(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Albert Einstein was born in Ulm in the German Empire in 1879.\n")
    out = tmp_path / "rows.jsonl"
    out.write_text("")
    (tmp_path / "rows.jsonl.log").write_text("")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    assert main(["synth", str(docs), "--model", "openai/m", "-n", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pass --resume to continue that run" in err and not PYTHON_WORDS.search(err)


def test_for_cli_keeps_python_free_messages_as_they_are():
    text = "retrieved chunk #1 has no id"
    assert for_cli(text) == text
    assert for_cli("pass resume=True (CLI: --resume) now") == "pass --resume now"


def test_run_help_lists_every_data_format(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert ".jsonl, .json, .csv or .parquet" in capsys.readouterr().out
