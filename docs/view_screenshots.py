"""Draw the viewer screenshots docs/view.md and the README show (docs/view-runs.png,
docs/view-review.png).

Offline and deterministic but for the start times: five runs of the quickstart with the
fake judge (the retriever's k changes from run to run, so one run dips), twenty verdicts
labelled. Needs headless Chromium (``apt-get install -y chromium``) and websocket-client
(``[dev]``):

    python docs/view_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))


def main() -> None:
    import evals.quickstart as quickstart
    from evals import LabelStore, ViewServer, sample_verdicts
    from evals.testing import FakeLLMServer
    from tests.evals.view._browser import BROWSER, Browser

    if BROWSER is None:
        raise SystemExit("headless Chromium not found: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        with FakeLLMServer() as server:
            for number, k in enumerate((3, 3, 1, 3, 2)):
                path = folder / f"2026-12-0{number + 1}-bm25-k{k}.jsonl"
                quickstart.run(server.judge(), k=k, results_path=path, progress="none")
        last = sorted(folder.glob("*.jsonl"))[-1]
        store = LabelStore(folder)
        for n, verdict in enumerate(sample_verdicts(last, 20, seed=0)):
            store.save(verdict, verdict.label_for(agree=bool(n % 7)))
        browser = Browser()
        try:
            with ViewServer(folder) as viewer:
                viewer.app.index.wait()
                tab = browser.tab()
                tab.open(viewer.url)
                tab.ready("/")
                tab.screenshot(HERE / "view-runs.png", height=760)
                tab.open(viewer.url + f"#/review/{last.name}")
                tab.ready(f"/review/{last.name}")
                tab.screenshot(HERE / "view-review.png", height=640)
        finally:
            browser.close()
    for name in ("view-runs.png", "view-review.png"):
        print(f"wrote docs/{name} ({(HERE / name).stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
