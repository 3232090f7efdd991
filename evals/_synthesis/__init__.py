"""Labelled sets written from the user's documents (`synthesize`)."""

from ._api import asynthesize, synthesize
from ._corpus import read_corpus
from ._estimate import SynthesisEstimate, aestimate_synthesis, estimate_synthesis
from ._result import GATES as SYNTHESIS_GATES
from ._result import DroppedCandidate, SynthesisResult, SynthesisSummary, SynthesizedRow

__all__ = [
    "SYNTHESIS_GATES",
    "DroppedCandidate",
    "SynthesisEstimate",
    "SynthesisResult",
    "SynthesisSummary",
    "SynthesizedRow",
    "aestimate_synthesis",
    "asynthesize",
    "estimate_synthesis",
    "read_corpus",
    "synthesize",
]
