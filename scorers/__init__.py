"""scorekit scorers: exact, documented retrieval metrics for RAG and agent pipelines.

Everything public is re-exported here; the modules behind it are private.
"""

from ._cache import JudgeCache, default_cache_dir
from ._context import (
    ContextExtractor,
    ContextOptions,
    get_context_extractor,
    list_context_extractors,
    register_context_extractor,
    resolve_context,
    tool_results_extractor,
)
from ._errors import (
    ConfigError,
    DatasetError,
    JudgeAPIError,
    JudgeError,
    JudgeOutputError,
    ScorekitError,
)
from ._judge import Judge
from ._messages import ToolResult, final_text, is_agent_shaped, tool_results
from ._pipeline import NotScorable, PromptStep, Scorer, StepResults, create_scorer, not_scorable
from ._types import AgentOutput, Chunk, JudgeCall, ScoreResult, ScorerRun
from .prebuilt._common import ChunkVerdict, ChunkVerdicts, Claims, ClaimVerdict, ClaimVerdicts
from .prebuilt._recall import ContextRecallOptions, create_context_recall_scorer

__version__ = "0.1.0"

__all__ = [
    "AgentOutput",
    "Chunk",
    "ChunkVerdict",
    "ChunkVerdicts",
    "ClaimVerdict",
    "ClaimVerdicts",
    "Claims",
    "ConfigError",
    "ContextExtractor",
    "ContextOptions",
    "ContextRecallOptions",
    "DatasetError",
    "Judge",
    "JudgeAPIError",
    "JudgeCache",
    "JudgeCall",
    "JudgeError",
    "JudgeOutputError",
    "NotScorable",
    "PromptStep",
    "ScoreResult",
    "ScorekitError",
    "Scorer",
    "ScorerRun",
    "StepResults",
    "ToolResult",
    "create_context_recall_scorer",
    "create_scorer",
    "default_cache_dir",
    "final_text",
    "get_context_extractor",
    "is_agent_shaped",
    "list_context_extractors",
    "not_scorable",
    "register_context_extractor",
    "resolve_context",
    "tool_results",
    "tool_results_extractor",
]
