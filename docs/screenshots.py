"""Draw the report screenshots the README shows (docs/report-top.png, report-item.png).

Offline and deterministic: a small labelled set, the fake judge, a threshold that
fails, a baseline. Needs headless Chromium (``apt-get install -y chromium``):

    python docs/screenshots.py
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer, create_id_context_recall_scorer

HERE = Path(__file__).parent
CHUNKS = [
    {"id": "ulm", "text": "Albert Einstein was born in Ulm in 1879."},
    {"id": "nobel", "text": "He received the 1921 Nobel Prize in Physics."},
    {"id": "paris", "text": "Paris is the capital of France."},
]
ROWS = [
    {
        "id": f"q{i}",
        "input": "Where was Einstein born, and what did he win?",
        "ground_truth": "Einstein was born in Ulm. He won the 1921 Nobel Prize in Physics.",
        "context": CHUNKS[: 1 + i % 3],
        "reference_context_ids": ["ulm", "nobel"],
        "metadata": {"topic": "physics", "retriever": "bm25"},
    }
    for i in range(6)
]


def shoot(browser: str, page: Path, png: Path, height: int) -> None:
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={png}", f"--window-size=1280,{height}", "--virtual-time-budget=5000",
         page.resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def main() -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("headless Chromium not found: apt-get install -y chromium")
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        scorers = [create_context_recall_scorer(server.judge()), create_id_context_recall_scorer()]
        gates = {
            "thresholds": {"context-recall": 0.95},
            "item_thresholds": {"context-recall": 0.75},
        }
        base = run_evals(ROWS, scorers, progress=False, **gates)
        better = [{**row, "context": CHUNKS[:2]} if row["id"] == "q0" else row for row in ROWS]
        cand = run_evals(better, scorers, progress=False, **gates)
        page = cand.to_html(Path(tmp) / "report.html", baseline=base)
        # the banner and the items table: the copy hides the summary sections between them
        top = page.read_text().replace(
            "</head>",
            "<style>#summary,.hists,#comparison,#changed,h2,p.muted{display:none}</style></head>",
        )
        top_page = Path(tmp) / "top.html"
        top_page.write_text(top)
        shoot(browser, top_page, HERE / "report-top.png", 520)
        # the item view alone: the copy hides the sections above it and opens item q2
        focus = (
            page.read_text()
            .replace("</head>", "<style>body>*:not(h1):not(#view){display:none}</style></head>")
            .replace("</body>", "<script>location.hash='item=q2'</script></body>")
        )
        item_page = Path(tmp) / "item.html"
        item_page.write_text(focus)
        shoot(browser, item_page, HERE / "report-item.png", 900)
    for name in ("report-top.png", "report-item.png"):
        print(f"wrote docs/{name} ({(HERE / name).stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
