"""Throughput of `run_evals` against a judge with a fixed latency.

Runs the LLM context recall (2 sequential calls per item) and context precision (1
call) scorers over N items against `FakeLLMServer` in a separate process (so its CPU
is not counted) with a fixed latency per call, at several concurrencies, and compares
the wall time with the ideal schedule: critical path per item × items / concurrency.

    python benchmarks/bench_run_evals.py [--items 256] [--latency 0.2 0.5]
        [--concurrency 8 32] [--client-processes 0 4] [--repeat 3] [--unpriced]
    python benchmarks/bench_run_evals.py --versus-bare 16 --items 40 --latency 0.2 --repeat 7
    python benchmarks/bench_run_evals.py --client-cpu
    python benchmarks/bench_run_evals.py --versus-ragas --items 64 --latency 0.2 --concurrency 8

CPU per item is the client side's CPU time over the run divided by items (this process
plus, with ``--client-processes``, the judge's helper processes). Two more
measurements split it: the framework's own CPU per item (the same run with the model
call replaced by an in-process answer: no HTTP, no litellm) and litellm's client CPU per
call (the scorers' exact requests replayed through bare ``litellm.acompletion``).
Prints a markdown table; with ``--write``, also writes
``benchmarks/results/run_evals.json`` (or ``run_evals_unpriced.json``).
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
from typing import Any

import anyio

from evals import run_evals
from evals.testing import FakeLLMServer, FakeRequest, rule_based_judge
from scorers import (
    Completion,
    Judge,
    ModelRequest,
    ScriptedTransport,
    create_context_precision_scorer,
    create_context_recall_scorer,
)
from scorers._model._litellm import import_litellm as _import_litellm
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


def instant_judge() -> Judge:
    """A judge whose transport answers with the rule-based fake in process: no HTTP, no
    litellm. What remains is scorekit's own work, every layer of the judge included."""

    def answer(request: ModelRequest) -> Completion:
        body = {"messages": request.messages, **request.params}
        content = rule_based_judge(FakeRequest(body=body, headers={})).content or ""
        return Completion(content=content, prompt_tokens=100, completion_tokens=20)

    return Judge("openai/bench", transport=ScriptedTransport(answer), cache=False)


def framework_cpu_per_item(items: list[dict], bodies: list[dict]) -> float:
    """CPU seconds per item of run_evals with `InstantJudge`, minus the rule-based
    answers' own cost (measured on the scorers' captured requests)."""
    judge = instant_judge()
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


async def bare_call(litellm: Any, url: str, body: dict, priced: bool) -> Any:
    """One of the scorers' request bodies through bare ``litellm.acompletion``."""
    return await litellm.acompletion(
        model="openai/bench",
        api_base=url,
        api_key="sk-bench",
        messages=body["messages"],
        response_format=body.get("response_format"),
        temperature=body.get("temperature", 0.0),
        num_retries=0,
        max_retries=0,
        **(PRICE if priced else {}),
    )


def litellm_cpu_per_call(url: str, bodies: list[dict], priced: bool, calls: int = 300) -> float:
    """CPU seconds per bare ``litellm.acompletion`` replaying the scorers' own requests
    (same messages and response_format): the judge client's cost, not the framework's."""
    litellm = _import_litellm()

    async def main() -> float:
        limiter = anyio.CapacityLimiter(32)

        async def one(body: dict) -> None:
            async with limiter:
                await bare_call(litellm, url, body, priced)

        await one(bodies[0])  # warm up
        started = time.process_time()
        async with anyio.create_task_group() as tg:
            for i in range(calls):
                tg.start_soon(one, bodies[i % len(bodies)])
        return (time.process_time() - started) / calls

    return run_sync(main)


def bare_litellm_wall(url: str, bodies: list[dict], in_flight: int, priced: bool) -> float:
    """Wall seconds of bare ``litellm.acompletion`` sending ``bodies`` at ``in_flight``
    at once: the provider client alone, no framework."""
    litellm = _import_litellm()

    async def main() -> float:
        limiter = anyio.CapacityLimiter(in_flight)

        async def one(body: dict) -> None:
            async with limiter:
                await bare_call(litellm, url, body, priced)

        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for body in bodies:
                tg.start_soon(one, body)
        return time.perf_counter() - started

    return run_sync(main)


def versus_bare(latency: float, n_items: int, in_flight: int, repeat: int, priced: bool) -> None:
    """`run_evals` against bare litellm making the same calls at ``in_flight`` at once,
    alternating, in one process and against one server; prints the median ratio."""
    items = make_items(n_items)
    bodies = captured_requests(items)
    server, url = start_server(latency)
    try:
        judge = Judge(
            "openai/bench",
            api_base=url,
            api_key="sk-bench",
            cache=False,
            **(PRICE if priced else {}),
        )
        scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
        run_evals(items[:4], scorers, progress=False)  # warm up both paths
        bare_litellm_wall(url, bodies[:8], in_flight, priced)
        pairs = []
        for _ in range(repeat):
            bare = bare_litellm_wall(url, bodies, in_flight, priced)
            started = time.perf_counter()
            result = run_evals(
                items, scorers, concurrency=in_flight, model_concurrency=in_flight, progress=False
            )
            ours = time.perf_counter() - started
            assert result.summary.item_errors == 0 and result.summary.model_calls == len(bodies)
            pairs.append((ours, bare))
    finally:
        server.kill()
    ideal = len(bodies) * latency / in_flight
    ratios = sorted(ours / bare for ours, bare in pairs)
    print(
        f"{n_items} items, {len(bodies)} calls, {in_flight} in flight, {latency:g} s per call "
        f"(ideal {ideal:.2f} s), {repeat} alternating rounds\n"
    )
    print("| round | run_evals s | bare litellm s | ratio |")
    print("|---:|---:|---:|---:|")
    for i, (ours, bare) in enumerate(pairs, 1):
        print(f"| {i} | {ours:.3f} | {bare:.3f} | {ours / bare:.3f} |")
    print(f"\nmedian ratio {ratios[len(ratios) // 2]:.3f} (range {ratios[0]:.3f}–{ratios[-1]:.3f})")


LEAN_KNOBS = (
    "turn_off_message_logging",
    "disable_end_user_cost_tracking",
    "disable_streaming_logging",
    "disable_token_counter",
)
"""Public litellm settings that could make a call cheaper (tried by ``--client-cpu``)."""


def client_cpu(bodies: list[dict], calls: int = 600, in_flight: int = 16) -> None:
    """CPU per call of the clients scorekit could send the scorers' requests with, one
    after another against one zero-latency server: litellm as scorekit sets it up,
    litellm with `LEAN_KNOBS` on, the OpenAI SDK (what litellm calls for these requests)
    and bare httpx. Prints a markdown table."""
    import httpx
    import openai

    litellm = _import_litellm()
    server, url = start_server(0.0)

    async def via_litellm(body: dict) -> None:
        response = await litellm.acompletion(
            model="openai/bench",
            api_base=url,
            api_key="sk-bench",
            messages=body["messages"],
            response_format=body.get("response_format"),
            temperature=0.0,
            num_retries=0,
            max_retries=0,
            **PRICE,
        )
        assert response._hidden_params.get("response_cost") is not None  # priced

    async def measure_cpu(send: Any) -> float:
        limiter = anyio.CapacityLimiter(in_flight)

        async def one(body: dict) -> None:
            async with limiter:
                await send(body)

        for n in (50, calls):  # a warm-up round, then the timed one
            started = time.process_time()
            async with anyio.create_task_group() as tg:
                for i in range(n):
                    tg.start_soon(one, bodies[i % len(bodies)])
        return (time.process_time() - started) / calls * 1000

    async def main() -> list[tuple[str, float]]:
        rows = [("litellm.acompletion, as scorekit sets it up", await measure_cpu(via_litellm))]
        saved = {knob: getattr(litellm, knob, None) for knob in LEAN_KNOBS}
        for knob in LEAN_KNOBS:
            setattr(litellm, knob, True)
        rows.append(("litellm.acompletion, lean settings on", await measure_cpu(via_litellm)))
        for knob, value in saved.items():
            setattr(litellm, knob, value)
        sdk = openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0)

        async def via_sdk(body: dict) -> None:
            response = await sdk.chat.completions.create(
                model="bench",
                messages=body["messages"],
                temperature=0.0,
                response_format=body.get("response_format") or openai.NOT_GIVEN,
            )
            assert response.choices[0].message.content is not None

        rows.append(("openai.AsyncOpenAI (no cost, one provider)", await measure_cpu(via_sdk)))
        async with httpx.AsyncClient(
            base_url=url, headers={"Authorization": "Bearer sk-bench"}
        ) as client:

            async def via_httpx(body: dict) -> None:
                request = {"model": "bench", "messages": body["messages"], "temperature": 0.0}
                if body.get("response_format"):
                    request["response_format"] = body["response_format"]
                reply = (await client.post("/chat/completions", json=request)).json()
                assert reply["choices"][0]["message"]["content"] is not None

            rows.append(("httpx.AsyncClient.post (bare HTTP)", await measure_cpu(via_httpx)))
        return rows

    try:
        rows = run_sync(main)
    finally:
        server.kill()
    print(f"client CPU per call, {calls} of the scorers' requests at {in_flight} in flight\n")
    print("| client | CPU ms/call | × litellm |")
    print("|---|---:|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} | {ms / rows[0][1]:.2f} |")


def versus_ragas(latency: float, n_items: int, concurrency: int, repeat: int) -> None:
    """The Ragas facade's ``evaluate`` against ``run_evals`` with the same two metrics
    (legacy LLMContextRecall and LLMContextPrecisionWithReference) on the same items and
    judge, alternating; prints each round and the median ratio."""
    from scorers.ragas import LLMContextPrecisionWithReference, LLMContextRecall, evaluate

    items = make_items(n_items)
    samples = [
        {
            "user_input": i["input"],
            "reference": i["ground_truth"],
            "retrieved_contexts": i["context"],
        }
        for i in items
    ]
    server, url = start_server(latency)
    try:
        judge = Judge("openai/bench", api_base=url, api_key="sk-bench", cache=False, **PRICE)
        metrics = [LLMContextRecall(llm=judge), LLMContextPrecisionWithReference(llm=judge)]
        evaluate(samples[:4], metrics=metrics, show_progress=False)  # warm up
        rounds = []
        for _ in range(repeat):
            started = time.perf_counter()
            evaluate(samples, metrics=metrics, concurrency=concurrency, show_progress=False)
            facade = time.perf_counter() - started
            started = time.perf_counter()
            run_evals(items, metrics, concurrency=concurrency, progress=False)
            rounds.append((facade, time.perf_counter() - started))
    finally:
        server.kill()
    print(
        f"{n_items} samples, recall + precision, {latency:g} s per call, concurrency {concurrency}\n"
    )
    print("| round | evaluate s | run_evals s | ratio |")
    print("|---:|---:|---:|---:|")
    for i, (facade, ours) in enumerate(rounds, 1):
        print(f"| {i} | {facade:.2f} | {ours:.2f} | {facade / ours:.3f} |")
    ratios = sorted(f / o for f, o in rounds)
    print(f"\nmedian ratio {ratios[len(ratios) // 2]:.3f}")


def helper_cpu(judge: Judge) -> float:
    """CPU seconds used so far by the judge's helper processes (Linux /proc; 0 without)."""
    total = 0.0
    for worker in getattr(judge.transport, "_workers", []):
        try:
            fields = Path(f"/proc/{worker.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


# the judge's declared price (gpt-4o-mini's list price). litellm prices every response
# while logging it; for a model missing from its price map it first searches name
# generalisations, ~0.3 ms more CPU per call. Any hosted judge is in the map; a local one
# can declare its price like this. --unpriced shows the other path.
PRICE = {"input_cost_per_token": 1.5e-7, "output_cost_per_token": 6e-7}


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    """`FakeLLMServer` in its own process (its CPU is not the client's)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "evals.testing", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def measure(
    url: str, items: list[dict], processes: int, concurrency: int, repeat: int, priced: bool
) -> list[dict]:
    """``repeat`` timed runs of one configuration (after a warm-up run)."""
    judge = Judge(
        "openai/bench",
        api_base=url,
        api_key="sk-bench",
        cache=False,
        client_processes=processes,
        **(PRICE if priced else {}),
    )
    scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
    run_evals(items[:4], scorers, concurrency=4, progress=False)  # warm up
    runs = []
    for _ in range(repeat):
        cpu0, wall0 = time.process_time() + helper_cpu(judge), time.perf_counter()
        result = run_evals(items, scorers, concurrency=concurrency, progress=False)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() + helper_cpu(judge) - cpu0
        assert result.summary.item_errors == 0, result.items[0].error
        runs.append(
            {"wall_s": wall, "cpu_s": cpu, "summary": result.summary, "scores": result.scores}
        )
    judge.close()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--items",
        type=int,
        default=256,
        help="default 256: a multiple of every concurrency, so the ideal "
        "schedule is reachable (no partly filled last wave)",
    )
    parser.add_argument("--latency", type=float, nargs="+", default=[0.2, 0.5])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument(
        "--client-processes",
        type=int,
        nargs="+",
        default=[0, 4],
        help="Judge(client_processes=N) settings to run (0: litellm in this process)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs per row; the row shows the median"
    )
    parser.add_argument(
        "--unpriced",
        action="store_true",
        help="do not declare the judge's price (litellm's slower unknown-model path)",
    )
    parser.add_argument(
        "--write", action="store_true", help="write the results into benchmarks/results/"
    )
    parser.add_argument(
        "--versus-bare",
        type=int,
        metavar="IN_FLIGHT",
        help="only compare run_evals with bare litellm.acompletion making the same calls "
        "at IN_FLIGHT at once (use with --items 40 --latency 0.2 --repeat 5)",
    )
    parser.add_argument(
        "--client-cpu",
        action="store_true",
        help="only measure the CPU per call of litellm, litellm with lean settings, the "
        "OpenAI SDK and bare httpx on the scorers' requests",
    )
    parser.add_argument(
        "--versus-ragas",
        action="store_true",
        help="only compare the Ragas facade's evaluate with run_evals (same metrics, items, "
        "judge; use with --items 64 --latency 0.2 --concurrency 8)",
    )
    args = parser.parse_args()
    if args.versus_ragas:
        versus_ragas(args.latency[0], args.items, args.concurrency[0], args.repeat)
        return
    if args.client_cpu:
        client_cpu(captured_requests(make_items(8)))
        return
    if args.versus_bare:
        versus_bare(args.latency[0], args.items, args.versus_bare, args.repeat, not args.unpriced)
        return

    bodies = captured_requests(make_items(8))
    framework = framework_cpu_per_item(make_items(args.items), bodies)
    fast, fast_url = start_server(0.0)
    try:
        per_call = litellm_cpu_per_call(fast_url, bodies, not args.unpriced)
    finally:
        fast.kill()

    items = make_items(args.items)
    rows = []
    for latency in args.latency:
        server, url = start_server(latency)
        try:
            for processes in args.client_processes:
                for concurrency in args.concurrency:
                    runs = measure(
                        url, items, processes, concurrency, args.repeat, not args.unpriced
                    )
                    walls = sorted(run["wall_s"] for run in runs)
                    median = runs[[run["wall_s"] for run in runs].index(walls[len(walls) // 2])]
                    summary = median["summary"]
                    ideal = 2 * latency * args.items / concurrency  # claims -> verdicts
                    rows.append(
                        {
                            "latency": latency,
                            "client_processes": processes,
                            "concurrency": concurrency,
                            "wall_s": median["wall_s"],
                            "wall_s_runs": [run["wall_s"] for run in runs],
                            "ideal_s": ideal,
                            "ratio": median["wall_s"] / ideal,
                            "ratio_range": [walls[0] / ideal, walls[-1] / ideal],
                            "calls_per_item": summary.model_calls / args.items,
                            "tokens_per_item": (summary.prompt_tokens + summary.completion_tokens)
                            / args.items,
                            "cost_per_item": None
                            if summary.cost is None
                            else summary.cost / args.items,
                            "cpu_ms_per_item": median["cpu_s"] / args.items * 1000,
                            "scores": median["scores"],
                        }
                    )
        finally:
            server.kill()

    print(
        f"{args.items} items, context-recall + context-precision, median of {args.repeat} runs "
        f"(range in brackets), judge {'unpriced' if args.unpriced else 'priced'}\n"
    )
    print(
        "| latency | client_processes | concurrency | wall s | ideal s | wall / ideal | "
        "calls/item | tokens/item | CPU ms/item |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        low, high = r["ratio_range"]
        print(
            f"| {r['latency']:g} s | {r['client_processes']} | {r['concurrency']} | "
            f"{r['wall_s']:.2f} | {r['ideal_s']:.2f} | {r['ratio']:.3f} [{low:.3f}–{high:.3f}] | "
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
    if not args.write:
        return
    name = "run_evals_unpriced.json" if args.unpriced else "run_evals.json"
    out = Path(__file__).parent / "results" / name
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "items": args.items,
                "repeat": args.repeat,
                "priced": not args.unpriced,
                "litellm_cpu_ms_per_call": per_call * 1000,
                "framework_cpu_ms_per_item": framework * 1000,
                "rows": rows,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
