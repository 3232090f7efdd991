"""People's labels, the judge's agreement with them, and the --min-agreement gate."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from evals import (
    MIN_LABELS,
    JudgeVerdict,
    LabelStore,
    agreement_gates,
    calibrate,
    judge_agreements,
    read_results,
)
from evals._agreement._agreement import agreements_for
from evals._agreement._verdicts import draw_verdicts, judged_scorers, verdicts_of
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import ConfigError, create_context_recall_scorer


def verdict(k: int, supported: bool, model: str = "openai/fake-judge", prompt: str = "1"):
    return JudgeVerdict(
        scorer_id="context-recall",
        kind="claim",
        judge_model=model,
        prompt_version=prompt,
        text=f"claim {k}",
        context=[f"chunk {k}"],
        supported=supported,
    )


def label_many(store, pairs, **kwargs):
    for k, (said, person) in enumerate(pairs):
        store.save(verdict(k, said, **kwargs), person)


def judged(pairs, **kwargs):
    """A run's own verdicts on the questions of ``label_many``'s pairs: what it said."""
    return {
        "context-recall": {
            verdict(k, said, **kwargs).key: said for k, (said, _) in enumerate(pairs)
        }
    }


def agreements(store, run_said):
    return agreements_for(read_header(), store, run_said)


def test_a_store_that_does_not_exist_has_no_labels_and_is_not_created(tmp_path):
    store = LabelStore(tmp_path)
    assert store.labels() == [] and store.keys() == set() and store.judges("x") == {}
    assert not (tmp_path / "scorekit-labels.sqlite").exists()


def test_a_label_is_replaced_not_repeated_and_unsure_is_kept_but_not_counted(tmp_path):
    store = LabelStore(tmp_path)
    store.save(verdict(1, True), False)
    store.save(verdict(1, True), True)
    store.save(verdict(2, False), None)
    found = {x.verdict.text: x for x in store.labels()}
    assert len(found) == 2 and found["claim 1"].label is True and found["claim 1"].agrees
    assert found["claim 2"].label is None and found["claim 2"].agrees is None
    assert store.judges("context-recall") == {("openai/fake-judge", "1"): 1}
    assert store.calibration_rows("context-recall") == [
        {"claim": "claim 1", "context": ["chunk 1"], "label": "supported"}
    ]


def test_a_file_that_is_not_a_labels_database_is_refused(tmp_path):
    bad = tmp_path / "scorekit-labels.sqlite"
    bad.write_text("not sqlite at all " * 100)
    with pytest.raises(ConfigError, match="not a scorekit labels database"):
        LabelStore(bad).labels()


@pytest.mark.parametrize("seed", range(8))
def test_kappa_and_accuracy_equal_statsmodels(tmp_path, seed):
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = random.Random(seed)
    n = rng.randrange(12, 80)
    pairs = [(rng.random() < 0.6, rng.random() < 0.55) for _ in range(n)]
    pairs = [(said, said if rng.random() < 0.7 else person) for said, person in pairs]
    store = LabelStore(tmp_path)
    label_many(store, pairs)
    (found,) = agreements(store, judged(pairs))
    table = np.zeros((2, 2))
    for said, person in pairs:
        table[int(person), int(said)] += 1
    assert found.n == n
    assert found.kappa == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    assert found.accuracy == pytest.approx(sum(s == p for s, p in pairs) / n, abs=1e-12)
    low, high = found.kappa_ci
    assert low <= found.kappa <= high


def read_header():
    from evals import RunHeader

    return RunHeader.model_validate(
        {
            "scorers": {
                "context-recall": {
                    "judge": {"model": "openai/fake-judge"},
                    "prompt_versions": {"claims": "2", "verdicts": "1"},
                },
                "mrr": {},
            }
        }
    )


def test_the_gate_passes_fails_and_cannot_decide_as_stated(tmp_path):
    run_said = judged([(k % 2 == 0, None) for k in range(120)])
    run_said["context-recall"][verdict(100, True).key] = True
    empty = LabelStore(tmp_path / "none")
    (gate,) = agreement_gates(agreements(empty, run_said), 0.5)
    assert not gate.passed and not gate.decided and gate.why == "no labels for this judge yet"
    store = LabelStore(tmp_path)
    label_many(store, [(k % 2 == 0, k % 2 == 0) for k in range(MIN_LABELS - 1)])
    (gate,) = agreement_gates(agreements(store, run_said), 0.5)
    assert not gate.decided and f"fewer than {MIN_LABELS}" in gate.why
    store.save(verdict(100, True), True)
    (gate,) = agreement_gates(agreements(store, run_said), 0.5)
    assert gate.passed and gate.kappa == 1.0 and gate.n == MIN_LABELS
    label_many(store, [(True, False)] * 12)  # keys 0-11 now disagree
    (gate,) = agreement_gates(agreements(store, run_said), 0.5)
    assert gate.decided and not gate.passed and gate.why.startswith("κ ")
    (gate,) = agreement_gates(agreements(store, run_said), -1)
    assert gate.passed


def test_a_bare_header_or_labels_on_other_questions_never_decide(tmp_path):
    store = LabelStore(tmp_path)
    pairs = [(k % 2 == 0, k % 2 == 0) for k in range(30)]
    label_many(store, pairs)
    (gate,) = agreement_gates(read_header(), 0.5, store)  # no items: no verdicts of the run
    assert not gate.decided and "verdicts could not be read" in gate.why
    other = {"context-recall": {verdict(k + 1000, True).key: True for k in range(30)}}
    (found,) = agreements(store, other)
    assert found.n == 0 and found.labelled == 30 and "none of the 30 labels" in found.line()
    (gate,) = agreement_gates([found], 0.5)
    assert not gate.decided and not gate.passed


def test_labels_of_another_judge_or_prompt_fail_the_gate(tmp_path):
    store = LabelStore(tmp_path)
    label_many(store, [(k % 2 == 0, k % 2 == 0) for k in range(20)], model="openai/gpt-4o-mini")
    (gate,) = agreement_gates(agreements(store, judged([(True, None)] * 20)), 0.5)
    assert gate.decided and not gate.passed
    assert "judge or prompt changed" in gate.why and "openai/gpt-4o-mini, prompt v1" in gate.why
    store2 = LabelStore(tmp_path / "b")
    label_many(store2, [(k % 2 == 0, k % 2 == 0) for k in range(20)], prompt="0")
    (found,) = agreements(store2, judged([(True, None)] * 20))
    assert found.n == 0 and found.elsewhere == {"openai/fake-judge, prompt v0": 20}
    assert "labels exist for openai/fake-judge, prompt v0: 20" in found.line()


def test_one_class_only_leaves_kappa_undefined_and_the_gate_undecided(tmp_path):
    store = LabelStore(tmp_path)
    label_many(store, [(True, True)] * 12)
    (gate,) = agreement_gates(agreements(store, judged([(True, True)] * 12)), 0.5)
    assert gate.kappa is None and not gate.decided and "one class" in gate.why


def test_bad_bounds_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="between -1 and 1"):
        agreement_gates(read_header(), 1.5, tmp_path)
    with pytest.raises(ConfigError, match="finite"):
        agreement_gates(read_header(), float("nan"), tmp_path)


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory):
    import evals.quickstart as quickstart

    folder = tmp_path_factory.mktemp("judged")
    with FakeLLMServer() as server:
        quickstart.run(server.judge(), results_path=folder / "run.jsonl", progress="none")
    return folder / "run.jsonl"


def test_every_verdict_of_a_run_and_a_stratified_seeded_sample(judged_run):
    run = read_results(judged_run)
    judged = judged_scorers(run.header)
    every = [v for item in run for v in verdicts_of(item, "run.jsonl", judged)]
    recall = [v for v in every if v.scorer_id == "context-recall"]
    precision = [v for v in every if v.scorer_id == "context-precision"]
    assert len(precision) == 28 * 3 and all(v.kind == "chunk" for v in precision)
    claims = sum(len(i.scorer_results["context-recall"].details["claims"]["claims"]) for i in run)
    assert len(recall) == claims and all(v.context for v in recall)
    one = draw_verdicts(run, "run.jsonl", run.header, 20, seed=5)
    assert [v.key for v in one] == [
        v.key for v in draw_verdicts(run, "run.jsonl", run.header, 20, seed=5)
    ]
    assert [v.key for v in one] != [
        v.key for v in draw_verdicts(run, "run.jsonl", run.header, 20, seed=6)
    ]
    strata = [(v.scorer_id, v.supported) for v in one]
    counts = {s: strata.count(s) for s in set(strata)}
    available = {s: len({v.key for v in every if (v.scorer_id, v.supported) == s}) for s in counts}
    assert available[("context-recall", False)] == 3  # the judge rarely says no here: all 3
    relevance = [v for v in every if v.scorer_id == "context-relevance"]
    assert len(relevance) == 28 * 3 and all(v.kind == "relevance" for v in relevance)
    assert {v.grade for v in relevance} <= {0, 1, 2, 3}
    assert all(v.supported == (v.grade >= 2) for v in relevance)
    assert sum(counts.values()) == 20 and len(counts) == 6  # every stratum, taking turns
    assert counts[("context-recall", False)] == 3
    assert max(counts.values()) - min(n for s, n in counts.items() if available[s] > 3) <= 1
    skipped = draw_verdicts(run, "run.jsonl", run.header, 500, skip={v.key for v in one})
    assert not {v.key for v in skipped} & {v.key for v in one}
    assert len(skipped) == len({v.key for v in every}) - 20


def test_run_and_compare_print_agreement_and_gate_on_it(judged_run, tmp_path, capsys):
    run = read_results(judged_run)
    store = LabelStore(tmp_path)
    sample = draw_verdicts(run, "run.jsonl", run.header, 45, seed=0)
    for k, v in enumerate(sample):
        store.save(v, v.label_for(agree=bool(k % 10)))  # 5 of 45 disagree
    code = main(["compare", str(judged_run), str(judged_run), "--labels", str(tmp_path),
                 "--min-agreement", "0.4"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "judge agreement with people" in out and "context-recall min agreement" in out
    (recall,) = [a for a in judge_agreements(run, store) if a.scorer_id == "context-recall"]
    assert f"κ {recall.kappa:.2f}" in out and f"{recall.n} labels" in out
    code = main(["compare", str(judged_run), str(judged_run), "--labels", str(tmp_path),
                 "--min-agreement", "0.95", "--format", "json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["exit_code"] == 1
    assert {g["scorer"] for g in report["agreement_gates"] if not g["passed"]} >= {"context-recall"}
    code = main(["compare", str(judged_run), str(judged_run), "--labels", str(tmp_path / "no"),
                 "--min-agreement", "0.5"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 4 and "no labels for this judge yet" in out and "UNDECIDED" in out


def test_scorekit_run_gates_on_agreement(tmp_path, capsys):
    data = tmp_path / "data.jsonl"
    rows = [
        {"id": f"q{i}", "input": "Where was Einstein born?", "ground_truth": "Einstein was born "
         "in Ulm.", "context": ["Einstein was born in Ulm in 1879.", "Paris is in France."]}
        for i in range(3)
    ]  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeLLMServer() as server:
        base = ["run", str(data), "--scorer", "context-recall", "--model", "openai/fake-judge",
                "--api-base", server.url, "--out", str(tmp_path / "r.jsonl"), "--no-progress"]  # fmt: skip
        assert main([*base, "--min-agreement", "0.4"]) == 4
        assert "no labels for this judge yet" in capsys.readouterr().out
        run = read_results(tmp_path / "r.jsonl")
        store = LabelStore(tmp_path)  # beside the results file: found without --labels
        for k in range(12):
            store.save(verdict(k, k % 2 == 0), k % 2 == 0)  # not questions of this run
        assert main([*base, "--min-agreement", "0.4", "--resume"]) == 4
        assert "none of the 12 labels for this judge" in capsys.readouterr().out
        for v in draw_verdicts(run, "r.jsonl", run.header, 40):
            store.save(v, v.label_for(agree=True))
        n = len({v.key for item in run for v in verdicts_of(item, "", judged_scorers(run.header))})
        assert n == 1  # three items, one question: one label in common, too few to decide
        assert main([*base, "--min-agreement", "0.4", "--resume"]) == 4
        out = capsys.readouterr().out
        assert "1 labelled questions in common with this run, fewer than 10" in out
        assert main([*base, "--min-agreement", "2", "--resume"]) == 2
    assert run.header.scorers["context-recall"].prompt_versions["verdicts"] == "1"


def test_calibrate_reads_the_stored_labels(tmp_path, judged_run):
    run = read_results(judged_run)
    store = LabelStore(tmp_path)
    sample = draw_verdicts(run, "run.jsonl", run.header, 16, seed=2)
    for v in sample:
        store.save(v, v.label_for(agree=True))
    with FakeLLMServer() as server:
        found = calibrate(create_context_recall_scorer(server.judge()), tmp_path)
    claims = [v for v in sample if v.scorer_id == "context-recall"]
    assert found.n == len(claims) > 0
    assert found.metrics["accuracy"] == 1.0  # the same judge, asked again, says the same
    with pytest.raises(Exception, match="no decided labels of label-check"):
        from evals._calibrate import calibration_rows

        calibration_rows(tmp_path, "label-check")


def test_a_label_survives_kill_9_right_after_it_is_saved(tmp_path):
    script = textwrap.dedent(
        f"""
        import os, signal
        from evals import JudgeVerdict, LabelStore
        store = LabelStore({str(tmp_path)!r})
        for k in range(5):
            store.save(JudgeVerdict(scorer_id="context-recall", kind="claim",
                judge_model="m", prompt_version="1", text=f"c{{k}}", supported=True), False)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert sorted(x.verdict.text for x in LabelStore(tmp_path).labels()) == [
        f"c{k}" for k in range(5)
    ]
    assert os.path.getsize(tmp_path / "scorekit-labels.sqlite") > 0


def test_a_bound_on_agreement_never_passes_for_a_run_without_a_judge(tmp_path):
    from evals import RunHeader

    header = RunHeader.model_validate({"scorers": {"mrr": {}}})
    (gate,) = agreement_gates(header, 0.5, tmp_path)
    assert not gate.passed and not gate.decided and "no scorer of this run" in gate.why


def inverted_judge(request):
    """The rule judge with every verdict turned round, served under the same model name."""
    from evals.testing import FakeResponse, rule_based_judge

    answer = json.loads(rule_based_judge(request).content)
    for v in answer.get("verdicts", []):
        if "verdict" in v:
            v["verdict"] = {"yes": "no", "no": "yes"}[v["verdict"]]
        if "relevance" in v:  # the levels turned round too: high <-> none, medium <-> low
            v["relevance"] = {"high": "none", "medium": "low", "low": "medium", "none": "high"}[
                v["relevance"]
            ]
    return FakeResponse(json.dumps(answer))


def test_agreement_is_the_scoring_judges_not_the_labelled_ones(tmp_path, capsys):
    import evals.quickstart as quickstart

    with FakeLLMServer() as server:
        quickstart.run(server.judge(), results_path=tmp_path / "main.jsonl", progress="none")
    with FakeLLMServer(inverted_judge) as server:  # another endpoint, the same name
        judge = server.judge()
        assert judge.model == "openai/fake-judge"
        quickstart.run(judge, results_path=tmp_path / "inverted.jsonl", progress="none")
    store = LabelStore(tmp_path)
    for v in draw_verdicts(read_results(tmp_path / "main.jsonl"), "main.jsonl",
                           read_results(tmp_path / "main.jsonl").header, 40):  # fmt: skip
        store.save(v, v.label_for(agree=True))  # people agree with the first judge on all 40
    honest = {a.scorer_id: a for a in judge_agreements(tmp_path / "main.jsonl")}
    inverted = {a.scorer_id: a for a in judge_agreements(tmp_path / "inverted.jsonl")}
    assert honest["context-precision"].kappa == 1.0 and honest["context-precision"].n >= 10
    for sid, a in inverted.items():
        assert a.n == honest[sid].n and a.accuracy == 0.0, (sid, a)
    code = main(["compare", str(tmp_path / "main.jsonl"), str(tmp_path / "inverted.jsonl"),
                 "--min-agreement", "0.6"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1, out
    assert "context-precision min agreement κ >= 0.6: FAILED" in out
    assert "passed (κ 1.000" not in out
