"""Defects a newcomer met (issue 25): outputs that survive failures, folders that are
created, a report whose data cannot break out of its block, a CLI that stays quiet in a
pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evals import read_results, run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import create_id_context_recall_scorer, load_qrels, write_qrels

ITEMS = [
    {
        "id": "q1",
        "input": "Where was Einstein born?",
        "ground_truth": "Einstein was born in Ulm.",
        "context": [{"id": "d1", "text": "Einstein was born in Ulm in 1879."}],
        "reference_context_ids": ["d1"],
    }
]

# payloads of the usual XSS lists, for the data block of the report
XSS = [
    "<!--<script>",
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "]]><!--",
    "\u2028\u2029 line separators",
    "&lt;escaped&gt; & raw",
    "<svg/onload=alert(1)>",
    '"><script>alert(String.fromCharCode(88,83,83))</script>',
]


def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ITEMS))
    return path


def test_a_judge_qrels_run_that_fails_on_every_pair_keeps_the_qrels_file(tmp_path, monkeypatch):
    out = tmp_path / "qrels.txt"
    write_qrels(out, {"q1": {"d1": 3.0}})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        server.handler = lambda request: {"grade": 7}  # out of range, twice: every pair fails
        args = ["judge-qrels", str(data_file(tmp_path)), "-o", str(out), "--graded", "--update"]
        code = main(
            [*args, "--model", "openai/f", "--api-base", server.url, "--no-cache", "--no-progress"]
        )
    assert code == 3
    assert load_qrels(out) == {"q1": {"d1": 3.0}}  # before: an empty file


def test_a_partly_failing_judge_qrels_run_keeps_earlier_judgements(tmp_path, monkeypatch):
    out = tmp_path / "deep" / "er" / "qrels.txt"  # missing folders are created
    out.parent.mkdir(parents=True)
    write_qrels(out, {"q0": {"x": 1.0}})
    items = [*ITEMS, {**ITEMS[0], "id": "q2", "context": [{"id": "d2", "text": "Ulm."}]}]
    data = tmp_path / "two.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in items))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        server.handler = lambda r: {"grade": 2} if "1879" in json.dumps(r.body) else {"grade": 9}
        code = main(
            [
                "judge-qrels",
                str(data),
                "-o",
                str(out),
                "--graded",
                "--update",
                "--model",
                "openai/f",
                "--api-base",
                server.url,
                "--no-cache",
                "--no-progress",
            ]
        )
    assert code == 3
    assert load_qrels(out) == {"q0": {"x": 1.0}, "q1": {"d1": 2.0}}


def test_write_qrels_never_leaves_a_half_written_file(tmp_path):
    out = tmp_path / "qrels.txt"
    write_qrels(out, {"q1": {"d1": 1.0}})

    class Grade:
        def __float__(self) -> float:
            raise RuntimeError("a grade that cannot be written")

    try:
        write_qrels(out, {"q2": {"d2": Grade()}, "q1": {"d1": 1.0}})  # type: ignore[dict-item]
    except RuntimeError:
        pass
    assert load_qrels(out) == {"q1": {"d1": 1.0}}
    assert [p.name for p in tmp_path.iterdir()] == ["qrels.txt"]  # no temporary left


def test_calibrate_creates_the_folder_prints_first_and_names_each_models_file(
    tmp_path, monkeypatch, capsys
):
    rows = tmp_path / "labels.jsonl"
    rows.write_text(
        json.dumps(
            {
                "claim": "Einstein was born in Ulm.",
                "context": ["He was born in Ulm."],
                "label": "supported",
            }
        )
        + "\n"
        + json.dumps(
            {"claim": "He played chess.", "context": ["He was born in Ulm."], "label": "supported"}
        )
        + "\n"
    )
    out = tmp_path / "runs" / "x.jsonl"  # runs/ does not exist
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        args = ["calibrate", str(rows), "--api-base", server.url, "--no-cache"]
        args += ["--model", "openai/a", "--model", "openai/b", "--disagreements", str(out)]
        assert main(args) == 0
    captured = capsys.readouterr()
    assert "accuracy" in captured.out.lower()
    first, second = out.with_name("x.0.jsonl"), out.with_name("x.1.jsonl")
    assert first.exists() and second.exists()
    assert f"of openai/a in {first}" in captured.err and f"of openai/b in {second}" in captured.err


def test_merge_writes_its_file_whole_or_not_at_all(tmp_path, monkeypatch):
    import evals._file._jsonl as jsonl

    a = tmp_path / "a.jsonl"
    rows = [ITEMS[0], {**ITEMS[0], "id": "q2"}]
    run_evals(rows, [create_id_context_recall_scorer()], results_path=a, progress=False)
    out = tmp_path / "new" / "merged.jsonl"
    assert main(["merge", str(out), str(a)]) == 0
    assert [r.item.id for r in read_results(out)] == ["q1", "q2"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["merged.jsonl"]

    encode, seen = jsonl.encode, []

    def failing(result, store_prompts=True):
        seen.append(result)
        if len(seen) == 2:
            raise OSError(28, "No space left on device")
        return encode(result, store_prompts)

    monkeypatch.setattr(jsonl, "encode", failing)
    broken = tmp_path / "broken.jsonl"
    try:
        main(["merge", str(broken), str(a)])
    except OSError:
        pass
    assert not broken.exists()  # before: a file holding the first item only


def test_the_reports_data_block_holds_no_markup_whatever_the_data(tmp_path):
    rows = [
        {
            "id": f"x{i}",
            "input": payload,
            "ground_truth": payload,
            "context": [{"id": "a", "text": payload}],
            "reference_context_ids": ["a"],
            "metadata": {"note": payload},
        }
        for i, payload in enumerate(XSS)
    ]
    result = run_evals(rows, [create_id_context_recall_scorer()], progress=False)
    page = result.to_html(tmp_path / "report.html").read_text()
    block = re.search(
        r"<script type='application/json' id='report-data'>(.*?)</script>", page, re.S
    )
    assert block is not None
    text = block.group(1)
    assert not set("<>&\u2028\u2029") & set(text)
    parsed = json.loads(text)
    assert [item["input"] for item in parsed["items"]] == XSS  # restored exactly


@pytest.mark.slow
def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(300)))
    run.write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(300)))
    command = [sys.executable, "-m", "evals.cli", "trec", str(qrels), str(run), "-q"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_an_empty_data_file_fails_the_run_unless_allowed(tmp_path, capsys):
    empty = tmp_path / "items.jsonl"
    empty.write_text("\n")
    assert main(["run", str(empty), "--scorer", "mrr", "--no-progress"]) == 2
    assert f"no items in {empty}" in capsys.readouterr().err  # before: "items 0", exit 0
    assert main(["run", str(empty), "--scorer", "mrr", "--allow-empty", "--no-progress"]) == 0


def test_a_summary_rebuilt_from_results_files_equals_the_runs(tmp_path, capsys):
    from evals import merge_results, summarize

    rows = [
        {
            "id": f"q{i}",
            "input": "q",
            "context": [{"id": "d1", "text": "x"}],
            "reference_context_ids": ["d1" if i != 3 else "d9"],
        }
        for i in range(4)
    ]  # scores 1, 1, 1, 0: the t interval reaches past [0, 1] unless clipped
    scorers = [create_id_context_recall_scorer(), create_id_context_recall_scorer({"scale": 10})]
    named = {"recall": scorers[0], "recall10": scorers[1]}
    whole = run_evals(rows, named, progress=False).summary
    parts = [tmp_path / f"s{i}.jsonl" for i in range(2)]
    for i, path in enumerate(parts):
        run_evals(rows, named, results_path=path, shard=(i, 2), progress=False)
    merged = merge_results(tmp_path / "all.jsonl", *parts)
    rebuilt = summarize(merged, list(named), 0.0)
    for sid in named:
        a, b = whole.scorers[sid], rebuilt.scorers[sid]
        assert (b.mean, b.ci_low, b.ci_high) == (a.mean, a.ci_low, a.ci_high)
    assert whole.scorers["recall"].ci_high == 1.0 and whole.scorers["recall10"].ci_high == 10.0
    assert main(["merge", str(tmp_path / "again.jsonl"), *map(str, parts)]) == 0
    table = capsys.readouterr().out
    assert "[0.000, 1.000]" in table and "-0.000" not in table and " 0.00 s" not in table
    assert "wall time not recorded" in table


def nested(levels: int) -> object:
    value: object = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


def test_deep_nesting_is_a_dataset_error_before_any_work(tmp_path, capsys):
    from scorers import DatasetError

    seen = []
    for levels, field in ((300, "metadata"), (150, "input"), (2000, "metadata")):
        row = {
            "id": "deep",
            "input": "q",
            "context": [{"id": "d1", "text": "x"}],
            "reference_context_ids": ["d1"],
        }
        row[field] = nested(levels)
        rows = [ITEMS[0], row]
        try:
            run_evals(
                rows,
                [create_id_context_recall_scorer()],
                on_item_complete=seen.append,
                progress=False,
            )
        except DatasetError as exc:
            assert "item 2" in str(exc) and "levels deep" in str(exc)
        else:
            raise AssertionError("a row nested too deeply was accepted")
    assert seen == []  # nothing ran (before: item 1 ran, then writing the row failed)
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(ITEMS[0]) + "\n" + '{"input": ' + "[" * 1500 + "]" * 1500 + "}\n")
    assert main(["run", str(path), "--scorer", "mrr", "--no-progress"]) == 2
    assert "deep.jsonl line 2" in capsys.readouterr().err  # before: a bare RecursionError
    assert (
        run_evals(
            [{**ITEMS[0], "metadata": nested(90)}],
            [create_id_context_recall_scorer()],
            results_path=tmp_path / "ok.jsonl",
            progress=False,
        ).summary.item_errors
        == 0
    )


def test_every_bad_row_is_named_in_one_error(tmp_path):
    from evals import load_dataset
    from scorers import DatasetError

    lines = [json.dumps({"id": f"ok{i}", "input": "q"}) for i in range(3)]
    lines[1] = '{"input": "q", "bad json'
    lines += [json.dumps({"id": "ok0", "input": "duplicate"})]
    lines += [json.dumps({"input": "q", "ground_truth": ["not", "text"]}) for _ in range(25)]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    try:
        load_dataset(path)
    except DatasetError as exc:
        message = str(exc)
    else:
        raise AssertionError("bad rows were accepted")
    assert message.startswith("27 rows cannot be used")  # before: only line 2
    assert "items.jsonl line 2: invalid JSON" in message
    assert "items.jsonl line 4: duplicate id 'ok0'" in message
    assert "items.jsonl line 5: " in message and "... and 7 more" in message


def test_a_json_array_in_a_jsonl_file_gets_a_hint(tmp_path):
    from evals import load_dataset
    from scorers import DatasetError

    pretty = tmp_path / "items.jsonl"
    pretty.write_text('[\n  {"input": "q"}\n]\n')
    one_line = tmp_path / "one.jsonl"
    one_line.write_text('[{"input": "q"}, {"input": "r"}]\n')
    for path, hint in (
        (pretty, "name the file items.json"),
        (one_line, "one JSON object per line"),
    ):
        try:
            load_dataset(path)
        except DatasetError as exc:
            assert hint in str(exc), str(exc)
        else:
            raise AssertionError("an array was read as rows")


def test_numbers_are_numbers_and_thresholds_lie_within_the_scale():
    import pytest

    from scorers import ConfigError

    for bad in (True, "2"):
        with pytest.raises(ConfigError, match="scale"):
            create_id_context_recall_scorer({"scale": bad})  # before: read as 1 and 2
    assert create_id_context_recall_scorer({"scale": 2}).scale == 2.0
    scorer = create_id_context_recall_scorer({"scale": 10})
    with pytest.raises(ConfigError, match=r"outside the scorer's scores \[0, 10\]"):
        run_evals(ITEMS, [scorer], thresholds={"id-context-recall": 11}, progress=False)
    with pytest.raises(ConfigError, match="outside"):
        run_evals(ITEMS, [scorer], thresholds={"id-context-recall": -0.5}, progress=False)
    assert run_evals(ITEMS, [scorer], thresholds={"id-context-recall": 7}, progress=False).passed


def test_numbers_in_text_fields_follow_one_rule():
    """A number where a text is expected is its text, in every text field; a boolean or
    NaN is refused. Before: ``{"text": 12345}`` became "12345" while a numeric
    ``ground_truth`` and a bare number in ``context`` were refused."""
    import pytest

    from evals import load_dataset
    from scorers import DatasetError, ScorerRun

    row = {
        "input": "When was Einstein born?",
        "ground_truth": 1879,
        "claims": [1879, "in Ulm"],
        "context": [1879, {"text": 12345}, 2.5],
        "reference_contexts": [1879],
    }
    item = load_dataset([row])[0]
    assert item.ground_truth == "1879" and item.claims == ["1879", "in Ulm"]
    assert [c.text for c in item.context] == ["1879", "12345", "2.5"]
    assert item.reference_contexts == ["1879"]
    assert ScorerRun(ground_truth=1879).ground_truth == "1879"
    for field, value in [("ground_truth", True), ("context", [False]), ("claims", [True])]:
        with pytest.raises(DatasetError, match=f"field '{field}.*boolean, not a text"):
            load_dataset([{"input": "q", field: value}])
    from scorers import create_non_llm_context_recall_scorer

    result = run_evals([row], [create_non_llm_context_recall_scorer()], progress=False)
    assert result.scores == {"non-llm-context-recall": 1.0}  # "1879" retrieved as "1879"


def test_a_model_string_litellm_cannot_route_stops_the_run_as_a_setup_error(tmp_path, capsys):
    data = data_file(tmp_path)
    with FakeLLMServer() as server:
        args = ["run", str(data), "--scorer", "context-recall", "--model", "llama3.1"]
        code = main([*args, "--api-base", server.url, "--no-cache", "--no-progress"])
        assert server.call_count == 0
    err = capsys.readouterr().err
    assert code == 2  # before: every item "HTTP 400", exit 3
    assert "llama3.1" in err and "provider as a prefix" in err and "ollama/llama3.1" in err


def test_cli_errors_name_the_flags_not_python_keywords(tmp_path, capsys, monkeypatch):
    """Issue 25 item 16: the CLI said ``Judge(..., input_cost_per_token=...)`` and
    ``Judge(api_key=...)``; it now names ``--option judge.…`` and its own flags."""
    data = data_file(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeLLMServer() as server:
        base = ["run", str(data), "--scorer", "context-recall", "--api-base", server.url]
        base += ["--no-cache", "--no-progress"]
        code = main(
            [
                *base,
                "--model",
                "openai/unpriced-x",
                "--max-cost",
                "1",
                "--option",
                "judge.api_key=sk-fake",
            ]
        )
        err = capsys.readouterr().err
        assert code == 2
        assert "--option judge.input_cost_per_token=1.5e-7 --option" in err
        assert "Judge(" not in err and "--max-cost needs the price" in err
    with FakeLLMServer(latency=0.5) as server:
        slow = ["run", str(data), "--scorer", "context-recall", "--api-base", server.url]
        slow += ["--model", "openai/x", "--no-cache", "--no-progress", "--option"]
        assert main([*slow, "judge.timeout=0.05", "--option", "judge.max_retries=0"]) == 3
        err = capsys.readouterr().err
        assert "Raise --option judge.timeout=... or" in err and "Judge(" not in err
    out = tmp_path / "r.jsonl"
    out.write_text("{}\n")
    assert main(["run", str(data), "--scorer", "mrr", "--out", str(out)]) == 2
    assert "add --resume" in capsys.readouterr().err


def test_pydantics_value_error_prefix_stays_out_of_messages():
    import pytest

    from scorers import ConfigError, create_non_llm_context_recall_scorer

    with pytest.raises(ConfigError) as info:
        create_non_llm_context_recall_scorer({"measure": "cosine"})
    assert "unknown measure 'cosine'" in str(info.value)
    assert "Value error" not in str(info.value)  # before: "option 'measure': Value error, ..."


FRESH = """
import importlib.abc
import sys
import time


class SlowLitellm(importlib.abc.MetaPathFinder):
    # running litellm's package made longer than every timeout below, whatever the
    # machine's load: charged to a call or an item, it would fail them
    def find_spec(self, name, path, target=None):
        if name != "litellm":
            return None
        others = [f for f in sys.meta_path if f is not self and hasattr(f, "find_spec")]
        spec = next(filter(None, (f.find_spec(name, path, target) for f in others)), None)
        if spec is not None:
            run = spec.loader.exec_module
            spec.loader.exec_module = lambda module: (time.sleep(5), run(module))
        return spec


sys.meta_path.insert(0, SlowLitellm())
from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import Judge, create_context_precision_scorer

assert "litellm" not in sys.modules
rows = [{"id": str(i), "input": "q", "ground_truth": "Einstein was born in Ulm.",
         "context": ["Einstein was born in Ulm."]} for i in range(8)]
with FakeLLMServer(latency=0.05) as server:
    judge = Judge("openai/fake", api_base=server.url, cache=False, timeout=3.0, max_retries=0)
    result = run_evals(rows, [create_context_precision_scorer(judge)], item_timeout=4.5,
                       concurrency=8, progress=False)
    print(result.summary.item_errors, result.summary.model_calls, server.call_count)
"""


@pytest.mark.slow
def test_litellms_import_is_not_charged_to_the_first_calls(tmp_path):
    script = tmp_path / "fresh.py"
    script.write_text(FRESH)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors, counted, received = map(int, proc.stdout.split())
    assert errors == 0  # before: the first items timed out while litellm imported
    assert counted == received == 8  # before: requests counted that were never sent


@pytest.mark.slow
def test_litellms_import_is_not_charged_to_the_first_call_under_a_budget(tmp_path):
    script = tmp_path / "fresh_budget.py"
    script.write_text(
        FRESH.replace('Judge("openai/fake"', 'Judge("openai/gpt-4o-mini"').replace(
            "progress=False)", "progress=False, max_cost=1.0)"
        )
    )  # a budget prices and counts the first request before it leaves: no import there
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors, counted, received = map(int, proc.stdout.split())
    assert errors == 0  # before: the first item timed out while the budget imported litellm
    assert counted == received == 8
