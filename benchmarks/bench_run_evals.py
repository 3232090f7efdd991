"""Throughput of `run_evals` against a judge with a fixed latency.

Runs the LLM context recall (2 sequential calls per item) and context precision (1
call) scorers over N items against `FakeLLMServer` in a separate process (so its CPU
is not counted) with a fixed latency per call, at several concurrencies, and compares
the wall time with the ideal schedule: critical path per item × items / concurrency.

    python benchmarks/bench_run_evals.py [--items 200] [--latency 0.2] [--concurrency 8 32]

CPU per item is the client side's CPU time over the run divided by items (this process
plus, with ``--client-processes``, the judge's helper processes). Two more
measurements split it: the framework's own CPU per item (the same run with the model
call replaced by an in-process answer: no HTTP, no litellm) and litellm's client CPU per
call (the scorers' exact requests replayed through bare ``litellm.acompletion``). Prints a markdown table; writes ``benchmarks/results/run_evals.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import anyio

from evals import run_evals
from evals.testing import FakeLLMServer, FakeRequest, rule_based_judge
from scorers import (
    Judge,
    JudgeCall,
    create_context_precision_scorer,
    create_context_recall_scorer,
)
from scorers._judge import _import_litellm
from scorers._sync import run_sync

SENTENCES = [
    "The Rhine flows into the North Sea.",
    "Lake Baikal is the deepest lake on Earth.",
    "Kilimanjaro is the highest mountain in Africa.",
    "Chlorophyll reflects green light.",
    "Mitochondria make most of the cell's ATP.",
    "Fleming discovered penicillin in 1928.",
    "Gutenberg printed with movable metal type.",
    "The Berlin Wall fell in 1989.",
]


def make_items(n: int) -> list[dict]:
    items = []
    for i in range(n):
        facts = [SENTENCES[(i + j) % len(SENTENCES)] + f" Item {i}." for j in range(3)]
        items.append(
            {
                "id": str(i),
                "input": f"question {i}",
                "ground_truth": " ".join(facts[:2]) + f" Extra fact {i} is unsupported.",
                "context": [*facts[1:], f"Unrelated passage number {i}."],
            }
        )
    return items


def captured_requests(items: list[dict]) -> list[dict]:
    """The exact request bodies the scorers send for a few items (an in-process server)."""
    with FakeLLMServer() as server:
        judge = Judge("openai/bench", api_base=server.url, api_key="sk-bench", cache=False)
        scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
        run_evals(items, scorers, progress=False)
        return [request.body for request in server.requests]


class InstantJudge(Judge):
    """A judge whose model call is replaced by the rule-based fake answer, computed in
    process with no HTTP and no litellm: what remains is scorekit's own work."""

    async def chat(self, messages, *, step="chat", **extra):  # type: ignore[no-untyped-def]
        body = {"messages": messages, **extra}
        content = rule_based_judge(FakeRequest(body=body, headers={})).content or ""
        usage = SimpleNamespace(prompt_tokens=100, completion_tokens=20)
        message = SimpleNamespace(content=content, tool_calls=None)
        response = SimpleNamespace(
            choices=[SimpleNamespace(message=message)], usage=usage, _hidden_params={}
        )
        call = JudgeCall(
            step=step,
            model=self.model,
            prompt_tokens=100,
            completion_tokens=20,
            attempts=1,
            messages=messages,
            response=content,
        )
        return response, call


def framework_cpu_per_item(items: list[dict], bodies: list[dict]) -> float:
    """CPU seconds per item of run_evals with `InstantJudge`, minus the rule-based
    answers' own cost (measured on the scorers' captured requests)."""
    judge = InstantJudge("openai/bench", cache=False)
    scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
    run_evals(items[:8], scorers, progress=False)
    started = time.process_time()
    run_evals(items, scorers, concurrency=32, progress=False)
    total = time.process_time() - started
    started = time.process_time()
    for body in bodies * 20:
        rule_based_judge(FakeRequest(body=body, headers={}))
    answers = (time.process_time() - started) / (20 * len(bodies)) * 3  # 3 calls per item
    return total / len(items) - answers


def litellm_cpu_per_call(url: str, bodies: list[dict], calls: int = 300) -> float:
    """CPU seconds per bare ``litellm.acompletion`` replaying the scorers' own requests
    (same messages and response_format): the judge client's cost, not the framework's."""
    litellm = _import_litellm()

    async def main() -> float:
        limiter = anyio.CapacityLimiter(32)

        async def one(body: dict) -> None:
            async with limiter:
                await litellm.acompletion(
                    model="openai/bench",
                    api_base=url,
                    api_key="sk-bench",
                    messages=body["messages"],
                    response_format=body.get("response_format"),
                    temperature=body.get("temperature", 0.0),
                    num_retries=0,
                    max_retries=0,
                )

        await one(bodies[0])  # warm up
        started = time.process_time()
        async with anyio.create_task_group() as tg:
            for i in range(calls):
                tg.start_soon(one, bodies[i % len(bodies)])
        return (time.process_time() - started) / calls

    return run_sync(main)


def helper_cpu(judge: Judge) -> float:
    """CPU seconds used so far by the judge's helper processes (Linux /proc; 0 without)."""
    transport = judge._transport
    total = 0.0
    for worker in transport._workers if transport else []:
        try:
            fields = Path(f"/proc/{worker.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--items",
        type=int,
        default=256,
        help="default 256: a multiple of every concurrency, so the ideal "
        "schedule is reachable (no partly filled last wave)",
    )
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument(
        "--client-processes",
        type=int,
        nargs="+",
        default=[0, 4],
        help="Judge(client_processes=N) settings to run (0: litellm in this process)",
    )
    args = parser.parse_args()

    def start(latency: float) -> tuple[subprocess.Popen[str], str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "evals.testing", "--latency", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        return proc, proc.stdout.readline().strip()

    bodies = captured_requests(make_items(8))
    framework = framework_cpu_per_item(make_items(args.items), bodies)
    fast, fast_url = start(0.0)
    try:
        per_call = litellm_cpu_per_call(fast_url, bodies)
    finally:
        fast.kill()

    server, url = start(args.latency)
    rows = []
    try:
        items = make_items(args.items)
        for processes, concurrency in [
            (p, c) for p in args.client_processes for c in args.concurrency
        ]:
            judge = Judge(
                "openai/bench",
                api_base=url,
                api_key="sk-bench",
                cache=False,
                client_processes=processes,
            )
            scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
            run_evals(items[:4], scorers, concurrency=4, progress=False)  # warm up
            cpu0, wall0 = time.process_time() + helper_cpu(judge), time.perf_counter()
            result = run_evals(items, scorers, concurrency=concurrency, progress=False)
            wall = time.perf_counter() - wall0
            cpu = time.process_time() + helper_cpu(judge) - cpu0
            judge.close()
            calls = result.summary.model_calls
            assert result.summary.item_errors == 0, result.items[0].error
            critical_path = 2 * args.latency  # claims -> verdicts; precision runs alongside
            ideal = critical_path * args.items / concurrency
            rows.append(
                {
                    "client_processes": processes,
                    "concurrency": concurrency,
                    "wall_s": wall,
                    "ideal_s": ideal,
                    "ratio": wall / ideal,
                    "calls_per_item": calls / args.items,
                    "tokens_per_item": (
                        result.summary.prompt_tokens + result.summary.completion_tokens
                    )
                    / args.items,
                    "cpu_ms_per_item": cpu / args.items * 1000,
                    "scores": result.scores,
                }
            )
    finally:
        server.kill()

    print(
        f"{args.items} items, context-recall + context-precision, judge latency "
        f"{args.latency} s (critical path {2 * args.latency:g} s per item)\n"
    )
    print(
        "| client_processes | concurrency | wall s | ideal s | wall / ideal | calls/item | "
        "tokens/item | CPU ms/item |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['client_processes']} | {r['concurrency']} | {r['wall_s']:.2f} | {r['ideal_s']:.2f} | {r['ratio']:.3f} | "
            f"{r['calls_per_item']:.1f} | {r['tokens_per_item']:.0f} | "
            f"{r['cpu_ms_per_item']:.2f} |"
        )
    print(
        f"\nframework CPU per item (scorekit's own work, judge excluded): {framework * 1000:.2f} ms"
    )
    print(
        f"litellm client CPU per call (the scorers' requests replayed): "
        f"{per_call * 1000:.2f} ms, {3 * per_call * 1000:.1f} ms per item"
    )
    out = Path(__file__).parent / "results" / "run_evals.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "items": args.items,
                "latency": args.latency,
                "litellm_cpu_ms_per_call": per_call * 1000,
                "framework_cpu_ms_per_item": framework * 1000,
                "rows": rows,
                "python": platform.python_version(),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
