"""Run trec_eval on the seeded cases and store its outputs as the tests' fixtures.

trec_eval 10 is built from its public source (usnistgov/trec_eval) outside the
project; only its outputs are committed (data, not code)::

    git clone https://github.com/usnistgov/trec_eval && make -C trec_eval
    python benchmarks/differential/trec_fixtures.py --trec-eval trec_eval/trec_eval

The tests (tests/scorers/test_trec_differential.py) rebuild each case from its seed and
compare `scorekit trec` with the stored output byte for byte. Without ``--write`` the
script only reports how many outputs differ from the stored ones.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cases import ON_SHARED_FILES, OPTIONS, all_cases, encoded

FIXTURES = Path(__file__).resolve().parents[2] / "tests/scorers/data/trec_eval10.json.gz"
SHARED = Path(__file__).resolve().parents[3] / "shared/data/trec_eval"


def outputs(trec_eval: str) -> dict[str, dict[str, object]]:
    """``{"seed/option": {"rc": exit code, "stdout": text (when rc is 0)}}``."""
    found: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder, "qrels"), Path(folder, "run")
        for case in all_cases():
            qrels.write_bytes(encoded(case.qrels))
            run.write_bytes(encoded(case.run))
            for name, options in OPTIONS.items():
                done = subprocess.run(
                    [trec_eval, *options, str(qrels), str(run)], capture_output=True
                )
                entry: dict[str, object] = {"rc": done.returncode}
                if done.returncode == 0:
                    entry["stdout"] = done.stdout.decode("utf-8", "surrogateescape")
                found[f"{case.name}/{name}"] = entry
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", required=True, help="the trec_eval binary")
    parser.add_argument("--write", action="store_true", help=f"rewrite {FIXTURES.name}")
    args = parser.parse_args()
    version = subprocess.run([args.trec_eval, "-v"], capture_output=True, text=True).stderr
    found = outputs(args.trec_eval)
    for name, options in ON_SHARED_FILES.items():
        *flags, qrels = options
        command = [args.trec_eval, *flags, str(SHARED / qrels), str(SHARED / "results.test")]
        found[f"shared/{name}"] = {"rc": 0, "stdout": subprocess.check_output(command, text=True)}
    failed = sum(entry["rc"] != 0 for entry in found.values())
    print(f"{version.strip()}: {len(found)} outputs, {failed} of them error exits")
    if args.write:
        payload = {"trec_eval": version.strip(), "outputs": found}
        FIXTURES.write_bytes(gzip.compress(json.dumps(payload, sort_keys=True).encode(), mtime=0))
        print(f"wrote {FIXTURES} ({FIXTURES.stat().st_size:,} bytes)")
    elif FIXTURES.exists():
        stored = json.loads(gzip.decompress(FIXTURES.read_bytes()))["outputs"]
        changed = sum(stored.get(key) != value for key, value in found.items())
        print(f"{changed} differ from {FIXTURES.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
