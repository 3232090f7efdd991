"""The viewer over real HTTP: what it lists and answers, and what it refuses."""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.parse
import urllib.request

import pytest

from evals import LabelStore, ViewServer, read_results

from .conftest import Client


def agree(verdict):
    """The label of a person who agrees with the judge: its level, or its yes / no."""
    return verdict["grade"] if verdict["kind"] == "relevance" else verdict["supported"]


@pytest.fixture
def served(runs):
    with ViewServer(runs) as server:
        server.app.index.wait()
        yield server, Client(server)


def test_the_runs_their_means_and_a_new_file_without_a_restart(served, runs):
    server, client = served
    listed = client.get("/api/runs")
    assert [r["path"] for r in listed["runs"]] == ["k1.jsonl", "k2.jsonl", "k3.jsonl"]
    assert [d["path"] for d in listed["data_sets"]] == ["synth/labelled.jsonl"]
    k3 = next(r for r in listed["runs"] if r["path"] == "k3.jsonl")
    expected = read_results(runs / "k3.jsonl").summary
    assert (
        k3["summary"]["scorers"]["context-recall"]["mean"]
        == expected.scorers["context-recall"].mean
    )
    assert k3["items"] == 28 and k3["header"]["scorers"]["context-recall"]["judge"]
    shutil.copy(runs / "k1.jsonl", runs / "later.jsonl")
    client.get("/api/runs")
    server.app.index.wait()
    assert "later.jsonl" in [r["path"] for r in client.get("/api/runs")["runs"]]
    (runs / "later.jsonl").unlink()
    assert "later.jsonl" not in [r["path"] for r in client.get("/api/runs")["runs"]]


def test_the_listing_is_brief_and_a_poll_of_an_unchanged_folder_gets_no_body(served, runs):
    server, client = served
    listed = client.get("/api/runs")
    k1 = next(r for r in listed["runs"] if r["path"] == "k1.jsonl")
    run = client.get("/api/run?path=k1.jsonl")  # the run page: the whole record
    assert run["header"]["scorers"]["context-recall"]["options"]  # not in the listing
    assert set(k1) == {"path", "items", "header", "summary"}
    assert k1["header"]["scorers"]["context-recall"] == {
        "scale": 1.0,
        "judge": {"model": run["header"]["scorers"]["context-recall"]["judge"]["model"]},
    }
    assert k1["summary"]["scorers"]["context-recall"] == {
        key: run["summary"]["scorers"]["context-recall"][key]
        for key in ("mean", "ci_low", "ci_high")
    }
    assert len(json.dumps(k1)) * 3 < len(json.dumps(run["header"]) + json.dumps(run["summary"]))
    request = urllib.request.Request(
        server.origin + "/api/runs", headers={"X-Scorekit-Token": server.token}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        etag = response.headers["ETag"]
    status, body = client.request("/api/runs", headers={"If-None-Match": etag})
    assert (status, body) == (304, "")
    shutil.copy(runs / "k1.jsonl", runs / "later.jsonl")
    client.get("/api/runs")
    server.app.index.wait()
    assert client.request("/api/runs", headers={"If-None-Match": etag})[0] == 200


def test_a_changed_file_is_read_again_and_the_index_survives_a_restart(runs):
    with ViewServer(runs) as server:
        server.app.index.wait()
        before = Client(server).get("/api/run?path=k1.jsonl")["items"]
    lines = (runs / "k1.jsonl").read_bytes().splitlines(keepends=True)
    (runs / "k1.jsonl").write_bytes(b"".join(lines[:-3]))  # a run cut short
    from evals._view import RunIndex

    index = RunIndex(runs)  # the others come from the index on disk: only k1 is read
    assert index.scan()["indexing"] == ["k1.jsonl"]
    index.wait()
    with ViewServer(runs) as server:
        server.app.index.wait()
        assert Client(server).get("/api/run?path=k1.jsonl")["items"] == before - 3


def test_a_page_opened_at_a_run_the_folder_has_not_read_yet_shows_it(served, runs):
    """A link straight to a run (``#/review/k4.jsonl``) used to answer "no run 'k4.jsonl'
    in this folder" when it came before the background reading: it is read at once."""
    _, client = served
    shutil.copy(runs / "k3.jsonl", runs / "k4.jsonl")  # no listing has seen it yet
    found = client.get("/api/run?path=k4.jsonl")
    assert found["path"] == "k4.jsonl" and found["items"] == 28
    assert [r["path"] for r in client.get("/api/runs")["runs"]][-1] == "k4.jsonl"
    (runs / "notes.jsonl").write_text('{"not": "a run"}\n')
    assert client.request("/api/run?path=notes.jsonl")[0] == 404
    assert client.request("/api/run?path=../k3.jsonl")[0] == 404


def test_items_searched_filtered_and_sorted_over_the_whole_run(served, runs):
    _, client = served
    expected = list(read_results(runs / "k2.jsonl"))
    base = "/api/items?path=k2.jsonl&count=500"
    ids = lambda q: [i["id"] for i in client.get(base + q)["items"]]  # noqa: E731
    assert ids("&sort=id&order=desc") == sorted((x.item.id for x in expected), reverse=True)
    sid = next(iter(expected[0].scorer_results))
    scored = [x for x in expected if x.scorer_results[sid].status == "scored"]
    by_score = sorted(scored, key=lambda x: x.scorer_results[sid].score)
    assert ids(f"&sort=score:{sid}")[: len(by_score)] == [x.item.id for x in by_score]
    high = [x.item.id for x in scored if x.scorer_results[sid].score >= 0.5]
    assert ids(f"&scorer={sid}&min=0.5") == high
    word = expected[3].item.input.split()[-1].lower()
    assert ids("&q=" + word) == [x.item.id for x in expected if word in
                                 f"{x.item.id} {x.item.input}".lower()]  # fmt: skip
    page = client.get(base + "&q=" + word)
    assert page["total"] == len(page["items"]) and page["items"][0]["index"] >= 0
    assert client.request("/api/items?path=k2.jsonl&sort=bogus")[0] == 400
    assert client.request(f"/api/items?path=k2.jsonl&scorer={sid}&min=high")[0] == 400
    code, said = client.request("/api/items?path=k2.jsonl&scorer=nope&min=0.5")
    assert code == 400 and "this run has no scorer 'nope'" in said["error"]
    assert client.request("/api/items?path=k2.jsonl&sort=score:nope")[0] == 400


def test_items_filtered_by_metadata_with_the_runs_keys_and_values_offered(served, runs):
    _, client = served
    expected = list(read_results(runs / "k2.jsonl"))
    topics = sorted({x.item.metadata["topic"] for x in expected})
    assert client.get("/api/facets?path=k2.jsonl") == {"metadata": {"topic": topics}}
    base = "/api/items?path=k2.jsonl&count=500&meta_key=topic"
    for topic in topics:
        found = client.get(f"{base}&meta_value={urllib.parse.quote(topic)}")
        want = [x.item.id for x in expected if x.item.metadata["topic"] == topic]
        assert [i["id"] for i in found["items"]] == want and found["total"] == len(want)
    assert client.get(base)["total"] == len(expected)  # the key alone: every item has it
    assert client.get("/api/items?path=k2.jsonl&meta_key=nothing")["total"] == 0


def test_items_page_by_page_and_one_in_full(served, runs):
    _, client = served
    page = client.get("/api/items?path=k2.jsonl&start=25&count=10")
    assert page["total"] == 28 and [i["index"] for i in page["items"]] == [25, 26, 27]
    expected = list(read_results(runs / "k2.jsonl"))
    assert [i["id"] for i in page["items"]] == [x.item.id for x in expected[25:]]
    first = page["items"][0]["scores"]["context-recall"]
    assert first["score"] == expected[25].scorer_results["context-recall"].score
    full = client.get("/api/item?path=k2.jsonl&index=25")
    assert full["scorer_results"]["context-recall"]["reason"] == (
        expected[25].scorer_results["context-recall"].reason
    )


def test_compare_three_runs_with_a_gate(served):
    _, client = served
    found = client.get(
        "/api/compare?path=k1.jsonl&path=k2.jsonl&path=k3.jsonl&max_drop=context-recall%3D0.01"
    )
    assert "k1.jsonl" in found["table"] and "k3.jsonl" in found["table"]
    assert [g["run"] for g in found["gates"]] == ["k2.jsonl", "k3.jsonl"]
    assert found["exit_code"] == 0 and "<table" in found["html"]
    status, why = client.request("/api/compare?path=k1.jsonl")
    assert status == 400 and "at least two" in why["error"]


def test_label_verdicts_and_see_the_agreement(served, runs):
    _, client = served
    sample = client.get("/api/sample?path=k3.jsonl&n=12&seed=3")["verdicts"]
    assert len(sample) == 12 and len({v["key"] for v in sample}) == 12
    strata = {(v["scorer_id"], v["supported"]) for v in sample}
    assert len(strata) == 6  # recall, precision and relevance, yes and no: 2 of each
    for k, verdict in enumerate(sample):
        if verdict["kind"] == "relevance":  # a graded verdict: the person gives a level
            label = verdict["grade"] if k % 4 else 3 - verdict["grade"]
        else:
            label = verdict["supported"] if k % 4 else not verdict["supported"]
        saved = client.post("/api/label", {"verdict": verdict, "label": label})
        assert saved["agreement"]["scorer_id"] == verdict["scorer_id"]
    status, _ = client.request("/api/label", {"verdict": sample[0], "label": 7})
    assert status == 400
    again = client.get("/api/sample?path=k3.jsonl&n=12&seed=3")["verdicts"]
    assert not {v["key"] for v in again} & {v["key"] for v in sample}  # labelled: not asked
    run = client.get("/api/run?path=k3.jsonl")
    lines = {a["scorer_id"]: a for a in run["agreement"]}
    assert {sid: a["n"] for sid, a in lines.items()} == {
        "context-recall": 4,
        "context-precision": 4,
        "context-relevance": 4,
    }
    assert (
        lines["context-relevance"]["graded"]
        and "weighted κ (quadratic)" in lines["context-relevance"]["line"]
    )
    assert len(LabelStore(runs).labels()) == 12
    # another run of the same judge and prompt counts the labelled questions it judged too,
    # against its own verdicts on them
    from evals import read_results
    from evals._agreement._verdicts import run_verdicts

    k1 = read_results(runs / "k1.jsonl")
    own = run_verdicts(k1, k1.header)
    run = client.get("/api/run?path=k1.jsonl")
    for a in run["agreement"]:
        shared = [
            v
            for v in sample
            if v["scorer_id"] == a["scorer_id"] and v["key"] in own[a["scorer_id"]]
        ]
        assert a["n"] == len(shared) and a["labelled"] == 4


def test_reviewing_a_synthesized_set_writes_the_accepted_rows(served, runs):
    _, client = served
    found = client.get("/api/data_set?path=synth/labelled.jsonl")
    rows = found["rows"]
    assert len(rows) >= 3 and found["reviews"] == {}
    edited = {**rows[0], "input": "An edited question?"}
    client.post(
        "/api/review",
        {"data_set": "synth/labelled.jsonl", "row_id": rows[0]["id"], "decision": "accept",
         "row": edited},
    )  # fmt: skip
    client.post(
        "/api/review",
        {"data_set": "synth/labelled.jsonl", "row_id": rows[1]["id"], "decision": "reject",
         "row": rows[1]},
    )  # fmt: skip
    client.post(
        "/api/review",
        {"data_set": "synth/labelled.jsonl", "row_id": rows[2]["id"], "decision": "accept",
         "row": rows[2]},
    )  # fmt: skip
    written = client.post("/api/write", {"data_set": "synth/labelled.jsonl"})
    assert written == {"path": "synth/labelled.reviewed.jsonl", "rows": 2}
    out = [json.loads(x) for x in (runs / "synth/labelled.reviewed.jsonl").read_text().splitlines()]
    assert [r["id"] for r in out] == [rows[0]["id"], rows[2]["id"]]
    assert out[0]["input"] == "An edited question?" and out[1] == rows[2]
    from evals import load_dataset

    assert len(load_dataset(runs / "synth/labelled.reviewed.jsonl")) == 2
    client.post("/api/write", {"data_set": "synth/labelled.jsonl"})  # its own file: replaced
    (runs / "synth/labelled.reviewed.jsonl").write_text('{"id": "mine", "input": "q"}\n')
    status, why = client.request("/api/write", {"data_set": "synth/labelled.jsonl"})
    assert status == 400 and "not written by this review" in why["error"]
    assert "mine" in (runs / "synth/labelled.reviewed.jsonl").read_text()


def test_every_request_needs_the_token(served):
    server, client = served
    for path in ("/", "/api/runs", "/static/view.js", "/report?path=k1.jsonl"):
        status, _ = client.request(path, token="")
        assert status == 403, path
        status, _ = client.request(path, token="x" * len(server.token))
        assert status == 403, path
    assert client.request("/api/runs", query_token=True)[0] == 200
    status, page = client.request("/", query_token=True)
    assert status == 200 and server.token in page and "<script src=" in page


def test_writes_need_the_header_token_and_the_same_origin(served, runs):
    server, client = served
    verdict = client.get("/api/sample?path=k1.jsonl&n=1")["verdicts"][0]
    body = {"verdict": verdict, "label": agree(verdict)}
    status, _ = client.request("/api/label?token=" + server.token, body, token="")
    assert status == 403  # a token in the address is not enough to write
    status, _ = client.request("/api/label", body, headers={"Origin": "http://evil.example"})
    assert status == 403
    status, _ = client.request(
        "/api/label", body, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert status == 400
    assert LabelStore(runs).labels() == []
    status, _ = client.request("/api/label", body, headers={"Origin": server.origin})
    assert status == 200 and len(LabelStore(runs).labels()) == 1


def test_a_foreign_host_header_is_refused(served):
    _, client = served
    status, why = client.request("/api/runs", headers={"Host": "attacker.example:80"})
    assert status == 403 and "Host" in why["error"]


def test_nothing_outside_the_folder_is_served(served, runs, tmp_path):
    _, client = served
    secret = tmp_path / "secret.jsonl"
    shutil.copy(runs / "k1.jsonl", secret)
    os.symlink(secret, runs / "link.jsonl")
    os.symlink(tmp_path, runs / "outside")
    client.get("/api/runs")
    for path in (
        "../secret.jsonl",
        str(secret),
        "link.jsonl",
        "outside/secret.jsonl",
        "k1.jsonl/../../secret.jsonl",
        "%2e%2e/secret.jsonl",
    ):
        for route in ("/api/run", "/api/items", "/report"):
            status, _ = client.request(f"{route}?path={path}")
            assert status in (400, 404), (route, path, status)
    for asset in ("/static/../_http.py", "/static/view.html", "/static/%2e%2e/_app.py"):
        assert client.request(asset)[0] == 404


def test_concurrent_labels_from_two_clients_are_all_kept(served, runs):
    _, client = served
    verdicts = client.get("/api/sample?path=k2.jsonl&n=40&seed=1")["verdicts"]
    failures: list[object] = []

    def label(part):
        for verdict in part:
            label = 0 if verdict["kind"] == "relevance" else False
            status, found = client.request("/api/label", {"verdict": verdict, "label": label})
            if status != 200:
                failures.append(found)

    tabs = [threading.Thread(target=label, args=(verdicts[k::2],)) for k in (0, 1)]
    for tab in tabs:
        tab.start()
    for tab in tabs:
        tab.join()
    assert failures == []
    assert {x.key for x in LabelStore(runs).labels()} == {v["key"] for v in verdicts}


def test_the_viewer_serves_a_big_folder_before_it_has_read_it(runs, monkeypatch):
    import evals._view._index as index_module

    big = runs / "big.jsonl"
    with big.open("wb") as out:
        for _ in range(30):
            out.write((runs / "k3.jsonl").read_bytes())
    reading, release = threading.Event(), threading.Event()
    real = index_module.read_run

    def slow_read(path, name):
        if name == "big.jsonl":
            reading.set()
            release.wait(60)
        return real(path, name)

    monkeypatch.setattr(index_module, "read_run", slow_read)
    with ViewServer(runs) as server:
        assert reading.wait(60)  # the reader is inside big.jsonl ...
        listed = Client(server).get("/api/runs")  # ... and the listing answers anyway
        assert "big.jsonl" in listed["indexing"]
        assert "big.jsonl" not in [r["path"] for r in listed["runs"]]
        release.set()
        server.app.index.wait()
        record = Client(server).get("/api/run?path=big.jsonl")
        assert record["items"] == 28  # the same ids repeated: the last line of each wins


def test_labels_export_as_calibrate_rows(served, runs):
    _, client = served
    sample = client.get("/api/sample?path=k1.jsonl&n=8")["verdicts"]
    for verdict in sample:
        client.post("/api/label", {"verdict": verdict, "label": agree(verdict)})
    status, text = client.request("/export?scorer=context-recall")
    rows = [json.loads(line) for line in text.splitlines()]
    assert status == 200 and rows == LabelStore(runs).calibration_rows("context-recall")
    assert rows and all(set(r) >= {"claim", "context", "label"} for r in rows)
    from evals._calibrate import calibration_rows

    assert calibration_rows(runs, "context-recall") == rows


def test_rebuilding_the_index_reads_every_file_again(served):
    server, client = served
    index = server.app.index
    assert index.scan()["indexing"] == []
    index.rebuild()
    assert set(index.scan()["indexing"]) == {"k1.jsonl", "k2.jsonl", "k3.jsonl",
                                             "synth/labelled.jsonl"}  # fmt: skip
    index.wait()
    assert len(client.get("/api/runs")["runs"]) == 3


def test_another_host_warns_and_still_needs_the_token(runs):
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "evals.cli", "view", str(runs), "--port", "0", "--host", "0.0.0.0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        warning = proc.stderr.readline()
        assert "warning: serving on 0.0.0.0" in warning and "token is still required" in warning
        proc.stdout.readline()
        url = proc.stdout.readline().strip()
        port = int(url.split(":")[2].split("/")[0])
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/runs", timeout=30)
        assert refused.value.code == 403
        with urllib.request.urlopen(url.replace("0.0.0.0", "127.0.0.1"), timeout=30) as page:
            assert page.status == 200
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_folder_that_is_not_there_is_one_line(tmp_path, capsys):
    from evals.cli import main

    assert main(["view", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_max_drop_that_is_not_a_finite_number_is_refused(served):
    _, client = served
    status, why = client.request("/api/compare?path=k1.jsonl&path=k2.jsonl&max_drop=mrr%3Dnan")
    assert status == 400 and "needs a finite number" in why["error"]


def test_writes_from_the_page_s_own_origin_on_any_interface(runs):
    with ViewServer(runs, host="0.0.0.0", port=0) as server:
        server.app.index.wait()
        client = Client(server)
        verdict = client.get("/api/sample?path=k1.jsonl&n=1")["verdicts"][0]
        own = f"127.0.0.1:{server.port}"
        status, found = client.request(
            "/api/label", {"verdict": verdict, "label": agree(verdict)},
            headers={"Host": own, "Origin": f"http://{own}"},
        )  # fmt: skip
        assert status == 200, found
        status, found = client.request(
            "/api/label", {"verdict": verdict, "label": agree(verdict)},
            headers={"Host": own, "Origin": "http://evil.example"},
        )  # fmt: skip
        assert status == 403 and "not this viewer's" in found["error"]
    assert len(LabelStore(runs).labels()) == 1


def test_a_malformed_content_length_gets_a_400(served):
    import socket

    server, _ = served
    for declared in ("abc", "-5", "1e3", "٣"):
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(
                (
                    f"POST /api/label HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                    f"X-Scorekit-Token: {server.token}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {declared}\r\n\r\n{{}}"
                ).encode()
            )
            answer = sock.recv(4096).decode("latin-1")
        assert answer.startswith("HTTP/1.0 400") and "Content-Length" in answer, answer


def test_a_sample_shortens_long_texts_and_the_label_keeps_the_whole_verdict(runs):
    lines = (runs / "k1.jsonl").read_text().splitlines()
    changed = []
    for line in lines:
        data = json.loads(line)
        if "item" in data:
            long = "A very long passage about Einstein. " * 20_000  # 720,000 characters
            data["item"]["input"] = data["item"]["input"] + " " + long
        changed.append(json.dumps(data))
    (runs / "k1.jsonl").write_text("\n".join(changed) + "\n")
    with ViewServer(runs) as server:
        server.app.index.wait()
        client = Client(server)
        status, raw = client.request("/api/sample?path=k1.jsonl&n=30")
        assert status == 200
        size = len(json.dumps(raw))
        assert size < 30 * 60_000, size  # not 30 × 720,000
        verdict = raw["verdicts"][0]
        assert verdict["shortened"] and len(verdict["input"]) <= 4_000
        saved = client.post("/api/label", {"verdict": verdict, "label": agree(verdict)})
        assert saved["key"] == verdict["key"]
    (stored,) = LabelStore(runs).labels()
    assert stored.key == verdict["key"] and len(stored.verdict.input) > 700_000


def test_the_items_that_moved_most_between_two_runs_side_by_side(served, runs):
    _, client = served
    base = {x.item.id: x for x in read_results(runs / "k1.jsonl")}
    other = {x.item.id: x for x in read_results(runs / "k3.jsonl")}
    sid = "id-context-precision"
    found = client.get(f"/api/moved?path=k1.jsonl&path=k3.jsonl&scorer={sid}&n=200")
    assert found["scorer"] == sid and sid in found["scorers"] and found["paired"] == 28
    changes = {
        i: other[i].scorer_results[sid].score - base[i].scorer_results[sid].score
        for i in base
        if base[i].scorer_results[sid].status == other[i].scorer_results[sid].status == "scored"
    }
    want = sorted((i for i, d in changes.items() if d), key=lambda i: (-abs(changes[i]), i))
    shown = [r for r in found["items"] if r["delta"] is not None]
    assert [r["id"] for r in shown] == want
    assert [r["delta"] for r in shown] == [changes[i] for i in want]
    first = shown[0]
    assert first["base"]["reason"] and len(first["other"]["chunks"]) == 3
    topic = base[first["id"]].item.metadata["topic"]
    sliced = client.get(
        f"/api/moved?path=k1.jsonl&path=k3.jsonl&scorer={sid}&slice=topic"
        f"&group={urllib.parse.quote(topic)}&n=200"
    )
    assert sliced["paired"] == sum(x.item.metadata["topic"] == topic for x in base.values())
    assert first["id"] in [r["id"] for r in sliced["items"]]
    assert found["slices"]["topic"] == sorted({x.item.metadata["topic"] for x in base.values()})
    for bad in ("&scorer=nope", "&slice=topic&group=nowhere"):
        code, said = client.request("/api/moved?path=k1.jsonl&path=k3.jsonl" + bad)
        assert code == 400, said
    assert client.request("/api/moved?path=k1.jsonl")[0] == 400


def test_light_rows_read_from_raw_lines_equal_those_of_the_validated_items(runs):
    """The viewer reads a run's rows (search, filters, sorts, moved items) from its lines
    as plain JSON; a compact line leaves out a result's defaults, which must read back as
    `ItemResult` reads them."""
    from evals import run_evals
    from evals._view._index import RunIndex
    from evals._view._rows import light_rows
    from scorers import create_id_context_precision_scorer, create_id_context_recall_scorer

    rows = [{"id": f"q{i}", "input": f"question {i}", "metadata": {"n": i % 3, "s": "1"},
             "context": [{"id": "d1", "text": "x"}, {"id": "d2", "text": "y"}],
             **({"reference_context_ids": ["d1" if i % 2 else "d9"]} if i % 5 else {})}
            for i in range(30)]  # fmt: skip
    run_evals(rows, [create_id_context_recall_scorer(), create_id_context_precision_scorer()],
              results_path=runs / "free.jsonl", progress="none")  # fmt: skip
    index = RunIndex(runs)
    index.scan()
    index.wait(timeout=120)
    for name in ("free.jsonl", "k1.jsonl", "k3.jsonl"):
        entry = index.entry(name, "run")
        raw = light_rows(index.iter_lines(entry))
        validated = light_rows(x.model_dump(mode="json") for x in index.iter_items(entry))
        assert raw == validated and len(raw) == len(entry.offsets)
        assert light_rows(index.light_lines(entry)) == raw  # kept by the index's first reading
    statuses = {s for r in light_rows(index.iter_lines(index.entry("free.jsonl", "run")))
                for s in r.statuses.values()}  # fmt: skip
    assert statuses == {"scored", "skipped"}
