"""scorekit scorers: exact, documented retrieval metrics for RAG and agent pipelines.

Everything public is re-exported here; the modules behind it are private.
"""

from ._bootstrap import bootstrap, bootstrap_interval
from ._catalog import scorer_by_id, scorer_ids
from ._chunks import ContextList, ItemId, ReferenceIds, ReferenceTexts, RetrievedIds, Text
from ._context import (
    ContextExtractor,
    ContextOptions,
    get_context_extractor,
    list_context_extractors,
    register_context_extractor,
    resolve_context,
    tool_results_extractor,
)
from ._engine import Job, Scored, score_many
from ._errors import (
    BudgetExceededError,
    ConfigError,
    DatasetError,
    JudgeAPIError,
    JudgeAuthError,
    JudgeError,
    JudgeOutputError,
    JudgeSetupError,
    ScorekitError,
    UnreadableOutputError,
)
from ._frameworks import framework_answer, framework_chunks
from ._messages import ToolResult, is_agent_shaped, tool_results
from ._model._cache import JudgeCache, default_cache_dir
from ._model._completion import Completion, ModelRequest, ToolCall, Transport, TransportError
from ._model._judge import Judge
from ._model._litellm import LiteLLMTransport
from ._model._scripted import ScriptedTransport
from ._pipeline import Scorer, create_scorer
from ._power import MIN_PAIRED, detectable_change, items_needed, t_critical_95
from ._prebuilt._contracts import ChunkVerdict, ChunkVerdicts, Claims, ClaimVerdict, ClaimVerdicts
from ._prebuilt._ids import (
    IDContextOptions,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_ranking_scorer,
)
from ._prebuilt._options import ScaleOptions
from ._prebuilt._precision import (
    ContextPrecisionOptions,
    create_context_precision_scorer,
    create_context_utilization_scorer,
)
from ._prebuilt._qrels import create_relevance_scorer
from ._prebuilt._ranking import average_precision
from ._prebuilt._recall import ContextRecallOptions, create_context_recall_scorer
from ._prebuilt._registry import prebuilt as register_scorer
from ._prebuilt._relevance import (
    ContextRelevanceOptions,
    RelevancePenalties,
    create_context_relevance_scorer,
)
from ._prebuilt._similarity import (
    NonLLMContextOptions,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)
from ._prebuilt._similarity_math import MEASURES, similarity_matrix
from ._prebuilt._synthesis import (
    LabelVerdict,
    WrittenQuestion,
    create_label_check_scorer,
    create_question_writer,
)
from ._ranking._compare import RankingComparison, compare_rankings
from ._ranking._evaluate import RankingEvaluation, evaluate_ranking
from ._ranking._trec import load_qrels, load_run, write_qrels
from ._reading import MAX_CHUNKS, Reading, read_result, retrieved_chunks
from ._reading import result_text as final_text
from ._significance import (
    PairedTest,
    holm,
    mean_ci,
    paired_table,
    paired_test,
)
from ._steps import NotScorable, PromptStep, StepResults, not_scorable
from ._text import normalized_words
from ._types import AgentOutput, Chunk, JudgeCall, ScoreResult, ScorerRun

__version__ = "0.1.0"

__all__ = [
    "MAX_CHUNKS",
    "MEASURES",
    "MIN_PAIRED",
    "AgentOutput",
    "BudgetExceededError",
    "Chunk",
    "ChunkVerdict",
    "ChunkVerdicts",
    "ClaimVerdict",
    "ClaimVerdicts",
    "Claims",
    "Completion",
    "ConfigError",
    "ContextExtractor",
    "ContextList",
    "ContextOptions",
    "ContextPrecisionOptions",
    "ContextRecallOptions",
    "ContextRelevanceOptions",
    "DatasetError",
    "IDContextOptions",
    "ItemId",
    "Job",
    "Judge",
    "JudgeAPIError",
    "JudgeAuthError",
    "JudgeCache",
    "JudgeCall",
    "JudgeError",
    "JudgeOutputError",
    "JudgeSetupError",
    "LabelVerdict",
    "LiteLLMTransport",
    "ModelRequest",
    "NonLLMContextOptions",
    "NotScorable",
    "PairedTest",
    "PromptStep",
    "RankingComparison",
    "RankingEvaluation",
    "Reading",
    "ReferenceIds",
    "ReferenceTexts",
    "RelevancePenalties",
    "RetrievedIds",
    "ScaleOptions",
    "ScoreResult",
    "Scored",
    "ScorekitError",
    "Scorer",
    "ScorerRun",
    "ScriptedTransport",
    "StepResults",
    "Text",
    "ToolCall",
    "ToolResult",
    "Transport",
    "TransportError",
    "UnreadableOutputError",
    "WrittenQuestion",
    "average_precision",
    "bootstrap",
    "bootstrap_interval",
    "compare_rankings",
    "create_context_precision_scorer",
    "create_context_recall_scorer",
    "create_context_relevance_scorer",
    "create_context_utilization_scorer",
    "create_id_context_precision_scorer",
    "create_id_context_recall_scorer",
    "create_label_check_scorer",
    "create_non_llm_context_precision_scorer",
    "create_non_llm_context_recall_scorer",
    "create_question_writer",
    "create_ranking_scorer",
    "create_relevance_scorer",
    "create_scorer",
    "default_cache_dir",
    "detectable_change",
    "evaluate_ranking",
    "final_text",
    "framework_answer",
    "framework_chunks",
    "get_context_extractor",
    "holm",
    "is_agent_shaped",
    "items_needed",
    "list_context_extractors",
    "load_qrels",
    "load_run",
    "mean_ci",
    "normalized_words",
    "not_scorable",
    "paired_table",
    "paired_test",
    "read_result",
    "register_context_extractor",
    "register_scorer",
    "resolve_context",
    "retrieved_chunks",
    "score_many",
    "scorer_by_id",
    "scorer_ids",
    "similarity_matrix",
    "t_critical_95",
    "tool_results",
    "tool_results_extractor",
    "write_qrels",
]

from ._registries import READY as _READY

_READY.set()  # scorekit's own entries are in: plugins may load
