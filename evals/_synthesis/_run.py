"""`synthesize`: a labelled set from the user's own documents, the gold passage ids known.

Rounds until ``n`` rows are kept or the corpus runs out. Each round draws candidates
(`_plan`), has the judge write a question and answer for each (one `score_many` over
the candidates), drops what fails the gates decided without the judge (`_gates`), has
the judge check the rest (a second `score_many`), and keeps the rows that pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scorers import (
    BudgetExceededError,
    Chunk,
    Job,
    Judge,
    LabelVerdict,
    Scored,
    Scorer,
    ScoreResult,
    ScorerRun,
    WrittenQuestion,
    create_label_check_scorer,
    create_question_writer,
    score_many,
)

from .._run._progress import Progress, waiting_for_litellm
from ._corpus import copies
from ._gates import LexicalRanks, Questions, states_answer
from ._journal import Journal
from ._plan import Candidate, Planner, quotas
from ._result import DroppedCandidate, SynthesisResult, SynthesisSummary, SynthesizedRow

KINDS = ("single", "multi", "paraphrase")
GIVE_UP_AFTER = 12
"""Candidates of one kind decided, none kept, after which that kind stops (checked at
the start of each round)."""


def _row_id(candidate: Candidate) -> str:
    return f"syn-{candidate.serial:05d}"


class _Synthesis:
    """One invocation's state: the corpus, the judge steps, what was kept and dropped."""

    def __init__(
        self,
        passages: list[Chunk],
        judge: Judge,
        options: dict[str, Any],
        journal: Journal,
        out: Path | None,
    ):
        self.passages = passages
        self.judge = judge
        self.options = options
        self.journal = journal
        self.out = out
        kinds = options["kinds"]
        self.writers = {
            k: create_question_writer(judge, {"kind": k, "language": options["language"]})
            for k in kinds
        }
        self.checker = create_label_check_scorer(judge, {"language": options["language"]})
        self.copies = copies(passages)
        later = frozenset(i for i, group in enumerate(self.copies) if group[0] != i)
        self.planner = Planner(passages, kinds, options["seed"], later)
        self.quota = quotas(options["n"], kinds)
        self.lexical = LexicalRanks(passages)
        self.questions = Questions()
        self.rows: list[SynthesizedRow] = []
        self.dropped: list[DroppedCandidate] = []
        self.decided: Counter[str] = Counter()
        self.kept_by_kind: Counter[str] = Counter()
        self.gave_up: dict[str, int] = {}
        self.ran_out: list[str] = []
        self.summary = SynthesisSummary(
            requested=options["n"],
            passages=len(passages),
            anchors=self.planner.anchors,
            copies=len(later),
        )

    def ids(self, candidate: Candidate) -> list[str]:
        return [str(self.passages[i].id) for i in candidate.passages]

    def texts(self, candidate: Candidate) -> list[str]:
        return [self.passages[i].text for i in candidate.passages]

    def kept(self, kind: str) -> int:
        return self.kept_by_kind[kind]

    def drop(self, candidate: Candidate, gate: str, reason: str, written: Any = None) -> None:
        self.decided[candidate.kind] += 1
        self.dropped.append(
            DroppedCandidate(
                id=_row_id(candidate),
                kind=candidate.kind,
                passage_ids=self.ids(candidate),
                question=written.question if written else None,
                answer=written.answer if written else None,
                gate=gate,
                reason=reason,
            )
        )

    def count(self, scored: Scored) -> None:
        s = self.summary
        counter = self.options.get("token_counter")
        for call in scored.calls:
            if call.cached:
                s.cached_calls += 1
                continue
            s.calls += 1
            if counter is None:
                s.prompt_tokens += call.prompt_tokens
                s.completion_tokens += call.completion_tokens
            else:
                s.prompt_tokens += counter(call.messages)
                s.completion_tokens += counter([{"role": "assistant", "content": call.response}])
            s.cost = None if s.cost is None or call.cost is None else s.cost + call.cost

    async def step(
        self,
        name: str,
        candidates: Sequence[Candidate],
        scorers: dict[str, Scorer],
        run_for: Callable[[Candidate], tuple[str, ScorerRun]],
    ) -> dict[int, ScoreResult]:
        """Run one judge step over ``candidates`` through the engine; results logged
        earlier are taken from the log instead."""
        results: dict[int, ScoreResult] = {}
        jobs = []
        for candidate in candidates:
            logged = self.journal.get(candidate, name, self.ids(candidate))
            if logged is not None:
                results[candidate.serial] = logged
                self.summary.resumed += 1
                continue
            key, run = run_for(candidate)
            jobs.append(Job(candidate, run, only=(key,), label=_row_id(candidate)))
        unit = "questions" if name == "write" else "checks"  # written, or checked
        bar = Progress(len(jobs), self.options["progress"], status=waiting_for_litellm, unit=unit)

        async def keep(scored: Scored) -> None:
            candidate: Candidate = scored.job.key
            result = next(iter(scored.results.values()))
            results[candidate.serial] = result
            self.journal.add(candidate, name, self.ids(candidate), result)
            self.count(scored)
            bar.advance(error=result.status == "error", calls=len(scored.calls))

        try:
            await score_many(
                scorers,
                jobs,
                keep,
                concurrency=self.options["concurrency"],
                max_cost=self.budget_left(),
            )
        finally:
            bar.close()
        return results

    def budget_left(self) -> float | None:
        max_cost = self.options["max_cost"]
        if max_cost is None:
            return None
        spent = self.summary.cost or 0.0
        if spent >= max_cost:
            raise BudgetExceededError(
                f"max_cost ${max_cost:g} reached (${spent:.4f} spent)",
                spent=spent,
                max_cost=max_cost,
                model=self.judge.model,
            )
        return max_cost - spent

    def write_runs(self, candidate: Candidate) -> tuple[str, ScorerRun]:
        context = [self.passages[i] for i in candidate.passages]
        return candidate.kind, ScorerRun(context=context)

    def screen(
        self, candidate: Candidate, result: ScoreResult
    ) -> tuple[WrittenQuestion, list[int]] | None:
        """The written question and its BM25 ranks, or None once it is dropped."""
        if result.status != "scored":
            self.drop(candidate, "unreadable", result.error or result.reason)
            return None
        written = WrittenQuestion.model_validate(result.details["write_question"])
        ranks = self.lexical.ranks(written.question, self.ids(candidate))
        if states_answer(written.question, written.answer):
            self.drop(candidate, "answer_in_question", "the question holds the answer", written)
            return None
        if candidate.kind == "paraphrase" and ranks[0] == 1:
            reason = "BM25 ranks the gold passage first: the question reuses its wording"
            self.drop(candidate, "bm25_top_hit", reason, written)
            return None
        repeated = self.questions.duplicate_of(written.question)
        if repeated is not None:
            reason = f"repeats {repeated[0]} (token_sort_ratio {repeated[1]:.0f})"
            self.drop(candidate, "near_duplicate", reason, written)
            return None
        self.questions.add(_row_id(candidate), written.question)
        return written, ranks

    def settle(
        self, candidate: Candidate, written: Any, ranks: list[int], result: ScoreResult
    ) -> None:
        """Keep the checked candidate as a row, or drop it at the gate it failed."""
        if result.status != "scored":
            self.drop(candidate, "check_failed", result.error or result.reason, written)
            return
        verdict = LabelVerdict.model_validate(result.details["label_check"])
        failed = verdict.failed_gates(len(candidate.passages) > 1)
        if failed:
            self.drop(candidate, failed[0], verdict.reason or result.reason, written)
            return
        if self.kept(candidate.kind) >= self.quota[candidate.kind]:
            self.drop(candidate, "surplus", "n rows of this kind were already kept", written)
            return
        self.decided[candidate.kind] += 1
        self.kept_by_kind[candidate.kind] += 1
        self.rows.append(self.row(candidate, written, ranks))

    def row(self, candidate: Candidate, written: Any, ranks: list[int]) -> SynthesizedRow:
        gold = [i for anchor in candidate.passages for i in self.copies[anchor]]
        sources = [self.passages[i].metadata.get("source") for i in candidate.passages]
        metadata: dict[str, Any] = {"kind": candidate.kind}
        if sources[0] is not None:
            metadata["source"] = sources[0]
        metadata.update(model=self.judge.model, language=self.options["language"])
        if candidate.kind == "multi":
            if any(source is not None for source in sources):
                metadata["sources"] = sources
            metadata.update(bm25_ranks=ranks, pairing=candidate.pairing)
        else:
            metadata["bm25_rank"] = ranks[0]
        return SynthesizedRow(
            id=_row_id(candidate),
            input=written.question,
            ground_truth=written.answer,
            reference_context_ids=[str(self.passages[i].id) for i in gold],
            reference_contexts=[self.passages[i].text for i in gold],
            metadata=metadata,
        )

    async def round(self) -> bool:
        """One round; False when there is nothing left to do (or to draw)."""
        need = {k: self.quota[k] - self.kept(k) for k in self.quota}
        rates = {
            k: (self.kept(k) / self.decided[k]) if self.decided[k] else 0.8 for k in self.quota
        }
        for kind in self.quota:
            if self.decided[kind] >= GIVE_UP_AFTER and not self.kept(kind) and need[kind] > 0:
                need[kind] = 0
                self.gave_up.setdefault(kind, self.decided[kind])
        if not any(v > 0 for v in need.values()):
            return False
        planned = self.planner.round(need, rates)
        drawn = {c.kind for c in planned}
        self.ran_out += [
            k for k, v in need.items() if v > 0 and k not in drawn and k not in self.ran_out
        ]
        if not planned:
            self.summary.exhausted = True
            return False
        self.summary.rounds += 1
        self.summary.candidates += len(planned)
        written = await self.step("write", planned, self.writers, self.write_runs)
        screened = {}
        for candidate in planned:
            found = self.screen(candidate, written[candidate.serial])
            if found is not None:
                screened[candidate.serial] = (candidate, *found)

        def check_run(candidate: Candidate) -> tuple[str, ScorerRun]:
            question = screened[candidate.serial][1]
            return "check", ScorerRun(
                input=question.question,
                ground_truth=question.answer,
                reference_contexts=self.texts(candidate),
            )

        pending = list(screened.values())
        while pending:  # check no more than each kind still needs: surplus costs no check
            wave, pending = self.wave(pending)
            if not wave:
                break
            survivors = [entry[0] for entry in wave]
            checked = await self.step("check", survivors, {"check": self.checker}, check_run)
            for candidate, question, ranks in wave:
                self.settle(candidate, question, ranks, checked[candidate.serial])
        for candidate, question, _ in pending:
            reason = "n rows of this kind were already kept (written, not checked)"
            self.drop(candidate, "surplus", reason, question)
        self.rows.sort(key=lambda row: int(row.id.removeprefix("syn-")))
        self.save()
        return True

    def wave(self, pending: list[Any]) -> tuple[list[Any], list[Any]]:
        """The screened candidates to check now (in serial order, per kind as many as it
        still needs) and the rest."""
        room = {kind: self.quota[kind] - self.kept(kind) for kind in self.quota}
        now, later = [], []
        for entry in pending:
            kind = entry[0].kind
            if room[kind] > 0:
                room[kind] -= 1
                now.append(entry)
            else:
                later.append(entry)
        return now, later

    def save(self) -> None:
        if self.out is not None:
            self.result().to_jsonl(self.out)

    def result(self) -> SynthesisResult:
        s = self.summary
        s.kept = len(self.rows)
        s.kept_by_kind = {k: self.kept(k) for k in self.quota}
        s.dropped_by_gate = dict(Counter(d.gate for d in self.dropped).most_common())
        if s.kept >= s.requested:
            s.message = f"kept {s.kept} rows, as asked"
        else:
            reasons = []
            if self.ran_out:
                reasons.append(
                    f"the corpus ran out of passages for {' and '.join(self.ran_out)}"
                    + (" (a multi anchor needs a partner)" if "multi" in self.ran_out else "")
                )
            if self.gave_up:
                tried = "; ".join(
                    f"no {kind} candidate passed in {tries} tries"
                    for kind, tries in self.gave_up.items()
                )
                reasons.append(f"{tried} (see .dropped), so that kind stopped")
            why = "; ".join(reasons) or "stopped"
            s.message = (
                f"kept {s.kept} of {s.requested} rows: {why} ({s.anchors} of {s.passages} "
                f"passages long enough to ask about, {s.candidates} candidates tried)"
            )
        return SynthesisResult(rows=list(self.rows), dropped=list(self.dropped), summary=s)
