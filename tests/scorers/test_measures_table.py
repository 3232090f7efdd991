"""trec_eval's measures are one table: a measure registered from outside scorekit is
computed by `evaluate_ranking`, per item by `create_ranking_scorer`, and printed by
`scorekit trec -m` in its place."""

from __future__ import annotations

import numpy as np
import pytest

from evals.cli import main
from scorers import ConfigError, create_ranking_scorer, evaluate_ranking
from scorers.lowlevel import TREC_MEASURES as MEASURES
from scorers.lowlevel import Measure, register_measure, trec_names

QRELS = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d4": 2}}
RUN = {"q1": {"d3": 3.0, "d1": 2.0, "d9": 1.0}, "q2": {"d4": 1.0}}


def relevant_in_top_two(batch, metric):
    """Relevant documents among the first two, over two (a toy precision at 2)."""
    return batch.relevant_in_top(2) / 2.0


@pytest.fixture
def toy():
    register_measure(Measure("toy_P2", relevant_in_top_two))
    yield
    del MEASURES["toy_P2"]


def test_a_registered_measure_is_computed_everywhere(toy, tmp_path, capsys):
    found = evaluate_ranking(QRELS, RUN, ["toy_P2", "P_2"])
    assert found.per_query == {"q1": {"toy_P2": 0.5, "P_2": 0.5}, "q2": {"toy_P2": 0.5, "P_2": 0.5}}
    assert found.means["toy_P2"] == found.means["P_2"]
    scorer = create_ranking_scorer("toy_P2")
    assert scorer.run(context=[{"id": "d1", "text": ""}, {"id": "d5", "text": ""}],
                      reference_context_ids=["d1"]).score == 0.5  # fmt: skip
    assert trec_names(["P.2", "toy_P2"]) == ["P_2", "toy_P2"]  # trec_eval's own first
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 2\n")
    run.write_text("q1 Q0 d3 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq1 Q0 d9 3 1.0 r\nq2 Q0 d4 1 1.0 r\n")
    assert main(["trec", str(qrels), str(run), "-m", "toy_P2", "-m", "P.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["P_2", "toy_P2"]
    assert lines[1].split() == ["toy_P2", "all", "0.5000"]


def test_the_table_says_what_each_measure_is():
    assert list(MEASURES)[:12] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ]  # fmt: skip
    assert MEASURES["num_ret"].mean == "sum" and MEASURES["gm_map"].mean == "geometric"
    assert not MEASURES["gm_map"].per_item and MEASURES["ndcg_cut"].cutoffs[0] == "5"
    with pytest.raises(ConfigError, match="a count, not a per-item score"):
        create_ranking_scorer("num_ret")
    with pytest.raises(ConfigError, match="letters, digits"):
        register_measure(Measure("bad name", relevant_in_top_two))
    assert np.isclose(evaluate_ranking(QRELS, RUN, ["gm_map"]).means["gm_map"], 0.5)  # √(¼ × 1)


def test_each_measure_is_one_function_declared_where_it_is_computed():
    """No measure is found by its name in code (no ``if kind == ...`` dispatch): each
    entry's compute is its own function, and ``bounds`` says its range."""
    import ast
    from pathlib import Path

    ranking = Path(__file__).parents[2] / "scorers" / "_ranking"
    for path in ranking.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and isinstance(node.left, (ast.Name, ast.Attribute)):
                name = node.left.id if isinstance(node.left, ast.Name) else node.left.attr
                other = node.comparators[0]
                named = isinstance(other, ast.Constant) and isinstance(other.value, str)
                where = f"{path.name}:{node.lineno}"
                assert not (name == "kind" and named), f"{where} dispatches on a measure's name"
    computes = [m.compute for m in MEASURES.values() if m.compute is not None]
    assert MEASURES["P"].bounds == (0.0, 1.0) and MEASURES["num_ret"].bounds is None
    assert MEASURES["gm_map"].bounds is None and MEASURES["utility"].bounds is None
    assert len({c for c in computes}) >= len(computes) - 4  # map/map_cut, ndcg/ndcg_cut share
