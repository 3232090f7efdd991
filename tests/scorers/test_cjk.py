"""Chinese, Japanese and Korean text: word measures on character bigrams, NFKC, BM25."""

from __future__ import annotations

from evals.quickstart import BM25Retriever, tokenize
from evals.testing import FakeLLMServer
from scorers import (
    Chunk,
    create_context_recall_scorer,
    create_non_llm_context_recall_scorer,
    similarity_matrix,
)
from scorers._text import words


def test_words_split_cjk_runs_into_bigrams_and_keep_other_words():
    assert words("巴黎是法国 Paris 2024") == ["巴黎", "黎是", "是法", "法国", "Paris", "2024"]
    assert words("에펠탑은 파리에") == ["에펠", "펠탑", "탑은", "파리", "리에"]
    assert words("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert words("猫 is cute") == ["猫", "is", "cute"]


def test_token_set_ratio_sees_reordered_chinese_and_korean_sentences_as_close():
    zh = similarity_matrix(
        ["巴黎是法国的首都"], ["法国的首都是巴黎", "今天天气很好"], "token_set_ratio"
    )
    assert zh[0, 0] > 0.85 and zh[0, 1] < 0.3
    ko = similarity_matrix(
        ["에펠탑은 파리에 있다"], ["파리에 에펠탑이 있다", "오늘 날씨가 좋다"], "token_set_ratio"
    )
    assert ko[0, 0] > 0.85 and ko[0, 1] < 0.3
    english = similarity_matrix(["the cat sat"], ["sat the cat"], "token_set_ratio")
    assert english[0, 0] == 1.0  # non-CJK text is left as it was


def test_nfkc_when_normalising():
    assert similarity_matrix(["ＡＢＣ１２３"], ["abc123"], ignore_case=True)[0, 0] == 1.0
    assert similarity_matrix(["ＡＢＣ１２３"], ["abc123"])[0, 0] < 1.0  # only when asked


def test_string_recall_on_chinese_items():
    recall = create_non_llm_context_recall_scorer({"measure": "token_set_ratio", "threshold": 0.7})
    result = recall.run(
        context=["法国的首都是巴黎。", "埃菲尔铁塔建于1889年。"],
        reference_contexts=["巴黎是法国的首都。", "长城在中国北方。"],
    )
    assert result.score == 0.5


def test_bm25_ranks_cjk_passages():
    assert tokenize("埃菲尔铁塔在巴黎") == ["埃菲", "菲尔", "尔铁", "铁塔", "塔在", "在巴", "巴黎"]
    chunks = [
        Chunk(id="zh", text="埃菲尔铁塔位于法国巴黎。"),
        Chunk(id="ko", text="에펠탑은 프랑스 파리에 있는 철탑이다."),
        Chunk(id="other", text="长城是中国古代的军事防御工程。"),
    ]
    bm25 = BM25Retriever(chunks, k=1)
    assert bm25("埃菲尔铁塔在哪里？").context[0].id == "zh"
    assert bm25("에펠탑은 어디에 있나요?").context[0].id == "ko"


def test_korean_and_chinese_items_through_the_judge():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        zh = recall.run(
            ground_truth="埃菲尔铁塔位于巴黎。它建于1889年。",
            context=["埃菲尔铁塔位于巴黎。", "长城在中国。"],
        )
        ko = recall.run(
            ground_truth="에펠탑은 파리에 있다. 에펠탑은 1889년에 완공되었다.",
            context=["에펠탑은 파리에 있다.", "서울은 한국의 수도이다."],
        )
    assert zh.status == ko.status == "scored"
    assert zh.details["claims_used"]["claims"][0] == "埃菲尔铁塔位于巴黎。"  # kept, not translated
    assert 0.0 <= zh.score <= 1.0 and 0.0 <= ko.score <= 1.0
