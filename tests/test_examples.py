"""Every example runs to completion without an API key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # fresh interpreters, subprocesses

EXAMPLES = sorted(
    p
    for p in (Path(__file__).resolve().parents[1] / "examples").glob("*.py")
    if not p.name.startswith("_")
)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_without_a_key(example: Path, tmp_path):
    """...from any folder, writing nothing into it (report.py wrote its HTML there)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCOREKIT_", "OPENAI_"))}
    env["SCOREKIT_CACHE_DIR"] = str(tmp_path / "cache")
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    proc = subprocess.run(
        [sys.executable, str(example)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    assert list(cwd.iterdir()) == []
