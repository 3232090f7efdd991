"""Calls and tokens per kept row: `evals.synthesize` against Ragas' `TestsetGenerator`.

Both write a test set from the same documents (the quickstart's 36 passages as 6
documents of 6 paragraphs), side by side in one run, against one `FakeLLMServer`: it
answers scorekit's prompts by rule and Ragas' by filling the JSON schema each Ragas
prompt spells out from the prompt's own input, and embeds text for Ragas (hashed
bag-of-words vectors). The server counts every request and its whitespace tokens, so
both are measured by the same ruler. Ragas runs in its own environment (``--peer-python``,
default ``/work/peers/bin/python``), never as scorekit's dependency.

Ragas keeps every row it writes (it has no gates); scorekit keeps the rows that pass its
gates, so its calls per row include the dropped candidates'.

    python benchmarks/bench_synthesis.py [--n 10 30] [--peer-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals import synthesize
from evals.quickstart import passages
from evals.testing import FakeLLMServer, FakeRequest, rule_based_judge

PEER = """
import asyncio, json, sys, time, warnings
warnings.filterwarnings("ignore")
from langchain_core.documents import Document
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from ragas.embeddings import LangchainEmbeddingsWrapper
from ragas.llms import LangchainLLMWrapper
from ragas.testset import TestsetGenerator

url, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
docs = [Document(page_content=d["text"], metadata={"source": d["id"]}) for d in json.load(open(path))]
llm = LangchainLLMWrapper(ChatOpenAI(model="gpt-4o-mini", base_url=url, api_key="sk-fake"))
embeddings = LangchainEmbeddingsWrapper(OpenAIEmbeddings(
    model="text-embedding-3-small", base_url=url, api_key="sk-fake",
    check_embedding_ctx_length=False))
generator = TestsetGenerator(llm=llm, embedding_model=embeddings)

async def main():  # one event loop for the whole run: the HTTP client is bound to it
    return generator.generate_with_langchain_docs(docs, testset_size=n, raise_exceptions=True)

started = time.perf_counter()
rows = asyncio.run(main()).to_pandas()
print(json.dumps({"rows": len(rows), "wall_s": time.perf_counter() - started,
                  "kinds": rows["synthesizer_name"].value_counts().to_dict()}))
"""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _instance(schema: dict[str, Any], defs: dict[str, Any], data: Any, name: str) -> Any:
    """A value valid under ``schema``, its strings taken from the prompt's input."""
    if "$ref" in schema:
        return _instance(defs[schema["$ref"].split("/")[-1]], defs, data, name)
    if "anyOf" in schema:
        chosen = next(s for s in schema["anyOf"] if s.get("type") != "null")
        return _instance(chosen, defs, data, name)
    if "enum" in schema:
        return schema["enum"][0]
    texts = _strings(data)
    longest = max(texts, key=len) if texts else "a fact"
    sentence = re.split(r"(?<=[.!?])\s+", longest.strip())[0][:200]
    kind = schema.get("type")
    if kind == "object" and schema.get("properties"):
        return {k: _instance(v, defs, data, k) for k, v in schema["properties"].items()}
    if kind == "object":  # a mapping keyed by the personas the input names
        personas = data.get("personas", []) if isinstance(data, dict) else []
        keys = [p["name"] for p in personas if isinstance(p, dict) and "name" in p] or ["key"]
        value = schema.get("additionalProperties") or {"type": "string"}
        return {k: _instance(value, defs, data, k) for k in keys}
    if kind == "array":
        item = schema.get("items", {"type": "string"})
        if item.get("type") == "string":
            themes = data.get("themes") if isinstance(data, dict) else None
            if isinstance(themes, list) and themes and all(isinstance(t, str) for t in themes):
                return themes[:2]
            return re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*", longest)[:3] or ["topic"]
        return [_instance(item, defs, data, name) for _ in range(2)]
    if kind == "integer":
        return 5 if "score" in name else 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if "query" in name or "question" in name:
        return "What does it say about " + " ".join(sentence.split()[:6]) + "?"
    return sentence


def ragas_answer(prompt: str) -> str | None:
    """The answer to a Ragas prompt (None for a prompt that is not one)."""
    schema = re.search(r"JSON Schema:\n(\{.*?\})Do not use single quotes", prompt, re.S)
    if schema is None:
        return None
    given = re.search(r"\ninput: (.*)\nOutput: $", prompt, re.S)
    try:
        data = json.loads(given.group(1)) if given else {}
    except ValueError:
        data = {}
    parsed = json.loads(schema.group(1))
    return json.dumps(_instance(parsed, parsed.get("$defs", {}), data, ""))


def handler(request: FakeRequest) -> Any:
    answer = ragas_answer(request.prompt)
    return answer if answer is not None else rule_based_judge(request)


def _counts(server: FakeLLMServer) -> tuple[int, int, int, int]:
    return (
        server.call_count,
        server.embedding_requests,
        server.prompt_tokens,
        server.completion_tokens,
    )


def measure_scorekit(server: FakeLLMServer, docs: list[dict[str, str]], n: int) -> dict[str, Any]:
    before = _counts(server)
    started = time.perf_counter()
    result = synthesize(
        [{"id": p.id, "text": p.text} for p in passages()],
        server.judge(model="openai/gpt-4o-mini"),
        n,
        kinds=("single", "multi"),
        progress="none",
    )
    wall = time.perf_counter() - started
    after = _counts(server)
    return {
        "rows": result.summary.kept,
        "wall_s": wall,
        "calls": after[0] - before[0],
        "embeddings": after[1] - before[1],
        "prompt": after[2] - before[2],
        "completion": after[3] - before[3],
        "ids": "yes (passage ids)",
    }


def measure_ragas(
    server: FakeLLMServer, docs: list[dict[str, str]], n: int, peer: str
) -> dict[str, Any] | str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "docs.json"
        path.write_text(json.dumps(docs))
        env = dict(os.environ, NO_PROXY="*", no_proxy="*")
        import litellm  # its bundled tiktoken files: Ragas counts tokens offline with them

        env["TIKTOKEN_CACHE_DIR"] = str(
            Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
        )
        before = _counts(server)
        proc = subprocess.run(
            [peer, "-c", PEER, server.url, str(n), str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=1200,
        )
        after = _counts(server)
    if proc.returncode != 0:
        return "failed: " + proc.stderr.strip().splitlines()[-1]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "rows": out["rows"],
        "wall_s": out["wall_s"],
        "calls": after[0] - before[0],
        "embeddings": after[1] - before[1],
        "prompt": after[2] - before[2],
        "completion": after[3] - before[3],
        "ids": "no (whole documents as text)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--peer-python", default="/work/peers/bin/python")
    args = parser.parse_args()
    chunks = passages()
    docs = [
        {"id": f"doc{i}", "text": "\n\n".join(p.text for p in chunks[6 * i : 6 * i + 6])}
        for i in range(6)
    ]
    peer_ok = Path(args.peer_python).exists()
    print(
        "| tool | rows asked | rows kept | calls | embedding calls | calls / row | "
        "tokens / row (prompt + completion) | gold ids | wall s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    with FakeLLMServer(handler) as server:
        measure_scorekit(server, docs, 1)  # warm up: litellm's import is not a row's cost
        for n in args.n:
            found: list[tuple[str, dict[str, Any] | str]] = [
                ("scorekit synthesize", measure_scorekit(server, docs, n))
            ]
            if peer_ok:
                found.append(
                    ("Ragas TestsetGenerator", measure_ragas(server, docs, n, args.peer_python))
                )
            for tool, row in found:
                if isinstance(row, str):
                    print(f"| {tool} | {n} | {row} | | | | | | |")
                    continue
                rows = max(row["rows"], 1)
                tokens = (row["prompt"] + row["completion"]) / rows
                print(
                    f"| {tool} | {n} | {row['rows']} | {row['calls']} | {row['embeddings']} | "
                    f"{row['calls'] / rows:.1f} | {tokens:,.0f} | {row['ids']} | {row['wall_s']:.1f} |"
                )
    if not peer_ok:
        print(f"\n(Ragas not measured: no {args.peer_python}; pass --peer-python)", file=sys.stderr)


if __name__ == "__main__":
    main()
