"""The HTML report, loaded in headless Chromium (Debian's package; `.ci/run` installs it)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from evals import run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import (
    create_context_precision_scorer,
    create_context_recall_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_ranking_scorer,
)

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="headless Chromium not installed (apt-get install -y chromium)"
)

ROW = re.compile(r'<tr class="item-row[^"]*" data-id="(?!\$)')
ITEMS = [
    {
        "id": f"q{i}",
        "input": f"Where was Einstein born? ({i})",
        "ground_truth": "Einstein was born in Ulm. He liked sailing.",
        "context": [
            {"id": "a", "text": "Einstein was born in Ulm in 1879."},
            {"id": "b", "text": "Paris is in France. </script><b>not markup</b>"},
        ],
        "reference_contexts": ["Einstein was born in Ulm."],
    }
    for i in range(5)
]


def target(question: str):
    if question.endswith("(4)"):
        raise RuntimeError("index offline")
    return {"output": "Ulm", "context": ITEMS[0]["context"]}


def load(page: Path, fragment: str = "") -> tuple[str, str]:
    """The DOM after the page's scripts ran, and the browser's log."""
    assert BROWSER is not None
    proc = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.resolve().as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    with FakeLLMServer() as server:
        judge = server.judge()
        scorers = [
            create_context_recall_scorer(judge),
            create_context_precision_scorer(judge),
            create_non_llm_context_precision_scorer(),
        ]
        base = run_evals(ITEMS[:4], scorers, target, results_path=folder / "base.jsonl")
        cand = run_evals(ITEMS, scorers, target, results_path=folder / "cand.jsonl")
    return folder, base, cand


@pytest.mark.slow
@needs_browser
def test_the_report_loads_with_no_errors_and_shows_every_part(runs):
    folder, base, cand = runs
    page = cand.to_html(folder / "report.html", baseline=base)
    text = page.read_text()
    assert (
        "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    )
    dom, log = load(page, "#item=q1")
    assert 'data-ready="yes"' in dom and "data-errors" not in dom
    assert "Uncaught" not in log
    assert len(ROW.findall(dom)) == 5  # rows drawn by the page's script
    assert "<svg" in dom and 'id="summary"' in dom and 'id="comparison"' in dom
    view = dom[dom.index('id="view"') :]
    assert "Item q1" in view and "Claims" in view
    assert 'class="claim yes"' in view and 'class="claim no"' in view
    assert 'class="chunk yes"' in view and 'class="chunk no"' in view
    assert "judge call(s): prompts and raw responses" in view
    assert "&lt;b&gt;not markup&lt;/b&gt;" in view  # data is text, never markup
    errored, _ = load(page, "#item=q4")
    assert "Error (target)" in errored and "index offline" in errored


@pytest.mark.slow
@needs_browser
def test_scorekit_report_command_and_ten_thousand_items(runs, tmp_path, capsys):
    folder, _, _ = runs
    out = tmp_path / "cli.html"
    assert (
        main(
            [
                "report",
                str(folder / "cand.jsonl"),
                "-o",
                str(out),
                "--compare",
                str(folder / "base.jsonl"),
            ]
        )
        == 0
    )
    assert "wrote" in capsys.readouterr().out and out.exists()
    assert 'data-ready="yes"' in load(out)[0]

    rows = [
        {
            "id": str(i),
            "input": f"question {i}",
            "context": [{"id": str(i % 7), "text": "t"}],
            "reference_context_ids": [str(i % 3)],
        }
        for i in range(10_000)
    ]
    big = run_evals(rows, [create_id_context_recall_scorer()], progress=False)
    page = big.to_html(tmp_path / "big.html")
    dom, log = load(page)
    assert 'data-ready="yes"' in dom and "Uncaught" not in log
    assert len(ROW.findall(dom)) == 100  # one page at a time
    assert re.search(r"10000 items · page 1 of 100", dom)


def test_report_errors(tmp_path, capsys):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"input": "q"}) + "\n")
    assert main(["report", str(data)]) == 2
    assert "is not a scorekit results file" in capsys.readouterr().err


@pytest.mark.slow
@needs_browser
def test_data_that_looks_like_markup_cannot_stop_the_pages_script(tmp_path):
    from scorers import create_id_context_recall_scorer

    from .test_first_contact import XSS

    rows = [
        {
            "id": f"x{i}",
            "input": payload,
            "context": [{"id": "a", "text": payload}],
            "reference_context_ids": ["a"],
        }
        for i, payload in enumerate(XSS)
    ]
    result = run_evals(rows, [create_id_context_recall_scorer()], progress=False)
    page = result.to_html(tmp_path / "xss.html")
    dom, log = load(page, "#item=x0")
    assert 'data-ready="yes"' in dom and "data-errors" not in dom  # before: the script never ran
    assert "Uncaught" not in log
    assert len(ROW.findall(dom)) == len(XSS)
    assert "&lt;!--&lt;script&gt;" in dom[dom.index('id="view"') :]  # shown as text


def _view(dom: str) -> str:
    """The item view's part of the DOM (not the data block after it)."""
    start = dom.index('id="view"')
    return dom[start : dom.index("<script", start)]


def _with_script(page: Path, script: str) -> Path:
    """A copy of ``page`` that runs ``script`` once the report is ready (the test's own
    stand-in for a user clicking and editing the address bar)."""
    copy = page.with_name(page.stem + "-driven.html")
    copy.write_text(page.read_text().replace("</body>", f"<script>{script}</script></body>"))
    return copy


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """A run that failed its threshold, with item bars, metadata, gold ids, a failed
    retrieval and a baseline."""
    folder = tmp_path_factory.mktemp("gated")
    rows = [
        {**row, "metadata": {"topic": f"physics-{i}"}, "reference_context_ids": ["a"]}
        for i, row in enumerate(ITEMS)
    ]
    with FakeLLMServer() as server:
        scorers = [create_context_recall_scorer(server.judge()), create_id_context_recall_scorer()]
        options = {
            "thresholds": {"context-recall": 0.9},
            "item_thresholds": {"context-recall": 0.75, "id-context-recall": 1.0},
        }
        base = run_evals(rows[:4], scorers, target, **options)
        cand = run_evals(rows, scorers, target, results_path=folder / "cand.jsonl", **options)
    return folder, base, cand


@pytest.mark.slow
@needs_browser
def test_the_report_says_which_items_failed_and_why(gated, tmp_path):
    folder, base, cand = gated
    assert cand.passed is False  # recall: half the claims of each item are in the chunks
    page = cand.to_html(folder / "gated.html", baseline=base)
    dom, log = load(page)
    assert "Uncaught" not in log and "data-errors" not in dom
    banner = dom[dom.index('id="banner"') : dom.index("</div>", dom.index('id="banner"'))]
    assert "FAILED: 1 of 1 thresholds" in banner and "context-recall: threshold 0.9" in banner
    assert "mean 0.500 &lt; 0.9" in banner
    start = dom.index('id="items-head"')
    head = dom[start : dom.index("</thead>", start)]
    assert head.count('class="sort"') == 1 + 2 * 2  # id, each scorer and its change
    assert "Δ context-recall" in head
    assert dom.count('class="badge st-failed"') == 4  # recall 0.5 < 0.75 on q0..q3
    assert dom.count('class="badge st-passed"') == 4  # id recall 1.0 on q0..q3
    assert 'class="score band-mid"' in dom and 'class="score band-hi"' in dom
    # the file read back gives the same banner
    assert main(["report", str(folder / "cand.jsonl"), "-o", str(tmp_path / "file.html")]) == 0
    assert "FAILED: 1 of 1 thresholds" in (tmp_path / "file.html").read_text()


@pytest.mark.slow
@needs_browser
def test_filters_and_the_item_view_follow_the_url(gated):
    folder, base, cand = gated
    page = cand.to_html(folder / "url.html", baseline=base)
    dom, _ = load(page, "#q=sailing&status=failed&scorer=context-recall")
    assert len(ROW.findall(dom)) == 4  # ground truth searched, failed recall only
    dom, _ = load(page, "#q=physics-2")  # metadata searched
    assert len(ROW.findall(dom)) == 1
    dom, _ = load(page, "#item=q1")
    view = _view(dom)
    assert "physics-1" in view and "Gold chunk ids" in view and 'class="badge gold"' in view
    assert view.count("<b>this run</b>") == 2 and view.count("<b>baseline</b>") == 2
    failed, _ = load(page, "#item=q4")
    view = _view(failed)
    assert "The retrieval failed" in view and "Einstein was born in Ulm in 1879." not in view
    driven = _with_script(
        page,
        "document.querySelector('tr.item-row[data-id=\"q2\"]').click();"
        "document.body.dataset.afterClick = location.hash;"
        "location.hash = 'item=q3';"
        "window.addEventListener('hashchange', () => { document.body.dataset.afterHash ="
        " document.querySelector('#view h2').textContent; });",
    )
    dom, log = load(driven)
    assert 'data-after-click="#item=q2"' in dom and 'data-after-hash="Item q3"' in dom
    assert "Uncaught" not in log


@pytest.mark.slow
@needs_browser
def test_a_screenshot_of_the_report(gated, tmp_path):
    folder, base, cand = gated
    page = cand.to_html(folder / "shot.html", baseline=base)
    shot = tmp_path / "report.png"  # kept with the test's artifacts
    assert BROWSER is not None
    proc = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={shot}", "--window-size=1280,900", "--virtual-time-budget=5000",
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


@pytest.mark.slow
@needs_browser
def test_slices_of_the_report_filter_the_items_and_follow_the_url(tmp_path):
    rows = [
        {
            "id": f"s{i}",
            "input": f"q{i}",
            "context": [{"id": "a", "text": "a"}],
            "reference_context_ids": ["a"] if i % 2 else ["b"],
            "metadata": {"topic": ["rivers", "dna", "rome"][i % 3], "flag": True},
        }
        for i in range(9)
    ]
    result = run_evals(rows, [create_id_context_recall_scorer()], progress="none")
    page = result.to_html(tmp_path / "slices.html")
    dom, log = load(page, "#slice=" + quote('["topic","dna"]'))
    assert "Uncaught" not in log and "data-errors" not in dom
    slices = dom[dom.index("<h2>Slices</h2>") : dom.index("<h2>Items</h2>")]
    assert 'data-key="topic"' in slices and "flag" not in slices  # booleans not sliced
    assert slices.count("slice-link") == 3 and "n=3" in slices
    assert len(ROW.findall(dom)) == 3  # only dna's items
    assert 'data-id="s1"' in dom and 'data-id="s0"' not in dom.split("items-body")[1]
    driven = _with_script(
        page,
        "[...document.querySelectorAll('a.slice-link')]"
        ".find(a => a.textContent === 'rome').click();"
        "document.body.dataset.afterClick = location.hash;",
    )
    clicked, _ = load(driven)
    assert (
        f'data-after-click="#slice={quote_plus(json.dumps(["topic", "rome"]).replace(" ", ""))}"'
        in clicked
    )
    assert len(ROW.findall(clicked)) == 3


CLICK_EVERY_SLICE = """
const seen = [];
for (const a of document.querySelectorAll('a.slice-link')) {
  a.click();
  const stated = a.closest('tr').textContent.match(/n=(\\d+)/);
  seen.push([a.dataset.slice, stated ? Number(stated[1]) : null,
             document.querySelectorAll('tr.item-row').length]);
}
document.body.dataset.seen = JSON.stringify(seen);
"""


@pytest.mark.slow
@needs_browser
def test_every_slice_link_shows_the_n_its_table_states(tmp_path):
    """Keys holding ``=`` and named like JavaScript's object properties, values that read
    alike (``1`` and ``"1"``, ``"(missing)"`` and no value)."""
    teams = ["(missing)", None, 1, "1", 1.0, "a=b", "x", "x"]
    rows = []
    for i, team in enumerate(teams):
        metadata = {"k=v": "left" if i % 2 else "right=1", "toString": ["p", "q"][i % 2]}
        if team is not None:
            metadata["team"] = team
        if i < 3:
            metadata["constructor"] = "c"
            metadata["__proto__"] = str(i)
        rows.append({"id": f"t{i}", "input": "q", "context": [{"id": "a", "text": "a"}],
                     "reference_context_ids": ["a"], "metadata": metadata})  # fmt: skip
    result = run_evals(rows, [create_id_context_recall_scorer()], progress="none")
    page = result.to_html(tmp_path / "keys.html")
    dom, log = load(_with_script(page, CLICK_EVERY_SLICE))
    assert "Uncaught" not in log and "data-errors" not in dom
    seen = json.loads(html.unescape(re.search(r'data-seen="([^"]*)"', dom).group(1)))
    labels = {tuple(json.loads(link)) for link, _, _ in seen}
    assert {
        ("team", "(missing)"),
        ("team", '"(missing)"'),
        ("team", "1"),
        ("team", '"1"'),
    } <= labels
    assert {("k=v", "right=1"), ("constructor", "(missing)"), ("__proto__", '"0"')} <= labels
    assert all(stated == shown for _, stated, shown in seen), seen
    counts = {tuple(json.loads(link)): shown for link, _, shown in seen}
    assert counts[("team", "1")] == 2 and counts[("team", '"1"')] == 1
    assert counts[("team", "(missing)")] == 1 and counts[("constructor", "(missing)")] == 5


@pytest.mark.slow
@needs_browser
def test_the_run_line_the_errors_banner_and_ids_in_number_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a git repository made here: its HEAD is recorded
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text("0123456789abcdef0123456789abcdef01234567\n")
    rows = [
        {"id": str(i), "input": f"q{i}", "context": [{"id": "a", "text": "a"}],
         "reference_context_ids": ["a"]}
        for i in (10, 2, 1, 33)
    ]  # fmt: skip

    def flaky(question):
        if question == "q33":
            raise RuntimeError("index offline")
        return {"output": "x", "context": [{"id": "a", "text": "a"}]}

    result = run_evals(rows, [create_id_context_recall_scorer()], flaky, progress="none",
                       results_path=tmp_path / "r.jsonl")  # fmt: skip
    assert result.header.git_commit.startswith("0123456789ab") and result.header.created
    page = result.to_html(tmp_path / "errors.html")
    dom, _ = load(page)
    assert "git 0123456789ab" in dom and "scorekit " in dom  # the run line
    assert "1 of 4 items ended with an error" in dom  # before: no banner for an exit-3 run
    body = dom.split('id="items-body"')[1]
    assert [m for m in re.findall(r'data-id="(\d+)"', body)][:4] == ["1", "2", "10", "33"]


def _ranked(order):  # a retriever returning chunks in the given id order
    def target(question):
        return {"output": "x", "context": [{"id": d, "text": f"text {d}"} for d in order[question]]}

    return target


@pytest.mark.slow
@needs_browser
def test_regressions_the_rankings_side_by_side_and_the_export(tmp_path):
    rows = [{"id": f"r{i}", "input": f"q{i}", "reference_context_ids": ["g"]} for i in range(4)]
    base_order = {"q0": ["g", "x"], "q1": ["x", "g"], "q2": ["g", "x"], "q3": ["x", "y"]}
    cand_order = {"q0": ["x", "g"], "q1": ["g", "x"], "q2": ["x", "y"], "q3": ["x", "y"]}
    scorers = [create_ranking_scorer("mrr")]
    base = run_evals(rows, scorers, _ranked(base_order), progress="none")
    cand = run_evals(rows, scorers, _ranked(cand_order), progress="none")
    page = cand.to_html(tmp_path / "regress.html", baseline=base)
    dom, log = load(page, "#change=regressed")
    assert "Uncaught" not in log and "data-errors" not in dom
    body = dom.split('id="items-body"')[1]
    assert sorted(re.findall(r'data-id="(r\d)"', body)) == ["r0", "r2"]  # 1 -> 0.5, 1 -> 0
    dom, _ = load(page, "#change=improved")
    assert re.findall(r'data-id="(r\d)"', dom.split('id="items-body"')[1]) == ["r1"]
    dom, _ = load(page, "#item=r0")
    view = _view(dom)
    assert "up from" not in view and "down from #1" in view  # gold g: #1 -> #2
    dom, _ = load(page, "#item=r2")
    assert "dropped in this run" in _view(dom)  # gold g retrieved before, not now
    driven = _with_script(
        page,
        "document.body.dataset.csv = exportText('csv');"
        "document.body.dataset.json = String(JSON.parse(exportText('json')).length);",
    )
    dom, _ = load(driven, "#change=regressed")
    assert 'data-json="2"' in dom
    csv = re.search(r'data-csv="([^"]*)"', dom).group(1)
    assert csv.startswith("id,input,mrr,mrr status,delta mrr") and "r2,q2,0,scored,-1" in csv


EXPORT = (
    "document.body.dataset.csv = JSON.stringify(exportText('csv'));"
    "document.body.dataset.json = exportText('json');"
)


@pytest.mark.slow
@needs_browser
def test_the_csv_export_never_holds_a_formula(tmp_path):
    hostile = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR", "plain", "a,b"]
    rows = [
        {"id": text, "input": f"{text} input", "context": [{"id": "a", "text": "a"}],
         "reference_context_ids": ["a"] if i % 2 else ["b"]}
        for i, text in enumerate(hostile)
    ]  # fmt: skip
    result = run_evals(rows, [create_id_context_recall_scorer()], progress="none")
    dom, log = load(_with_script(result.to_html(tmp_path / "csv.html"), EXPORT))
    assert "Uncaught" not in log
    exported = json.loads(html.unescape(re.search(r'data-csv="([^"]*)"', dom).group(1)))
    import csv
    import io

    table = list(csv.reader(io.StringIO(exported)))
    assert table[0] == ["id", "input", "id-context-recall", "id-context-recall status"]
    cells = [cell for row in table[1:] for cell in row[:2]]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
    ids = sorted(row[0] for row in table[1:])
    assert ids == sorted("'" + t if t[0] in "=+-@\t\r" else t for t in hostile)
    assert {row[2] for row in table[1:]} == {"0", "1"}  # numbers stay numbers
    as_json = json.loads(html.unescape(re.search(r'data-json="([^"]*)"', dom).group(1)))
    assert sorted(r["id"] for r in as_json) == sorted(hostile)  # JSON unchanged


@pytest.mark.slow
@needs_browser
def test_a_retrieval_without_an_answer_shows_no_answer_and_its_chunks(tmp_path):
    def retrieve_only(question: str) -> dict:
        return {"context": [{"id": "d1", "text": "Einstein was born in Ulm."}]}

    rows = [{"id": "r1", "input": "Where?", "reference_context_ids": ["d1"]}]
    result = run_evals(rows, [create_id_context_recall_scorer()], retrieve_only, progress="none")
    assert result.items[0].target_result.output is None  # before: the dict itself
    dom, log = load(result.to_html(tmp_path / "retrieval.html"), "#item=r1")
    assert "Uncaught" not in log
    assert "no answer returned" in dom and "{'context'" not in dom and "{&#39;context" not in dom
    assert "Einstein was born in Ulm." in dom
