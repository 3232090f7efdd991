"""The language option: reasons composed in English, Korean, Chinese or Japanese."""

from __future__ import annotations

import pytest

from evals.testing import FakeLLMServer
from scorers import ConfigError, create_context_precision_scorer, create_context_recall_scorer
from scorers._i18n import detect_language

KO_TRUTH = "에펠탑은 파리에 있다. 에펠탑은 1889년에 완공되었다."
KO_CONTEXT = ["에펠탑은 파리에 있다.", "서울은 한국의 수도이다."]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The tower is in Paris.", "en"),
        (KO_TRUTH, "ko"),
        ("巴黎是法国的首都。", "zh"),
        ("東京タワーは東京にあります。", "ja"),
        ("", "en"),
    ],
)
def test_detection_by_script(text, language):
    assert detect_language(text) == language


def test_auto_follows_the_ground_truth_and_asks_for_reasons_in_it():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        result = recall.run(ground_truth=KO_TRUTH, context=KO_CONTEXT)
        verdict_prompt = server.requests[-1].body["messages"][-1]["content"]
    assert result.reason.startswith(
        "정답의 주장 2개 중 1개가 검색된 컨텍스트로 뒷받침됩니다 (점수 0.5)."
    )
    assert "뒷받침됨:" in result.reason and "누락:" in result.reason
    assert "Write every reason in Korean." in verdict_prompt


def test_an_explicit_language_and_english_unchanged():
    with FakeLLMServer() as server:
        judge = server.judge()
        ja = create_context_precision_scorer(judge, {"language": "ja"}).run(
            ground_truth="Einstein was born in Ulm.", context=["Einstein was born in Ulm in 1879."]
        )
        en = create_context_precision_scorer(judge).run(
            ground_truth="Einstein was born in Ulm.", context=["Einstein was born in Ulm in 1879."]
        )
        prompts = [r.body["messages"][-1]["content"] for r in server.requests]
    assert ja.reason.startswith(
        "検索された 1 個のチャンクのうち 1 個が正解に役立ちました（順位 [1]）"
    )
    assert en.reason.startswith(
        "1 of 1 retrieved chunks were useful for ground truth, at ranks [1]"
    )
    assert (
        "Write every reason in Japanese." in prompts[0] and "Write every reason" not in prompts[1]
    )
    zh = create_context_precision_scorer("openai/m", {"language": "zh"})
    assert zh.fingerprint != create_context_precision_scorer("openai/m").fingerprint
    with pytest.raises(ConfigError, match="language"):
        create_context_recall_scorer("openai/m", {"language": "fr"})
