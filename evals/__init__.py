"""scorekit evals: run scorers over labelled data sets and agents.

Everything public is re-exported here; the modules behind it are private. Names are
loaded on first use, so ``import evals`` (and scorekit's pytest plugin) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "AgentOutput": "scorers",
    "DatasetError": "scorers",
    "Agent": "._agents._agent",
    "InMemoryScoreStore": "._agents._store",
    "Sampling": "._agents._attached",
    "ScoredAgent": "._agents._scored",
    "scored": "._agents._scored",
    "ScoreRecord": "._agents._store",
    "ScoreStore": "._agents._store",
    "SqliteScoreStore": "._agents._store",
    "Tool": "._agents._tools",
    "EvalItem": "._data",
    "register_format": "._files",
    "Columns": "._files",
    "load_dataset": "._data",
    "CallTotals": "._results",
    "RunComparison": "._results",
    "RunRow": "._results",
    "RunsComparison": "._results",
    "RunSummary": "._results",
    "ScorerDelta": "._results",
    "ScorerSummary": "._results",
    "mean_ci": "._results",
    "EvalResult": "._results",
    "ItemError": "._results",
    "IgnoredColumnsWarning": "._run._runner",
    "ItemFailedError": "._run._runner",
    "ItemResult": "._results",
    "TargetOutput": "._run._targets",
    "TargetResult": "._results",
    "arun_evals": "._run._runner",
    "compare_runs": "._results",
    "read_results": "._results",
    "ResultList": "._results",
    "RunView": "._results",
    "run_evals": "._run._runner",
    "JudgedQrels": "._qrels",
    "ajudge_qrels": "._qrels",
    "judge_qrels": "._qrels",
    "ErrorRecord": "._results",
    "merge_results": "._run._shards",
    "RunEstimate": "._estimate",
    "estimate_run": "._estimate",
    "aestimate_run": "._estimate",
    "LabelStore": "._labels",
    "JudgeVerdict": "._labels",
    "Label": "._labels",
    "RowReview": "._labels",
    "JudgeAgreement": "._agreement._agreement",
    "AgreementGate": "._agreement._agreement",
    "judge_agreements": "._agreement._agreement",
    "agreement_gates": "._agreement._agreement",
    "sample_verdicts": "._agreement._verdicts",
    "MIN_LABELS": "._agreement._agreement",
    "PeopleAgreement": "._agreement._people",
    "people_agreements": "._agreement._people",
    "ViewServer": "._view",
    "Calibration": "._calibration",
    "acalibrate": "._calibrate",
    "calibrate": "._calibrate",
    "calibration_table": "._calibration",
    "summarize": "._results",
    "Gate": "._results",
    "RunHeader": "._results",
    "ScorerDefinition": "._results",
    "DroppedCandidate": "._synthesis",
    "SynthesisResult": "._synthesis",
    "SynthesisSummary": "._synthesis",
    "SynthesizedRow": "._synthesis",
    "asynthesize": "._synthesis",
    "read_corpus": "._synthesis",
    "synthesize": "._synthesis",
    "SYNTHESIS_GATES": "._synthesis",
    "SynthesisEstimate": "._synthesis",
    "aestimate_synthesis": "._synthesis",
    "estimate_synthesis": "._synthesis",
}

if TYPE_CHECKING:
    from scorers import AgentOutput, DatasetError

    from ._agents._agent import Agent
    from ._agents._attached import Sampling
    from ._agents._scored import ScoredAgent, scored
    from ._agents._store import InMemoryScoreStore, ScoreRecord, ScoreStore, SqliteScoreStore
    from ._agents._tools import Tool
    from ._agreement._agreement import (
        MIN_LABELS,
        AgreementGate,
        JudgeAgreement,
        agreement_gates,
        judge_agreements,
    )
    from ._agreement._people import PeopleAgreement, people_agreements
    from ._agreement._verdicts import sample_verdicts
    from ._calibrate import acalibrate, calibrate
    from ._calibration import Calibration, calibration_table
    from ._data import EvalItem, load_dataset
    from ._estimate import RunEstimate, aestimate_run, estimate_run
    from ._files import Columns, register_format
    from ._labels import JudgeVerdict, Label, LabelStore, RowReview
    from ._qrels import JudgedQrels, ajudge_qrels, judge_qrels
    from ._results import (
        CallTotals,
        ErrorRecord,
        EvalResult,
        Gate,
        ItemError,
        ItemResult,
        ResultList,
        RunComparison,
        RunHeader,
        RunRow,
        RunsComparison,
        RunSummary,
        RunView,
        ScorerDefinition,
        ScorerDelta,
        ScorerSummary,
        TargetResult,
        compare_runs,
        mean_ci,
        read_results,
        summarize,
    )
    from ._run._runner import IgnoredColumnsWarning, ItemFailedError, arun_evals, run_evals
    from ._run._shards import merge_results
    from ._run._targets import TargetOutput
    from ._synthesis import (
        SYNTHESIS_GATES,
        DroppedCandidate,
        SynthesisEstimate,
        SynthesisResult,
        SynthesisSummary,
        SynthesizedRow,
        aestimate_synthesis,
        asynthesize,
        estimate_synthesis,
        read_corpus,
        synthesize,
    )
    from ._view import ViewServer


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "MIN_LABELS",
    "SYNTHESIS_GATES",
    "Agent",
    "AgentOutput",
    "AgreementGate",
    "Calibration",
    "CallTotals",
    "Columns",
    "DatasetError",
    "DroppedCandidate",
    "ErrorRecord",
    "EvalItem",
    "EvalResult",
    "Gate",
    "IgnoredColumnsWarning",
    "InMemoryScoreStore",
    "ItemError",
    "ItemFailedError",
    "ItemResult",
    "JudgeAgreement",
    "JudgeVerdict",
    "JudgedQrels",
    "Label",
    "LabelStore",
    "PeopleAgreement",
    "ResultList",
    "RowReview",
    "RunComparison",
    "RunEstimate",
    "RunHeader",
    "RunRow",
    "RunSummary",
    "RunView",
    "RunsComparison",
    "Sampling",
    "ScoreRecord",
    "ScoreStore",
    "ScoredAgent",
    "ScorerDefinition",
    "ScorerDelta",
    "ScorerSummary",
    "SqliteScoreStore",
    "SynthesisEstimate",
    "SynthesisResult",
    "SynthesisSummary",
    "SynthesizedRow",
    "TargetOutput",
    "TargetResult",
    "Tool",
    "ViewServer",
    "acalibrate",
    "aestimate_run",
    "aestimate_synthesis",
    "agreement_gates",
    "ajudge_qrels",
    "arun_evals",
    "asynthesize",
    "calibrate",
    "calibration_table",
    "compare_runs",
    "estimate_run",
    "estimate_synthesis",
    "judge_agreements",
    "judge_qrels",
    "load_dataset",
    "mean_ci",
    "merge_results",
    "people_agreements",
    "read_corpus",
    "read_results",
    "register_format",
    "run_evals",
    "sample_verdicts",
    "scored",
    "summarize",
    "synthesize",
]
