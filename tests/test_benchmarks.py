"""The judge-agreement benchmark runs end to end (with the rule-based fake judge)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.slow  # fresh interpreters, subprocesses

ROOT = Path(__file__).resolve().parents[1]


def test_judge_agreement_benchmark_smoke(tmp_path):
    if not (SHARED_DATA / "wice" / "dev.jsonl").exists():
        pytest.skip(f"WiCE not found under {SHARED_DATA} (../shared/data is absent)")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "judge_agreement.py"), "--fake", "--limit", "8"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PATH": "", "SCOREKIT_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "WiCE dev, 8 claims" in proc.stdout and "kappa" in proc.stdout


def test_synthesis_benchmark_smoke(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_synthesis.py"),
            "--n",
            "4",
            "--peer-python",
            str(tmp_path / "no-python"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PATH": "", "SCOREKIT_CACHE_DIR": str(tmp_path), "NO_PROXY": "*"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "| scorekit synthesize | 4 | 4 |" in proc.stdout
    assert "Ragas not measured" in proc.stderr


def test_power_benchmark_smoke(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_power.py"), "--trials", "200",
         "--full-trials", "5", "--resamples", "200"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| normal | 300 |")]
    found = float(rows[0].split("|")[4])
    assert 0.65 < found < 0.95  # about 80%: 200 trials leave about ±0.06


def test_view_benchmark_smoke(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_view.py"),
            "--runs",
            "5",
            "--items",
            "300",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "5 runs of 28 items: first reading" in proc.stdout
    assert "1 run of 300 items: a page of 50 items" in proc.stdout


def test_live_benchmark_smoke(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_live.py"), "--answers", "200",
         "--judged", "40", "--latency", "0.01"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={"PATH": "", "SCOREKIT_CACHE_DIR": str(tmp_path), "NO_PROXY": "*"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "model-free, 200 answers" in proc.stdout and "judged (10 ms" in proc.stdout


def test_streamed_benchmark_parts_smoke():
    found = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_streamed.py"), "--rows", "300",
         "--repeat", "1", "--parts"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    out = found.stdout
    assert "the results line, by stubbing it out" in out
    assert "the four fast paths" in out and "the first pass" in out


def test_streamed_benchmark_prints_the_three_ratios():
    found = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_streamed.py"), "--rows", "300",
         "--memory-rows", "60", "--ranking-rows", "40", "--repeat", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    out = found.stdout
    assert "vs plain loop" in out and "vs bare kernel loop" in out and "vs evaluate_ranking" in out
    assert "peak memory" in out
