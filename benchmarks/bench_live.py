"""Live scoring (`scored()`, an agent's attached scorers): what it costs the caller and how
fast the answers are scored behind it.

- A model-free scorer over 10,000 answers: the caller's time per answer (sampling and
  handing the job over — the answer never waits for its scorers) and the answers scored
  per second until `aflush_scores` returns.
- An LLM-judged scorer (context utilization) over 1,000 answers against `FakeLLMServer`
  answering each request after 50 ms: answers scored per second and the most requests in
  flight at once (the live service takes `LIVE_JOBS` answers at a time; the judge's own
  limit, 16 by default, bounds its requests), side by side with `run_evals` scoring the
  same 1,000 items with the same scorer — both are one `score_many`, so the rates
  should match.

    python benchmarks/bench_live.py [--answers 10000] [--judged 1000]

Nothing is written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHUNKS = {"output": "Ulm.", "context": [{"id": "d1", "text": "Einstein was born in Ulm."}]}


async def rag(question: str) -> dict:
    return CHUNKS


async def drive(answer, n: int) -> tuple[float, float]:
    """Seconds the caller spent in ``n`` answers, and until every score was in."""
    started = time.perf_counter()
    for i in range(n):
        await answer(f"q{i}")
    handed = time.perf_counter() - started
    await answer.aflush_scores()
    total = time.perf_counter() - started
    await answer.aclose()
    return handed, total


def model_free(n: int) -> None:
    from evals import scored
    from scorers import create_id_context_recall_scorer

    recall = create_id_context_recall_scorer({"context_extractor": "auto"})
    answer = scored(rag, scorers=[recall])
    handed, total = anyio.run(drive, answer, n)
    assert len(answer.score_store.list()) == n
    print(
        f"model-free, {n:,} answers: caller {handed / n * 1e6:.1f} µs per answer; "
        f"scored {n / total:,.0f} answers/s ({total:.2f} s)"
    )


def judged(n: int, latency: float) -> None:
    from evals import run_evals, scored
    from evals._agents._live import LIVE_JOBS
    from evals.testing import FakeLLMServer
    from scorers import create_context_utilization_scorer

    with FakeLLMServer(latency=latency) as server:
        use = create_context_utilization_scorer(server.judge(), {"context_extractor": "auto"})
        answer = scored(rag, scorers=[use])
        handed, total = anyio.run(drive, answer, n)
        most, calls = server.max_in_flight, server.call_count
        server.reset()
        items = [{"id": str(i), "input": f"q{i}", **CHUNKS} for i in range(n)]
        started = time.perf_counter()
        batch = run_evals(items, [use], concurrency=LIVE_JOBS, progress=False)
        offline = time.perf_counter() - started
        batch_most = server.max_in_flight
    records = answer.score_store.list()
    assert len(records) == n and all(r.status == "scored" for r in records)
    assert batch.summary.item_errors == 0
    print(
        f"judged ({latency * 1000:.0f} ms per request, {calls / n:.0f} request(s) per answer), "
        f"{n:,} answers: caller {handed / n * 1e6:.1f} µs per answer; live {n / total:,.0f} "
        f"answers/s ({total:.2f} s, {most} requests in flight at most: the judge's own "
        f"limit; LIVE_JOBS = {LIVE_JOBS}); run_evals on the same items at concurrency "
        f"{LIVE_JOBS}: {n / offline:,.0f} items/s ({offline:.2f} s, {batch_most} in flight)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--judged", type=int, default=1_000)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    model_free(args.answers)
    judged(args.judged, args.latency)


if __name__ == "__main__":
    main()
