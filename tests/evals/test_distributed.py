"""run_evals_ray on a local Ray instance: shards as tasks, merged like one run."""

from __future__ import annotations

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'scorekit[ray]')")

ROWS = [
    {
        "id": f"r{i}",
        "input": f"question {i}",
        "ground_truth": f"Einstein was born in Ulm. Fact {i} is unsupported.",
        "context": ["Einstein was born in Ulm in 1879.", f"Noise {i}."],
    }
    for i in range(12)
]


def without_timing(summary) -> dict:
    data = summary.model_dump()
    data.pop("wall_time_s"), data.pop("client_cpu_s")
    return data


@pytest.mark.slow
def test_shards_run_as_ray_tasks_and_merge(tmp_path):
    from evals.distributed import run_evals_ray
    from scorers import create_context_recall_scorer

    with FakeLLMServer() as server:
        url = server.url

        def make_scorers():
            from scorers import Judge

            judge = Judge("openai/fake-judge", api_base=url, api_key="sk-fake", cache=False)
            return [create_context_recall_scorer(judge)]

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            result = run_evals_ray(ROWS, make_scorers, shards=3, out_dir=tmp_path / "ray")
        finally:
            ray.shutdown()
        whole = run_evals(ROWS, make_scorers(), progress=False)
    assert sorted(r.item.id for r in result.items) == sorted(r["id"] for r in ROWS)
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == [
        "part-0.jsonl",
        "part-1.jsonl",
        "part-2.jsonl",
        "results.jsonl",
    ]
    assert without_timing(result.summary) == without_timing(whole.summary)
    assert result.scores == {"context-recall": 0.5}
