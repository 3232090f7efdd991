"""How fast `scorekit view` answers over a folder of 1,000 runs and over one run of
100,000 items: reading the folder the first time, the listing and the run page once read,
a restart (the index kept on disk), and the pages in headless Chromium (time from
navigation to the page drawn).

    python benchmarks/bench_view.py [--runs 1000] [--items 100000]

Files go to a temporary folder removed at the end; no tracked file is written.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def get(server, path: str, etag: str | None = None) -> tuple[float, int]:
    """Seconds and bytes of one answer (``etag``: asked as the page's poll asks)."""
    headers = {"X-Scorekit-Token": server.token}
    if etag is not None:
        headers["If-None-Match"] = etag
    request = urllib.request.Request(server.origin + path, headers=headers)
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            size = len(response.read())
    except urllib.error.HTTPError as exc:  # 304: unchanged
        size = len(exc.read())
    return time.perf_counter() - started, size


def median_get(server, path: str, repeat: int = 7, etag: str | None = None) -> tuple[float, int]:
    found = [get(server, path, etag) for _ in range(repeat)]
    return statistics.median(t for t, _ in found), found[0][1]


def etag_of(server, path: str) -> str:
    request = urllib.request.Request(
        server.origin + path, headers={"X-Scorekit-Token": server.token}
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.headers["ETag"]


def chromium() -> Any:
    """A headless Chromium (the tests' driver), or None where there is none."""
    try:
        from tests.evals.view._browser import BROWSER, Browser
    except ImportError:
        return None
    return None if BROWSER is None else Browser()


def page_load(url: str, where: str) -> float | None:
    """Seconds from navigation to the viewer's page drawn, median of 5, in Chromium."""
    browser = chromium()
    if browser is None:
        return None
    try:
        tab = browser.tab()
        times = []
        for _ in range(5):
            tab.open("about:blank")
            time.sleep(0.2)
            started = time.perf_counter()
            tab.open(url)
            tab.ready(where, timeout=600)
            times.append(time.perf_counter() - started)
        return statistics.median(times)
    finally:
        browser.close()


def filter_times(url: str, where: str) -> tuple[float, float] | None:
    """Seconds from a filter chosen on the run page (a score range, no typing delay) to
    its rows drawn in Chromium: the first one, as soon as the run is open on a fresh
    server (the run's light rows read), and the median of 5 after it."""
    browser = chromium()
    if browser is None:
        return None
    try:
        tab = browser.tab()
        tab.open(url)
        tab.ready(where, timeout=600)
        sid = tab.js("document.querySelectorAll('#item-scorer option')[1].value")
        times = []
        for k in range(6):
            low = f"0.{k + 1}"
            started = time.perf_counter()
            tab.js(
                f"{{ const s = document.getElementById('item-scorer'); s.value = {sid!r};"
                f" const m = document.getElementById('item-min'); m.value = {low!r};"
                " m.dispatchEvent(new Event('change')); }"
            )
            tab.wait(
                f"(document.getElementById('items').dataset.answered || '').includes('min={low}')",
                timeout=600,
            )
            times.append(time.perf_counter() - started)
        return times[0], statistics.median(times[1:])
    finally:
        browser.close()


def many_runs(folder: Path, count: int) -> None:
    import evals.quickstart as quickstart

    bases = []
    for k in (1, 2, 3, 4, 5):
        path = folder / f"base{k}.jsonl"
        quickstart.run(None, k=k, results_path=path, progress="none")
        bases.append(path.read_text().splitlines(keepends=True))
        path.unlink()
    for i in range(count):
        lines = bases[i % 5]
        header = json.loads(lines[0])
        header["run"]["created"] = (
            f"2026-{1 + i // 250:02d}-{1 + (i // 10) % 25:02d}T{i % 10:02d}:00:00+00:00"
        )
        (folder / f"run{i:04d}.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


def big_run(folder: Path, items: int) -> None:
    from bench_big_run import write_data

    from evals import run_evals
    from scorers import (
        create_id_context_precision_scorer,
        create_id_context_recall_scorer,
        create_non_llm_context_recall_scorer,
    )

    data = folder.parent / "data.jsonl"
    write_data(data, items)
    scorers = [
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
        create_non_llm_context_recall_scorer(),
    ]
    run_evals(data, scorers, results_path=folder / "big.jsonl", keep_items=False, progress="none")
    data.unlink()


def measure(folder: Path, label: str, run: str) -> list[tuple[str, str]]:
    from evals import ViewServer

    rows = []
    with ViewServer(folder) as server:
        started = time.perf_counter()
        server.app.index.scan()
        server.app.index.wait(timeout=3600)
        rows.append(
            (
                f"{label}: first reading of the folder (index built)",
                f"{time.perf_counter() - started:.2f} s",
            )
        )
        took, size = median_get(server, "/api/runs")
        rows.append(
            (f"{label}: runs listing, once read", f"{took * 1000:.0f} ms ({size / 1e6:.2f} MB)")
        )
        took, size = median_get(server, "/api/runs", etag=etag_of(server, "/api/runs"))
        rows.append(
            (
                f"{label}: the page's 3 s poll, nothing changed (304)",
                f"{took * 1000:.0f} ms ({size} bytes)",
            )
        )
        took, _ = median_get(server, f"/api/run?path={run}")
        rows.append((f"{label}: a run's summary and agreement", f"{took * 1000:.0f} ms"))
        took, _ = median_get(server, f"/api/items?path={run}&start=0&count=50")
        rows.append((f"{label}: a page of 50 items", f"{took * 1000:.0f} ms"))
        home = page_load(server.url, "/")
        if home is not None:
            rows.append((f"{label}: home page in Chromium (list and trend drawn)", f"{home:.2f} s"))
        page = page_load(server.url + f"#/run/{run}", f"/run/{run}")
        if page is not None:
            rows.append(
                (f"{label}: run page in Chromium (summary and first items)", f"{page:.2f} s")
            )
    with ViewServer(folder) as server:
        started = time.perf_counter()
        listed = server.app.index.scan()
        get(server, "/api/runs")
        rows.append(
            (f"{label}: restart, listing with the index on disk ({len(listed['indexing'])} to read)",
             f"{time.perf_counter() - started:.2f} s")
        )  # fmt: skip
        filters = filter_times(server.url + f"#/run/{run}", f"/run/{run}")
        if filters is not None:
            rows.append(
                (f"{label}: first filter in Chromium, the run just opened (its rows read)",
                 f"{filters[0]:.2f} s")
            )  # fmt: skip
            rows.append((f"{label}: a filter in Chromium, rows read", f"{filters[1]:.2f} s"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-view-"))
    try:
        rows = []
        folder = work / "many"
        folder.mkdir()
        many_runs(folder, args.runs)
        rows += measure(
            folder,
            f"{args.runs:,} runs of 28 items",
            "run0999.jsonl" if args.runs == 1000 else "run0000.jsonl",
        )
        folder = work / "big"
        folder.mkdir()
        big_run(folder, args.items)
        rows += measure(folder, f"1 run of {args.items:,} items", "big.jsonl")
        print("| what | time |\n|---|---:|")
        for what, took in rows:
            print(f"| {what} | {took} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
