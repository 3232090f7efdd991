"""Every extension kind is one `Registry`: a toy of each — a scorer, a ranking measure, a
file format, a context extractor, a fast path and a CLI command — registered from a test
and through an installed package's entry points, is seen everywhere its kind is used."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from evals import load_dataset
from evals.cli import build_parser, main, register_command
from scorers import ConfigError, register_context_extractor, register_scorer, scorer_ids
from scorers._internal import registries
from scorers.lowlevel import Measure, register_fast_path, register_measure, trec_names

KINDS = {"scorers", "measures", "formats", "context_extractors", "fast_paths", "commands"}

TOYS = textwrap.dedent(
    '''
    """A third party's toys, one of each extension kind."""
    import json

    from evals import register_format
    from evals.cli import register_command
    from scorers import create_scorer, register_context_extractor, register_scorer
    from scorers.lowlevel import Measure, register_fast_path, register_measure, with_fast_path


    def hits_at_one(batch, metric):
        """Relevant documents at rank 1."""
        return batch.relevant_in_top(1)


    register_measure(Measure("toy_hits", hits_at_one))


    def read_toy(path, columns):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            key, question = line.split("|")
            yield f"{path.name} line {number}", {"id": key, "input": question}


    register_format(".toy", read_toy)


    @register_context_extractor("toy_chunks")
    def toy_chunks(input, output):
        """Every line of the answer as a chunk."""
        return str(output).splitlines()


    class Halves:
        def score(self, runs, memo):
            return [(0.5, "half, by the fast path", {}) for _ in runs]


    @register_fast_path("toy-half")
    def halves(options):
        return Halves()


    @register_scorer("toy-half", needs_model=False)
    def create_toy_half(options=None):
        """Always a half: a third party's scorer with a fast path."""
        scorer = create_scorer(id="toy-half").generate_score(lambda run, r: 0.5)
        return with_fast_path(scorer, options)


    def add(commands):
        """say hello (a third party's command)"""
        hello = commands.add_parser("hello", help="say hello (a third party's command)")
        hello.set_defaults(handler=lambda args: print("hello from a plugin") or 0)


    register_command("hello", add)
    '''
)


def test_every_kind_is_a_registry_whose_entries_describe_themselves():
    found = registries()
    assert KINDS <= set(found)
    for kind in KINDS:
        described = found[kind].described()
        assert described and all(d.kind == kind and d.name for d in described), kind
    measures = {d.name: d for d in found["measures"].described()}
    assert measures["map"].origin == "scorekit" and "mean" in measures["map"].description
    commands = {d.name: d.description for d in found["commands"].described()}
    assert set(commands) >= {"run", "trec", "view"}


@pytest.fixture
def toys():
    """The toys registered in this process, taken back after the test."""
    made = []

    def taken_back(kind, name):
        made.append((kind, name))

    yield taken_back
    for kind, name in made:
        registries()[kind].remove(name)


def test_toys_registered_from_a_test_are_seen_where_their_kind_is_used(toys, tmp_path, capsys):
    from evals import register_format
    from scorers import create_scorer
    from scorers._engine._fast import has_fast_path
    from scorers.lowlevel import with_fast_path

    register_measure(Measure("toy_hits", lambda batch, metric: batch.relevant_in_top(1)))
    toys("measures", "toy_hits")
    assert trec_names(["toy_hits"]) == ["toy_hits"]

    def read_toy(path, columns):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            yield f"line {number}", {"id": line, "input": f"question {line}"}

    register_format(".toy", read_toy)
    toys("formats", ".toy")
    (tmp_path / "set.toy").write_text("a\nb\n")
    assert [item.id for item in load_dataset(tmp_path / "set.toy")] == ["a", "b"]

    register_context_extractor("toy_chunks", lambda input, output: [str(output)])
    toys("context_extractors", "toy_chunks")

    class Halves:
        def score(self, runs, memo):
            return [(0.5, "half", {}) for _ in runs]

    register_fast_path("toy-half")(lambda options: Halves())
    toys("fast_paths", "toy-half")

    @register_scorer("toy-half", needs_model=False)
    def create_toy_half(options=None):
        """Always a half."""
        return with_fast_path(
            create_scorer(id="toy-half").generate_score(lambda r, x: 0.5), options
        )

    toys("scorers", "toy-half")
    assert "toy-half" in scorer_ids()
    assert has_fast_path(create_toy_half())

    def add(commands):
        """say hello"""
        hello = commands.add_parser("hello", help="say hello")
        hello.set_defaults(handler=lambda args: print("hello") or 0)

    register_command("hello", add)
    toys("commands", "hello")
    assert "hello" in build_parser().format_help()
    assert main(["hello"]) == 0 and capsys.readouterr().out == "hello\n"
    assert main(["scorers"]) == 0
    listed = capsys.readouterr().out
    assert "toy-half" in listed and "toy_chunks" in listed
    with pytest.raises(ConfigError, match="a command named 'hello' is already registered"):
        register_command("hello", add)


def test_toys_of_an_installed_package_come_through_their_entry_points(tmp_path):
    package = tmp_path / "toypkg"
    package.mkdir()
    (package / "__init__.py").write_text(TOYS)
    (package / "clash.py").write_text(
        "from scorers import register_context_extractor\n"
        "register_context_extractor('auto', lambda input, output: [])\n"
    )
    dist = tmp_path / "toypkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 0.1\n")
    groups = ["scorers", "measures", "formats", "context_extractors", "fast_paths", "commands"]
    points = "".join(f"[scorekit.{group}]\ntoys = toypkg\n" for group in groups)
    points = points.replace(
        "[scorekit.context_extractors]\ntoys = toypkg\n",
        "[scorekit.context_extractors]\ntoys = toypkg\nclash = toypkg.clash\nbroken = toypkg.nothing\n",
    )
    (dist / "entry_points.txt").write_text(points)
    env = {"PYTHONPATH": str(tmp_path), "PATH": ""}

    def scorekit(*args):
        found = subprocess.run([sys.executable, "-m", "evals.cli", *args], capture_output=True,
                               text=True, env=env, timeout=120, cwd=tmp_path)  # fmt: skip
        return found

    listed = scorekit("scorers")
    assert listed.returncode == 0, listed.stderr
    assert "toy-half" in listed.stdout and "a third party's scorer" in listed.stdout
    assert "toy_chunks" in listed.stdout
    assert "context extractor entry point 'clash' (toypkg.clash) failed to load" in listed.stderr
    assert "context extractor entry point 'broken' (toypkg.nothing) failed to load" in listed.stderr
    helped = scorekit("--help")
    assert "hello" in helped.stdout and "a third party's command" in helped.stdout
    assert scorekit("hello").stdout == "hello from a plugin\n"

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d9 1 1.0 r\n")
    trec = scorekit("trec", "qrels", "run", "-m", "toy_hits")
    assert trec.returncode == 0, trec.stderr
    assert trec.stdout.split() == ["toy_hits", "all", "0.5000"]

    (tmp_path / "set.toy").write_text("q1|what?\nq2|why?\n")
    ran = scorekit("run", "set.toy", "--scorer", "toy-half", "--no-progress", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    summary = json.loads(ran.stdout)
    assert summary["scores"]["toy-half"] == 0.5
    run = scorekit("run", "set.toy", "--scorer", "toy-half", "--no-progress", "--out", "out.jsonl")
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "out.jsonl").read_text().splitlines()[1:]
    reasons = {json.loads(line)["scorer_results"]["toy-half"]["reason"] for line in lines}
    assert reasons == {"half, by the fast path"}  # the plug-in scored them, not the steps
    for name, known in (("toy_chunks", True), ("no_such_one", False)):
        found = scorekit("run", "set.toy", "--scorer", "context-recall", "--model", "x",
                         "--option", f"context-recall.context_extractor={name}", "--estimate")  # fmt: skip
        assert ("no context extractor named" not in found.stderr) is known, found.stderr


def test_no_plugin_replaces_a_built_in_silently(toys):
    """Taking the name of one of scorekit's own measures, formats, fast paths, context
    extractors or commands is refused unless the plugin says ``override=True``."""
    from evals import register_format
    from scorers.lowlevel import TREC_MEASURES

    def mine(*args):
        return None

    attempts = [
        lambda **o: register_measure(Measure("map", mine), **o),
        lambda **o: register_format(".csv", mine, **o),
        lambda **o: register_fast_path("id-context-recall", **o)(mine),
    ]
    for attempt in attempts:
        with pytest.raises(ConfigError, match="pass override=True to replace it on purpose"):
            attempt()
    with pytest.raises(ConfigError, match="already registered"):
        register_context_extractor("auto", mine)
    with pytest.raises(ConfigError, match="already registered"):
        register_command("run", mine)
    built_in = TREC_MEASURES["map"]
    register_measure(Measure("map", mine), override=True)  # on purpose: allowed
    try:
        assert TREC_MEASURES["map"].compute is mine
    finally:
        register_measure(built_in, override=True)
    assert TREC_MEASURES["map"] is built_in
