"""The model-free scorers write their reasons in the data's language, as the LLM scorers
do: ``language="auto"`` follows the script of the ground truth, the question, the
references or the chunks; numbers, ids and quoted text stay as they are."""

from __future__ import annotations

import pytest

from evals import run_evals
from scorers import (
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)

ITEMS = {
    "ko": {
        "input": "아인슈타인은 어디에서 태어났나요?",
        "context": [
            {"id": "k1", "text": "아인슈타인은 1879년 울름에서 태어났다."},
            {"id": "k2", "text": "파리는 프랑스의 수도이다."},
        ],
        "reference_contexts": [
            "아인슈타인은 1879년 울름에서 태어났다.",
            "그는 바이올린을 연주했다.",
        ],
        "reference_context_ids": ["k1", "k9"],
    },
    "zh": {
        "input": "爱因斯坦出生在哪里？",
        "context": [
            {"id": "z1", "text": "爱因斯坦于1879年出生在乌尔姆。"},
            {"id": "z2", "text": "巴黎是法国的首都。"},
        ],
        "reference_contexts": ["爱因斯坦于1879年出生在乌尔姆。", "他会拉小提琴。"],
        "reference_context_ids": ["z1", "z9"],
    },
    "ja": {
        "input": "アインシュタインはどこで生まれましたか？",
        "context": [
            {"id": "j1", "text": "アインシュタインは1879年にウルムで生まれた。"},
            {"id": "j2", "text": "パリはフランスの首都です。"},
        ],
        "reference_contexts": [
            "アインシュタインは1879年にウルムで生まれた。",
            "彼はバイオリンを弾いた。",
        ],
        "reference_context_ids": ["j1", "j9"],
    },
}

# a fragment of each scorer's reason per language
EXPECTED = {
    "non-llm-context-recall": {
        "ko": "참조 컨텍스트 2개 중 1개에 levenshtein 유사도 >= 0.5인 검색된 청크가 있습니다.",
        "zh": "2 个参考上下文中有 1 个存在 levenshtein 相似度 >= 0.5 的检索片段。",
        "ja": "参照コンテキスト 2 件のうち 1 件に levenshtein 類似度 >= 0.5 の検索チャンクがあります。",
    },
    "non-llm-context-precision": {
        "ko": "검색된 청크 2개 중 1개가 참조와 일치합니다 (levenshtein 유사도 >= 0.5) (순위 [1]); 평균 정밀도 1.",
        "zh": "检索到的 2 个片段中有 1 个与参考匹配（levenshtein 相似度 >= 0.5）（排名 [1]）；平均精度 1。",
        "ja": "検索された 2 個のチャンクのうち 1 個が参照と一致します（levenshtein 類似度 >= 0.5）（順位 [1]）；平均適合率 1。",
    },
    "id-context-recall": {
        "ko": "참조 id 2개 중 1개가 검색되었습니다 (점수 0.5).",
        "zh": "2 个参考 id 中有 1 个被检索到（得分 0.5）。",
        "ja": "参照 id 2 件のうち 1 件が検索されました（スコア 0.5）。",
    },
    "id-context-precision": {
        "ko": "검색된 id 2개 중 1개가 관련 있습니다 (점수 0.5).",
        "zh": "检索到的 2 个 id 中有 1 个相关（得分 0.5）。",
        "ja": "検索された id 2 件のうち 1 件が関連しています（スコア 0.5）。",
    },
    "mrr": {
        "ko": "mrr = 1: 검색된 2개 중 관련 청크의 순위 [1]; 관련 참조는 모두 2개.",
        "zh": "mrr = 1：检索到的 2 个中相关片段的排名为 [1]；共有 2 个相关参考。",
        "ja": "mrr = 1：検索された 2 件中、関連チャンクの順位 [1]；関連する参照は全部で 2 件。",
    },
}


def scorers(**options):
    return [
        create_non_llm_context_recall_scorer(options),
        create_non_llm_context_precision_scorer(options),
        create_id_context_recall_scorer(options),
        create_id_context_precision_scorer(options),
        create_ranking_scorer("mrr", options),
    ]


@pytest.mark.parametrize("lang", ["ko", "zh", "ja"])
def test_reasons_follow_the_data_language_step_by_step_and_in_blocks(lang) -> None:
    item = ITEMS[lang]
    blocks = run_evals([{"id": "1", **item}], scorers(), progress=False).items[0]
    for scorer in scorers():
        stepped = scorer.run(**item)
        assert EXPECTED[scorer.id][lang] in stepped.reason, (scorer.id, stepped.reason)
        assert blocks.scorer_results[scorer.id].reason == stepped.reason  # fast path alike


def test_quoted_text_and_ids_stay_as_they_are() -> None:
    item = ITEMS["ko"]
    recall = create_non_llm_context_recall_scorer().run(**item).reason
    assert recall.endswith(' 누락: "그는 바이올린을 연주했다.".')
    ids = create_id_context_recall_scorer().run(**item).reason
    assert ids.endswith("찾음: ['k1']; 누락: ['k9']; 관련 없음: ['k2'].")


def test_language_can_be_fixed_and_english_data_reads_as_before() -> None:
    forced = create_id_context_recall_scorer({"language": "en"}).run(**ITEMS["ja"]).reason
    assert forced == (
        "1 of 2 reference ids were retrieved (score 0.5). "
        "Found: ['j1']; missing: ['j9']; not relevant: ['j2']."
    )
    english = {
        "input": "Where was Einstein born?",
        "context": [{"id": "a", "text": "Einstein was born in Ulm."}],
        "reference_contexts": ["Einstein was born in Ulm.", "He played the violin."],
    }
    recall = create_non_llm_context_recall_scorer().run(**english).reason
    assert recall == (
        "1 of 2 reference contexts have a retrieved chunk with levenshtein similarity >= 0.5."
        ' Missing: "He played the violin.".'
    )
    korean = create_non_llm_context_precision_scorer({"language": "ko"}).run(**english)
    assert korean.reason.startswith("검색된 청크 1개 중 1개가")


def test_auto_reads_the_ground_truth_first_then_the_question() -> None:
    item = {**ITEMS["zh"], "ground_truth": "Einstein was born in Ulm."}
    assert create_id_context_recall_scorer().run(**item).reason.startswith("1 of 2")
    chunks_only = {"context": ITEMS["ja"]["context"], "reference_context_ids": ["j1"]}
    assert "検索されました" in create_id_context_recall_scorer().run(**chunks_only).reason


@pytest.mark.parametrize("lang", ["ko", "zh", "ja"])
def test_skip_and_empty_reasons_are_translated_too(lang) -> None:
    item = ITEMS[lang]
    skipped = create_non_llm_context_recall_scorer().run(input=item["input"], context=[])
    assert skipped.status == "skipped" and "reference_contexts" in skipped.reason
    assert not skipped.reason.startswith("skipped")
    no_ids = create_id_context_recall_scorer().run(input=item["input"], context=item["context"])
    assert no_ids.status == "skipped" and not no_ids.reason.startswith("skipped")
    empty = create_non_llm_context_recall_scorer().run(
        input=item["input"], context=[], reference_contexts=item["reference_contexts"]
    )
    assert empty.score == 0 and not empty.reason.startswith("Score 0")


def test_every_template_fills_in_as_str_format_would() -> None:
    import string

    from scorers._i18n import TEMPLATES, t

    for key, forms in TEMPLATES.items():
        for lang, template in forms.items():
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
            values = {name: f"<{name} {{x}} 'q' \"d\">" for name in fields}
            assert t(lang, key, **values) == template.format(**values), (key, lang)
