"""The embedded quickstart as an HTML report, with no API key: ``python examples/report.py``.

Writes the report into a temporary folder, or to ``OUT.html`` when given
(``python examples/report.py OUT.html``), and prints its path: open it from disk (no
network, no CDN). With ``SCOREKIT_MODEL`` set, the LLM context recall and precision
scorers join in.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from evals import quickstart


def main(out: str | None = None) -> Path:
    result = quickstart.run(os.environ.get("SCOREKIT_MODEL"), progress=False)
    print(result.table())
    if out is None:  # never into the checkout
        out = str(Path(tempfile.mkdtemp(prefix="scorekit-")) / "quickstart_report.html")
    path = result.to_html(out, title="scorekit quickstart: BM25 over the embedded corpus")
    print(f"\nwrote {path.resolve()}")
    return path


if __name__ == "__main__":
    main(*sys.argv[1:2])
