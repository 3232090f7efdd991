"""Every prebuilt scorer is one self-describing entry: a scorer registered from outside
scorekit (a decorator, or an installed package's entry point) is built by id, listed, and
answered by the offline judge without touching the rule judge."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from pydantic import BaseModel

from evals.testing import FakeLLMServer
from scorers import (
    PromptStep,
    create_scorer,
    register_scorer,
    scorer_by_id,
    scorer_ids,
)
from scorers._internal import registry, rule_answer


class Tone(BaseModel):
    """Judge contract: ``{"tone": "calm" | "angry"}``."""

    tone: str


@register_scorer("tone-check", needs_model=True, answers={"Tone": lambda prompt: {"tone": "calm"}})
def create_tone_scorer(model, options=None):
    """Tone check: 1 when the judge finds the answer calm."""
    return (
        create_scorer(id="tone-check", description="calm answers", judge=model)
        .analyze(
            PromptStep(
                description="the answer's tone",
                output_schema=Tone,
                create_prompt=lambda run, results: f"Tone of: {run.output}",
            ),
            name="tone",
        )
        .generate_score(lambda run, results: 1.0 if results["tone"].tone == "calm" else 0.0)
    )


def test_a_scorer_registered_outside_runs_against_the_fake_judge():
    assert "tone-check" in registry() and registry()["tone-check"].answers.keys() == {"Tone"}
    assert scorer_ids()["tone-check"] == "Tone check: 1 when the judge finds the answer calm"
    assert rule_answer("anything", "Tone") == '{"tone": "calm"}'
    with FakeLLMServer() as server:
        scorer = scorer_by_id("tone-check", server.judge())
        result = scorer.run(input="q", output="All is well.")
    assert result.status == "scored" and result.score == 1.0


def test_every_llm_scorer_declares_an_answer_for_every_contract_it_asks():
    with FakeLLMServer() as server:
        for sid, entry in registry().items():
            if not entry.needs_model:
                continue
            built = entry.factory(server.judge(), None)
            asked = {
                step.fn.output_schema.model_json_schema()["title"]
                for step in built.steps
                if isinstance(step.fn, PromptStep)
            }
            assert asked and asked <= set(entry.answers), (sid, asked)


def test_scorekit_s_own_entries_describe_themselves():
    entries = registry()
    assert entries["context-recall"].ragas == "LLMContextRecall"
    assert set(entries["context-recall"].answers) == {"Claims", "ClaimVerdicts", "Reason"}
    assert entries["id-context-recall"].answers == {}
    assert not entries["id-context-recall"].needs_model


def test_an_installed_package_s_scorers_come_through_its_entry_point(tmp_path):
    package = tmp_path / "tonepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "scorers.py").write_text(
        textwrap.dedent(
            '''
            from scorers import create_scorer, register_scorer, scorer_ids

            assert "id-context-recall" in scorer_ids()  # the registry, read while it loads

            @register_scorer("always-one", needs_model=False)
            def create_always_one(options=None):
                """Always one: a third party's scorer."""
                return create_scorer(id="always-one").generate_score(lambda run, r: 1.0)
            '''
        )
    )
    dist = tmp_path / "tonepkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tonepkg\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[scorekit.scorers]\nalways = tonepkg.scorers\nbroken = tonepkg.missing\n"
    )
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "q1", "input": "q"}\n')
    env = {"PYTHONPATH": str(tmp_path), "PATH": ""}
    listed = subprocess.run(
        [sys.executable, "-m", "evals.cli", "scorers"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip  # before: a deadlock on the registry's lock
    assert listed.returncode == 0, listed.stderr
    assert "always-one" in listed.stdout and "a third party's scorer" in listed.stdout
    assert "entry point 'broken' (tonepkg.missing) failed to load" in listed.stderr
    ran = subprocess.run(
        [sys.executable, "-m", "evals.cli", "run", str(data), "--scorer", "always-one",
         "--no-progress"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "always-one" in ran.stdout and "1.000" in ran.stdout


def _plugin(tmp_path, modules: dict[str, str]) -> dict[str, str]:
    package = tmp_path / "clashpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, code in modules.items():
        (package / f"{name}.py").write_text(textwrap.dedent(code))
    dist = tmp_path / "clashpkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: clashpkg\nVersion: 0.1\n")
    points = "".join(f"{name} = clashpkg.{name}\n" for name in modules)
    (dist / "entry_points.txt").write_text(f"[scorekit.scorers]\n{points}")
    return {"PYTHONPATH": str(tmp_path), "PATH": ""}


def _cli(env, *args):
    return subprocess.run(
        [sys.executable, "-m", "evals.cli", *args], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip


def test_a_plugin_cannot_take_a_built_in_id_unless_it_says_override(tmp_path):
    env = _plugin(
        tmp_path,
        {
            "stealer": """
                from scorers import create_scorer, register_scorer

                @register_scorer("mrr", needs_model=False)
                def create_fake_mrr(options=None):
                    \"\"\"Always one.\"\"\"
                    return create_scorer(id="mrr").generate_score(lambda run, r: 1.0)
            """,
            "replacer": """
                from scorers import create_scorer, register_scorer

                @register_scorer("id-context-recall", needs_model=False, override=True)
                def create_lenient(options=None):
                    return create_scorer(id="id-context-recall").generate_score(lambda run, r: 1.0)
            """,
            "quitter": "import sys\nsys.exit(1)\n",
        },
    )
    data = tmp_path / "data.jsonl"
    data.write_text(
        '{"id": "q1", "input": "q", "reference_context_ids": ["a"], '
        '"context": [{"id": "b", "text": "x"}, {"id": "a", "text": "y"}]}\n'
    )
    listed = _cli(env, "scorers")
    assert listed.returncode == 0, listed.stderr  # no IndexError on a factory without a docstring
    assert (
        "entry point 'stealer' (clashpkg.stealer) failed to load: ConfigError: scorer id 'mrr'"
        in listed.stderr
    )
    assert "scorekit's built-in ranking metric mrr" in listed.stderr
    assert "clashpkg.stealer.create_fake_mrr" in listed.stderr
    assert "entry point 'quitter' (clashpkg.quitter) failed to load: SystemExit: 1" in listed.stderr
    (line,) = [x for x in listed.stdout.splitlines() if x.strip().startswith("id-context-recall")]
    assert "[OVERRIDES scorekit's built-in scorers._prebuilt." in line
    (mrr,) = [x for x in listed.stdout.splitlines() if x.strip().startswith("mrr ")]
    assert "trec_eval definition" in mrr
    out = tmp_path / "r.jsonl"
    ran = _cli(env, "run", str(data), "--scorer", "mrr", "--scorer", "id-context-recall",
               "--threshold", "mrr=0.9", "--out", str(out), "--no-progress")  # fmt: skip
    assert ran.returncode == 1, ran.stderr  # the built-in mrr: 0.5 < 0.9
    header = __import__("json").loads(out.read_text().splitlines()[0])["run"]
    assert list(header["overrides"]) == ["id-context-recall"]
    assert "clashpkg.replacer.create_lenient" in header["overrides"]["id-context-recall"]


def test_registering_a_taken_id_in_code_names_both():
    from scorers import ConfigError, create_scorer

    with pytest.raises(
        ConfigError, match=r"'context-recall' is scorekit's built-in scorers\._prebuilt"
    ):

        @register_scorer("context-recall", needs_model=False)
        def create_mine(options=None):
            return create_scorer(id="context-recall").generate_score(lambda run, r: 1.0)

    assert registry()["context-recall"].needs_model
