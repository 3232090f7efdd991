"""`evals.read_corpus`: documents into passages with stable ids, tables, lists, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import read_corpus, synthesize
from evals._synthesis._corpus import split_document
from evals.testing import FakeLLMServer
from scorers import Chunk, ConfigError, DatasetError


def test_a_folder_becomes_passages_with_path_and_position_ids(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("# Title\n\nFirst paragraph here.\n\n\nSecond one.\r\n")
    (tmp_path / "guide" / "b.txt").write_text("Only paragraph.")
    (tmp_path / ".git" / "c.md").write_text("hidden")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    found = read_corpus(tmp_path, max_chars=100)
    assert [(p.id, p.text) for p in found] == [
        ("a.md#0", "# Title\n\nFirst paragraph here.\n\nSecond one."),
        ("guide/b.txt#0", "Only paragraph."),
    ]
    assert found[1].metadata == {"source": "guide/b.txt", "position": 0}
    assert read_corpus(tmp_path / "a.md")[0].id == "a.md#0"


def test_long_paragraphs_split_at_sentences_and_headings_stay_with_their_text() -> None:
    sentence = "This sentence is forty-three characters long."
    text = "# Heading\n\n" + " ".join([sentence] * 6) + "\n\n" + "x" * 250
    two = f"{sentence} {sentence}"
    assert split_document(text, max_chars=120) == [
        f"# Heading\n\n{two}",
        two,
        two,
        "x" * 120,
        "x" * 120,
        "x" * 10,
    ]


def test_tables_and_lists_keep_their_own_ids(tmp_path: Path) -> None:
    table = tmp_path / "passages.jsonl"
    table.write_text(
        json.dumps({"id": "d1", "text": "One.", "section": "intro"})
        + "\n"
        + json.dumps({"doc_id": 2, "content": "Two."})
        + "\n"
    )
    found = read_corpus(table)
    assert [(p.id, p.text) for p in found] == [("d1", "One."), ("2", "Two.")]
    assert found[0].metadata == {"section": "intro", "source": "passages.jsonl"}
    csv = tmp_path / "passages.csv"
    csv.write_text("id,text\nc1,Alpha text.\nc2,Beta text.\n")
    assert [p.id for p in read_corpus(csv)] == ["c1", "c2"]
    listed = read_corpus(["first", {"id": "x", "text": "second"}, Chunk(id="y", text="third")])
    assert [p.id for p in listed] == ["p0", "x", "y"]


@pytest.mark.parametrize(
    ("corpus", "message"),
    [
        ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "ids must be unique; repeated: 'a'"),
        ([{"id": "a"}], "corpus item 1: a passage needs 'id' and 'text'"),
        ([], "the corpus has no passages"),
        ([{"id": "a", "text": "x", "metadata": "oops"}], "'metadata' must be an object"),
        ([3], "a passage is a string or"),
        ({"a": "b"}, "not a dict"),
    ],
)
def test_bad_corpora_say_what_is_wrong(corpus, message) -> None:
    with pytest.raises(DatasetError, match=message):
        read_corpus(corpus)


def test_bad_paths_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        read_corpus(tmp_path / "missing")
    with pytest.raises(DatasetError, match=r"no \.txt, \.md, \.markdown files"):
        read_corpus(tmp_path)
    (tmp_path / "bad.md").write_bytes(b"caf\xe9")
    with pytest.raises(DatasetError, match=r"bad\.md: not UTF-8 text"):
        read_corpus(tmp_path)
    (tmp_path / "x.docx").write_text("?")
    with pytest.raises(DatasetError, match=r"unsupported corpus file type '\.docx'"):
        read_corpus(tmp_path / "x.docx")
    with pytest.raises(ConfigError, match="max_chars"):
        read_corpus(["a"], max_chars=10)


def test_a_second_run_is_answered_by_the_judge_cache(tmp_path: Path) -> None:
    corpus = [
        "The Rhine rises in the Swiss Alps and flows about 1,230 kilometres to the North Sea.",
        "Marie Curie won Nobel Prizes in physics in 1903 and in chemistry in 1911, in Paris.",
    ]
    with FakeLLMServer() as fake:
        judge = fake.judge(cache=True)
        first = synthesize(corpus, judge, n=2, kinds=("single",), progress="bar")
        before = fake.call_count
        again = synthesize(corpus, judge, n=2, kinds=("single",), progress="none")
        assert fake.call_count == before
    assert first.summary.calls == 4 and first.summary.cached_calls == 0
    assert again.summary.calls == 0 and again.summary.cached_calls == 4
    assert [r.model_dump() for r in again.rows] == [r.model_dump() for r in first.rows]


def test_bm25_ranks_from_the_inverted_index_equal_the_shipped_retrievers() -> None:
    from evals._synthesis._gates import LexicalRanks
    from evals.quickstart import BM25Retriever, items, passages

    chunks = passages()
    ranks, retriever = LexicalRanks(chunks), BM25Retriever(chunks, k=len(chunks))
    compared = 0
    for item in items():
        for question in (item.input, item.ground_truth or "", "the of and"):
            hits = retriever.search(question)
            expected = {str(c.id): i + 1 for i, (score, c) in enumerate(hits) if score > 0}
            got = ranks.ranks(question, [str(c.id) for c in chunks])
            assert got == [expected.get(str(c.id), 0) for c in chunks]
            compared += len(chunks)
    assert compared == 28 * 3 * 36


def test_a_bom_is_not_part_of_a_documents_text(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf# Heading\n\nA paragraph about Ulm.\n")
    (tmp_path / "b.txt").write_bytes("\ufeffPlain text.".encode("utf-8"))
    found = read_corpus(tmp_path)
    assert [p.text for p in found] == ["# Heading\n\nA paragraph about Ulm.", "Plain text."]
    assert not any("\ufeff" in p.text for p in found)
    # the heading rule sees the '#': a heading stays with its paragraph, not alone
    long_text = "# Heading\n\n" + "Words in a sentence. " * 10
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf" + long_text.encode())
    assert read_corpus(tmp_path / "a.md", max_chars=100)[0].text.startswith("# Heading\n\nWords")


def test_copies_of_a_passage_are_never_paired_and_rows_name_every_copy(tmp_path: Path) -> None:
    from evals.quickstart import passages as quickstart_passages

    texts = [p.text for p in quickstart_passages()]
    twice = texts[:5]
    corpus = [{"id": f"p{i}", "text": t} for i, t in enumerate(texts)]
    corpus += [
        {"id": f"copy{i}", "text": "  " + t.replace(" ", "\n ") + " "} for i, t in enumerate(twice)
    ]
    by_id = {row["id"]: row["text"] for row in corpus}
    with FakeLLMServer() as fake:
        result = synthesize(corpus, fake.judge(), n=40, kinds=("single", "multi"), progress="none")
    assert result.summary.copies == 5
    assert "5 passages repeat an earlier passage's text" in result.table()
    twin = {f"p{i}": f"copy{i}" for i in range(5)}
    named = 0
    for row in result.rows:
        texts_of = [" ".join(by_id[i].split()) for i in row.reference_context_ids]
        firsts = [i for i in row.reference_context_ids if not i.startswith("copy")]
        assert len(set(texts_of)) == len(firsts) == (2 if row.metadata["kind"] == "multi" else 1)
        for gold in firsts:
            if gold in twin:
                assert twin[gold] in row.reference_context_ids
                named += 1
        assert row.reference_contexts == [by_id[i] for i in row.reference_context_ids]
    assert named >= 1
    assert not any(d.passage_ids[0].startswith("copy") for d in result.dropped)
