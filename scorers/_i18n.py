"""The language of the reasons scorekit composes: English, Korean, Chinese, Japanese.

``"auto"`` picks the language from the script of the text the scorer reads (the ground
truth, or the response): Hangul → Korean, kana → Japanese, other Han characters →
Chinese, anything else → English.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
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
    # context relevance (Mastra's): levels, use, penalties
    "relevance_head": {
        "en": "Context relevance {score}: the {total} retrieved chunks average {base} relevance to the question (high 1, medium 0.7, low 0.3, none 0).",
        "ko": "컨텍스트 관련성 {score}: 검색된 청크 {total}개의 질문 관련성 평균은 {base}입니다 (높음 1, 중간 0.7, 낮음 0.3, 없음 0).",
        "zh": "上下文相关性 {score}：检索到的 {total} 个片段与问题的平均相关性为 {base}（高 1，中 0.7，低 0.3，无 0）。",
        "ja": "コンテキスト関連性 {score}：検索された {total} 個のチャンクの質問への関連性の平均は {base} です（高 1、中 0.7、低 0.3、なし 0）。",
    },
    "relevance_unused": {
        "en": "Penalty {penalty}: {n} highly relevant chunk(s) not used in the response.",
        "ko": "감점 {penalty}: 관련성이 높은 청크 {n}개가 응답에 쓰이지 않았습니다.",
        "zh": "扣分 {penalty}：{n} 个高度相关的片段未被回答使用。",
        "ja": "減点 {penalty}：関連性の高いチャンク {n} 個が回答に使われていません。",
    },
    "relevance_missing": {
        "en": "Penalty {penalty}: {n} piece(s) of information the question needs are in no chunk:",
        "ko": "감점 {penalty}: 질문에 필요한 정보 {n}개가 어느 청크에도 없습니다:",
        "zh": "扣分 {penalty}：问题所需的 {n} 项信息不在任何片段中：",
        "ja": "減点 {penalty}：質問に必要な情報 {n} 件がどのチャンクにもありません：",
    },
    "relevance_no_context": {
        "en": "Score 0: no context was retrieved, so nothing relevant was retrieved.",
        "ko": "점수 0: 검색된 컨텍스트가 없어 관련 있는 것이 검색되지 않았습니다.",
        "zh": "得分 0：没有检索到上下文，因此没有检索到相关内容。",
        "ja": "スコア 0：コンテキストが検索されなかったため、関連するものは検索されていません。",
    },
    "level_high": {"en": "high", "ko": "높음", "zh": "高", "ja": "高"},
    "level_medium": {"en": "medium", "ko": "중간", "zh": "中", "ja": "中"},
    "level_low": {"en": "low", "ko": "낮음", "zh": "低", "ja": "低"},
    "level_none": {"en": "none", "ko": "없음", "zh": "无", "ja": "なし"},
    "used": {"en": "used", "ko": "사용됨", "zh": "已使用", "ja": "使用"},
    "not_used": {"en": "not used", "ko": "사용되지 않음", "zh": "未使用", "ja": "未使用"},
    # the model-free scorers: string similarity, ids, ranking
    "similarity_recall": {
        "en": "{matched} of {total} reference contexts have a retrieved chunk with {measure} similarity >= {threshold}.",
        "ko": "참조 컨텍스트 {total}개 중 {matched}개에 {measure} 유사도 >= {threshold}인 검색된 청크가 있습니다.",
        "zh": "{total} 个参考上下文中有 {matched} 个存在 {measure} 相似度 >= {threshold} 的检索片段。",
        "ja": "参照コンテキスト {total} 件のうち {matched} 件に {measure} 類似度 >= {threshold} の検索チャンクがあります。",
    },
    "missing_list": {
        "en": " Missing: {items}.",
        "ko": " 누락: {items}.",
        "zh": "缺失：{items}。",
        "ja": "欠落：{items}。",
    },
    "similarity_precision": {
        "en": "{matched} of {total} retrieved chunks match a reference ({measure} similarity >= {threshold}){ranks}; average precision {score}.",
        "ko": "검색된 청크 {total}개 중 {matched}개가 참조와 일치합니다 ({measure} 유사도 >= {threshold}){ranks}; 평균 정밀도 {score}.",
        "zh": "检索到的 {total} 个片段中有 {matched} 个与参考匹配（{measure} 相似度 >= {threshold}）{ranks}；平均精度 {score}。",
        "ja": "検索された {total} 個のチャンクのうち {matched} 個が参照と一致します（{measure} 類似度 >= {threshold}）{ranks}；平均適合率 {score}。",
    },
    "at_ranks": {
        "en": " at ranks {ranks}",
        "ko": " (순위 {ranks})",
        "zh": "（排名 {ranks}）",
        "ja": "（順位 {ranks}）",
    },
    "id_recall": {
        "en": "{found} of {relevant} reference ids were retrieved (score {score}).",
        "ko": "참조 id {relevant}개 중 {found}개가 검색되었습니다 (점수 {score}).",
        "zh": "{relevant} 个参考 id 中有 {found} 个被检索到（得分 {score}）。",
        "ja": "参照 id {relevant} 件のうち {found} 件が検索されました（スコア {score}）。",
    },
    "id_precision": {
        "en": "{found} of {retrieved} retrieved ids are relevant (score {score}).",
        "ko": "검색된 id {retrieved}개 중 {found}개가 관련 있습니다 (점수 {score}).",
        "zh": "检索到的 {retrieved} 个 id 中有 {found} 个相关（得分 {score}）。",
        "ja": "検索された id {retrieved} 件のうち {found} 件が関連しています（スコア {score}）。",
    },
    "id_listing": {
        "en": "Found: {found}; missing: {missing}; not relevant: {extra}.",
        "ko": "찾음: {found}; 누락: {missing}; 관련 없음: {extra}.",
        "zh": "找到：{found}；缺失：{missing}；不相关：{extra}。",
        "ja": "検出：{found}；欠落：{missing}；関連なし：{extra}。",
    },
    "ranking": {
        "en": "{metric} = {value}: relevant chunks at ranks {ranks} of {retrieved} retrieved; {relevant} relevant references in all.",
        "ko": "{metric} = {value}: 검색된 {retrieved}개 중 관련 청크의 순위 {ranks}; 관련 참조는 모두 {relevant}개.",
        "zh": "{metric} = {value}：检索到的 {retrieved} 个中相关片段的排名为 {ranks}；共有 {relevant} 个相关参考。",
        "ja": "{metric} = {value}：検索された {retrieved} 件中、関連チャンクの順位 {ranks}；関連する参照は全部で {relevant} 件。",
    },
    "no_references": {
        "en": "skipped: no reference_contexts were given to compare with",
        "ko": "건너뜀: 비교할 reference_contexts가 주어지지 않았습니다",
        "zh": "已跳过：没有提供可比较的 reference_contexts",
        "ja": "スキップ：比較する reference_contexts が与えられていません",
    },
    "no_reference_ids": {
        "en": "skipped: no relevant reference_context_ids were given to compare with",
        "ko": "건너뜀: 비교할 관련 reference_context_ids가 주어지지 않았습니다",
        "zh": "已跳过：没有提供可比较的相关 reference_context_ids",
        "ja": "スキップ：比較する関連 reference_context_ids が与えられていません",
    },
    "response": {"en": "response", "ko": "응답", "zh": "回答", "ja": "回答"},
}


def detect_language(text: str | None) -> str:
    """``ko``, ``ja``, ``zh`` or ``en`` from the script of ``text``."""
    if not text or text.isascii():
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
    fill = _COMPILED.get((key, language))
    if fill is None:
        fill = _COMPILED[key, language] = _compiled(key, language)
    return fill(**values)


_COMPILED: dict[tuple[str, str], Callable[..., str]] = {}


def _compiled(key: str, language: str) -> Callable[..., str]:
    """The template as a function of its fields: an f-string made once from our own
    constant templates (the model-free scorers fill thousands of reasons per second, and
    ``str.format`` parses its template on every call)."""
    forms = TEMPLATES[key]
    template = forms.get(language, forms["en"])
    names = sorted({field for _, field, _, _ in string.Formatter().parse(template) if field})
    fn: Callable[..., str] = eval(f"lambda {', '.join([*names, '**_'])}: f{template!r}")
    return fn


def data_language(language: str, texts: Iterable[str | None]) -> str:
    """The language to write in for a model-free scorer: ``language``, or for ``"auto"``
    the script of the first non-empty text of ``texts`` (the ground truth, the question,
    the references, the chunks)."""
    if language != "auto":
        return language
    return detect_language(next((text for text in texts if text and text.strip()), None))


def reasons_in(language: str) -> str:
    """The sentence that asks an LLM for reasons in ``language`` ("" for English)."""
    if language == "en":
        return ""
    return f" Write every reason in {NAMES[language]}."
