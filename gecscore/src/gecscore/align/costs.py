"""ChERRANT's substitution cost of two tokens (Cilin class, punctuation, pinyin and confusion
sets), computed from per-token features cached in the resources."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from gecscore.resources import (
    Resources,
    SemanticClass,
    char_readings,
    pypinyin_readings,
)

__all__ = [
    "ALIGN_PUNCTUATION",
    "SemanticClassOrNone",
    "char_pinyin",
    "substitution_cost",
    "substitution_costs",
    "word_pinyin",
]


SemanticClassOrNone = SemanticClass | None

# ChERRANT's alignment punctuation: its full-width list followed by string.punctuation.
# Membership is a SUBSTRING test in ChERRANT (``token in punct``), kept as such.
ALIGN_PUNCTUATION = (
    "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏"
    + "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
)


def _all_cjk(token: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in token)


@cache
def char_pinyin(token: str) -> frozenset[str]:
    """All readings of a character (pypinyin NORMAL style, heteronyms on); CJK characters
    come from the prebuilt table, which holds the same values (resources.char_readings)."""
    found = char_readings().get(token)
    return pypinyin_readings(token) if found is None else found


@cache
def word_pinyin(token: str) -> frozenset[str]:
    """Syllables of a word (pypinyin ``lazy_pinyin``, as ChERRANT's word tokenizer)."""
    from pypinyin import lazy_pinyin

    return frozenset(lazy_pinyin(token))


def _spell_cost(
    a: str, b: str, pa: frozenset[str], pb: frozenset[str], resources: Resources
) -> float:
    # a is the shorter token. The pinyin test compares the WHOLE tokens' readings (it does not
    # depend on the characters being compared): that is ChERRANT's rule, kept on purpose.
    confusion = resources.confusion
    shared_reading = bool(pa & pb)
    count = 0
    for ca in a:
        for cb in b:
            if (
                ca == cb
                or shared_reading
                or cb in confusion.get(ca, ())
                or ca in confusion.get(cb, ())
            ):
                count += 1
                break
    return (len(a) - count) / (len(a) * 2)


_Features = tuple[SemanticClassOrNone, bool, bool, frozenset[str]]


def _features(token: str, resources: Resources, granularity: str) -> _Features:
    """(Cilin class, is punctuation, all CJK, readings) of a token, cached per resources."""
    cache = resources.token_features.setdefault(granularity, {})
    found = cache.get(token)
    if found is None:
        cjk = _all_cjk(token)
        readings = (
            (char_pinyin if granularity == "char" else word_pinyin)(token) if cjk else frozenset()
        )
        found = cache[token] = (
            resources.semantic.get(token),
            token in ALIGN_PUNCTUATION,
            cjk,
            readings,
        )
    return found


def substitution_costs(
    a: str, targets: Sequence[str], resources: Resources, granularity: str = "char"
) -> list[float]:
    """ChERRANT's substitution cost of ``a`` and each of ``targets`` (all different from ``a``),
    range 0.25 .. 1.999: the one Python form of the cost model (the compiled ``char_costs``
    repeats it at char level; tests hold the two equal).

    This is the cold-cache hot path (~190,000 pairs for 1,137 hypotheses), hence a's features
    and the lookups bound outside the loop. Not memoised here: align() keeps every computed
    cost in ``resources.sub_cost_rows``.
    """
    sem_a, a_punct, a_cjk, pinyin_a = _features(a, resources, granularity)
    confusion_get = resources.confusion.get
    confusable = confusion_get(a, ())
    single = len(a) == 1
    known_features = resources.token_features.setdefault(granularity, {}).get
    shares_no_reading = pinyin_a.isdisjoint
    # pos: 0 for two punctuation marks, 0.25 for two other tokens, 0.499 for one of each.
    pos_if_punct, pos_if_other = (0.0, 0.499) if a_punct else (0.499, 0.25)
    # Summation order matters for exact ties: ChERRANT adds semantic + char + pos in char mode
    # and semantic + pos + char in word mode.
    char_first = granularity == "char"
    out: list[float] = []
    append = out.append
    for t in targets:
        found = known_features(t)
        if found is None:
            found = _features(t, resources, granularity)
        sem_b, b_punct, b_cjk, pinyin_b = found
        if sem_a is None or sem_b is None:
            semantic = 4
        elif sem_a == sem_b:
            semantic = 0
        else:
            semantic = 2 * (
                3 - ((sem_a[0] == sem_b[0]) + (sem_a[1] == sem_b[1]) + (sem_a[2] == sem_b[2]))
            )
        pos = pos_if_punct if b_punct else pos_if_other
        char: float
        if not (a_cjk and b_cjk):
            char = 0.5
        elif single and len(t) == 1:
            # Single characters (always, at char level): the same test as _spell_cost.
            char = (
                0.0
                if not shares_no_reading(pinyin_b) or t in confusable or a in confusion_get(t, ())
                else 0.5
            )
        elif len(a) > len(t):
            char = _spell_cost(t, a, pinyin_b, pinyin_a, resources)
        else:
            char = 0 if a == t else _spell_cost(a, t, pinyin_a, pinyin_b, resources)
        append(semantic / 6.0 + char + pos if char_first else semantic / 6.0 + pos + char)
    return out


def substitution_cost(a: str, b: str, resources: Resources, granularity: str = "char") -> float:
    """ChERRANT's substitution cost for two different tokens (substitution_costs of one)."""
    return substitution_costs(a, (b,), resources, granularity)[0]
