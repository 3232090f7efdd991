"""The language of the reasons scorekit composes: English, Korean, Chinese, Japanese.

``"auto"`` picks the language from the script of the text the scorer reads (the ground
truth, or the response): Hangul → Korean, kana → Japanese, other Han characters →
Chinese, anything else → English.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["auto", "en", "ko", "zh", "ja"]
NAMES = {"en": "English", "ko": "Korean", "zh": "Chinese", "ja": "Japanese"}

_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff]")
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf]")

TEMPLATES: dict[str, dict[str, str]] = {
    "recall_head": {
        "en": "{supported} of {total} ground-truth claims are supported by the retrieved context (score {score}).",
        "ko": "정답의 주장 {total}개 중 {supported}개가 검색된 컨텍스트로 뒷받침됩니다 (점수 {score}).",
        "zh": "参考答案的 {total} 条陈述中有 {supported} 条得到检索上下文的支持（得分 {score}）。",
        "ja": "正解の主張 {total} 件のうち {supported} 件が検索されたコンテキストで裏付けられています（スコア {score}）。",
    },
    "supported": {"en": "Supported", "ko": "뒷받침됨", "zh": "有支持", "ja": "裏付けあり"},
    "missing": {"en": "Missing", "ko": "누락", "zh": "缺失", "ja": "欠落"},
    "recall_no_context": {
        "en": "Score 0: no context was retrieved, so no claim of the ground truth is supported.",
        "ko": "점수 0: 검색된 컨텍스트가 없어 정답의 어떤 주장도 뒷받침되지 않습니다.",
        "zh": "得分 0：没有检索到上下文，参考答案的任何陈述都得不到支持。",
        "ja": "スコア 0：コンテキストが検索されなかったため、正解の主張はどれも裏付けられません。",
    },
    "precision_head": {
        "en": "{useful} of {total} retrieved chunks were useful for {label}{ranks}; average precision {score}.",
        "ko": "검색된 청크 {total}개 중 {useful}개가 {label}에 유용했습니다{ranks}; 평균 정밀도 {score}.",
        "zh": "检索到的 {total} 个片段中有 {useful} 个对{label}有用{ranks}；平均精度 {score}。",
        "ja": "検索された {total} 個のチャンクのうち {useful} 個が{label}に役立ちました{ranks}；平均適合率 {score}。",
    },
    "ranks": {
        "en": ", at ranks {ranks}",
        "ko": " (순위 {ranks})",
        "zh": "（排名 {ranks}）",
        "ja": "（順位 {ranks}）",
    },
    "useful": {"en": "useful", "ko": "유용", "zh": "有用", "ja": "有用"},
    "not_useful": {"en": "not useful", "ko": "유용하지 않음", "zh": "无用", "ja": "有用でない"},
    "precision_no_context": {
        "en": "Score 0: no context was retrieved.",
        "ko": "점수 0: 검색된 컨텍스트가 없습니다.",
        "zh": "得分 0：没有检索到上下文。",
        "ja": "スコア 0：コンテキストが検索されませんでした。",
    },
    "ground truth": {"en": "ground truth", "ko": "정답", "zh": "参考答案", "ja": "正解"},
    "response": {"en": "response", "ko": "응답", "zh": "回答", "ja": "回答"},
}


def detect_language(text: str | None) -> str:
    """``ko``, ``ja``, ``zh`` or ``en`` from the script of ``text``."""
    if not text:
        return "en"
    if _HANGUL.search(text):
        return "ko"
    if _KANA.search(text):
        return "ja"
    if _HAN.search(text):
        return "zh"
    return "en"


def resolve(language: str, text: str | None) -> str:
    """The language to write in: ``language``, or the detected one for ``"auto"``."""
    return detect_language(text) if language == "auto" else language


def t(language: str, key: str, **values: object) -> str:
    """The template ``key`` in ``language`` (English when it has none), filled in."""
    forms = TEMPLATES[key]
    return forms.get(language, forms["en"]).format(**values)


def reasons_in(language: str) -> str:
    """The sentence that asks an LLM for reasons in ``language`` ("" for English)."""
    if language == "en":
        return ""
    return f" Write every reason in {NAMES[language]}."
