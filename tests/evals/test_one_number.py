"""The same statistic for the same runs is the same number everywhere (issue 46, item 2)."""

from __future__ import annotations

import json
import re

from evals import compare_runs, run_evals
from evals.cli import main
from scorers import create_ranking_scorer


def _rows(flip: int) -> list[dict]:
    return [
        {"id": f"q{i}", "input": "q", "reference_context_ids": ["d1"],
         "context": [{"id": "d2" if i % flip == 0 else "d1", "text": "x"},
                     {"id": "d1" if i % flip == 0 else "d2", "text": "y"}]}
        for i in range(20)
    ]  # fmt: skip


def test_report_compare_and_json_give_the_same_numbers(tmp_path, capsys):
    scorers = [create_ranking_scorer("mrr")]
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(_rows(3), scorers, results_path=base, progress=False)
    run_evals(_rows(2), scorers, results_path=cand, progress=False)
    expected = compare_runs(base, cand).scorers["mrr"]
    assert main(["compare", str(base), str(cand), "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["scorers"]["mrr"]
    for field in ("delta", "ci_low", "ci_high", "p_t", "p_permutation", "p_bootstrap",
                  "bootstrap_low", "bootstrap_high", "permutation_low", "permutation_high",
                  "detectable"):  # fmt: skip
        assert shown[field] == getattr(expected, field), field
    assert main(["report", str(cand), "--compare", str(base), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    table = page[page.index("<table id='comparison'>") :]
    row = re.search(r"<tr><td>mrr</td>(.*?)</tr>", table).group(1)
    cells = re.findall(r"<td class='num'>([^<]*)</td>", row)
    assert cells[4] == f"{expected.p_t:.4f}" and cells[6] == f"{expected.p_bootstrap:.4f}"
    perm = f"[{expected.permutation_low:+.3f}, {expected.permutation_high:+.3f}]"
    assert cells[7] == perm and cells[8] == f"{expected.p_permutation:.4f}"
    assert main(["compare", str(base), str(cand)]) == 0
    table = capsys.readouterr().out
    assert f"{expected.p_permutation:.4f}" in table and f"{expected.p_t:.4f}" in table
