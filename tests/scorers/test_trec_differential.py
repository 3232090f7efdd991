"""scorekit trec against trec_eval 10 itself, byte for byte.

The fixture holds trec_eval 10's output (built from its public source) for seeded random
qrels and runs (graded and negative grades, ties, unjudged documents, queries missing
from either side, documents listed twice) under many option sets (-q, -c, -l, -M, -J,
-N, -n, families, gains), and for trec_eval's own test commands on ../shared/data's
files. benchmarks/differential/trec_fixtures.py regenerates it.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from evals.cli import main
from tests.conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "differential"))
from cases import ON_SHARED_FILES, OPTIONS, SEEDS, make_case  # noqa: E402

STORED = json.loads(
    gzip.decompress((Path(__file__).parent / "data/trec_eval10.json.gz").read_bytes())
)
OUTPUTS = STORED["outputs"]


def _scorekit(arguments: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["trec", *arguments])
    return code, out.getvalue()


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_seeded_cases_print_what_trec_eval_10_prints(option, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    compared = failed = 0
    for seed in SEEDS:
        case = make_case(seed)
        qrels.write_text(case.qrels)
        run.write_text(case.run)
        expected = OUTPUTS[f"{case.name}/{option}"]
        code, out = _scorekit([*OPTIONS[option], str(qrels), str(run)])
        if expected["rc"] != 0:  # trec_eval stops (a judged query without a ranking,
            assert code != 0, case.name  # a document twice): scorekit refuses too
            failed += 1
            continue
        assert (code, out) == (0, expected["stdout"]), (case.name, option)
        compared += 1
    assert compared >= 8, f"only {compared} of {len(SEEDS)} cases produce output"


@pytest.mark.parametrize("name", ["out.test.aql", "out.test.meas_params"])
def test_trec_evals_own_test_commands(name):
    folder = SHARED_DATA / "trec_eval"
    if not (folder / "qrels.rel_level").exists():
        pytest.skip(f"trec_eval's test files not found under {folder} (../shared/data is absent)")
    *flags, qrels = ON_SHARED_FILES[name]
    code, out = _scorekit([*flags, str(folder / qrels), str(folder / "results.test")])
    assert (code, out) == (0, OUTPUTS[f"shared/{name}"]["stdout"])
