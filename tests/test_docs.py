"""Every ```python block of README.md and docs/*.md runs verbatim, and every ```sh block
(the shell commands that need nothing but scorekit) too: in a fresh interpreter, in an
empty folder, with no API key and no network."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(python|sh)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1), match.group(2)))
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", NO_PROXY="*", PYTHONHASHSEED="0")
    env.pop("SCOREKIT_MODEL", None)
    return env


OPTIONAL = {
    "langchain_core": "frameworks",
    "llama_index": "frameworks",
    "haystack": "frameworks",
    "agents": "frameworks",
    "pydantic_ai": "frameworks",
    "pandas": "pandas",
    "pyarrow": "parquet",
    "ray": "ray",
    "opentelemetry": "dev",
}
"""Modules of optional extras: a block that imports one that is missing is skipped."""


def _missing_extra(code: str) -> str | None:
    import importlib.util

    for module in re.findall(r"^(?:from|import) ([\w]+)", code, re.M):
        if module in OPTIONAL and importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install 'scorekit[{OPTIONAL[module]}]'"
    return None


BLOCKS = blocks()


@pytest.mark.parametrize(("where", "kind", "code"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_the_block_runs_as_written(where: str, kind: str, code: str, tmp_path: Path) -> None:
    missing = _missing_extra(code) if kind == "python" else None
    if missing:
        pytest.skip(missing)
    command = (
        [sys.executable, "-c", code]
        if kind == "python"
        else ["bash", "-euo", "pipefail", "-c", code]
    )
    proc = subprocess.run(
        command, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, f"{where} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def test_every_page_has_blocks_and_the_readme_stays_short() -> None:
    assert len(BLOCKS) >= 20
    assert len((ROOT / "README.md").read_text().splitlines()) <= 620
