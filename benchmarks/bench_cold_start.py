"""Time to the first result in a fresh process: what a CLI call or a notebook's first cell pays.

Each case runs in a new interpreter (best of ``--repeat``); the LLM case serves
`FakeLLMServer` on a fixed port (the port is part of the cache key), so a warm run finds
the answers of the run before:

- the README's one-scorer example (LLM context recall): cache cold, then warm;
- ``estimate_run`` of the same scorer for ``openai/gpt-4o-mini`` (no model called);
- ``scorekit demo`` (model-free scorers);
- the peer: ``import litellm`` alone, the cost scorekit now pays only on a cache miss.

    python benchmarks/bench_cold_start.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ONE_SCORER = """
import sys
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer

with FakeLLMServer(port={port}) as server:
    judge = server.judge(cache={cache!r})
    recall = create_context_recall_scorer(judge, {{"context": [
        "Albert Einstein was born on 14 March 1879 in Ulm.",
        "Einstein received the Nobel Prize in Physics in 1921."]}})
    result = recall.run(input="Tell me about Einstein.",
        ground_truth="Einstein was born in Ulm in 1879. He won the 1921 Nobel Prize in Physics.")
print(result.score, "litellm" in sys.modules)
"""

ESTIMATE = """
import sys
from evals import estimate_run
from scorers import Judge, create_context_recall_scorer

rows = [{"id": str(i), "input": "q", "ground_truth": "Einstein was born in Ulm.",
         "context": ["Einstein was born in Ulm."]} for i in range(20)]
judge = Judge("openai/gpt-4o-mini", api_key="sk-unused", cache=False)
print(estimate_run(rows, [create_context_recall_scorer(judge)]).cost, "litellm" in sys.modules)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _time(argv: list[str], repeat: int, before: list[str] | None = None) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(repeat):
        if before:
            subprocess.run(before, check=True)
        started = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - started)
        out = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="scorekit-cold-"))
    port = _free_port()
    cache = folder / "cache.sqlite"
    script = folder / "one.py"
    script.write_text(textwrap.dedent(ONE_SCORER.format(port=port, cache=str(cache))))
    estimate = folder / "estimate.py"
    estimate.write_text(ESTIMATE)
    python = sys.executable
    scorekit = shutil.which("scorekit") or "scorekit"
    drop_cache = [python, "-c", f"import pathlib; pathlib.Path({str(cache)!r}).unlink(True)"]
    rows = []
    rows.append(
        ("`import litellm` alone (peer)", _time([python, "-c", "import litellm"], args.repeat))
    )
    rows.append(
        ("`import scorers, evals`", _time([python, "-c", "import scorers, evals"], args.repeat))
    )
    rows.append(
        (
            "one-scorer example, cache cold",
            _time([python, str(script)], args.repeat, drop_cache),
        )
    )
    _time([python, str(script)], 1)  # fill the cache
    rows.append(("one-scorer example, cache warm", _time([python, str(script)], args.repeat)))
    rows.append(
        ("`estimate_run` (gpt-4o-mini, 20 items)", _time([python, str(estimate)], args.repeat))
    )
    rows.append(("`scorekit demo` (model-free)", _time([scorekit, "demo"], args.repeat)))
    shutil.rmtree(folder, ignore_errors=True)
    print(f"Fresh interpreter per run, best of {args.repeat} (Python {sys.version.split()[0]}).\n")
    print("| case | wall s | last line printed |")
    print("|---|---:|---|")
    for name, (seconds, out) in rows:
        print(f"| {name} | {seconds:.2f} | `{out[:60]}` |")


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    main()
