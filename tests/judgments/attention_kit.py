"""A release with real errors (golden references that differ from the sources) and judges who
answer carefully (by closeness to the golden reference, never looking at whether an item is
a check) or carelessly (at random), for the attention-check and dynamic-assignment tests."""

from __future__ import annotations

import random
from typing import Any

from core.models import User
from datasets.models import DatasetVersion, GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from judgments import esa, selectors, services
from judgments.models import Assignment, Campaign
from tests.factories import make_dataset

ZH_SOURCES = [
    "我很喜欢吃平果",
    "他是一个好学升",
    "今天天汽很好",
    "我们一起去公圆",
    "她每天都喝牛扔",
    "这本书很有意恩",
    "我明天要去北惊",
    "他的汉语说得很流立",
    "我们学校很大和漂亮",
    "昨天我买了一件衣服了",
]
ZH_REFERENCES = [
    "我很喜欢吃苹果",
    "他是一个好学生",
    "今天天气很好",
    "我们一起去公园",
    "她每天都喝牛奶",
    "这本书很有意思",
    "我明天要去北京",
    "他的汉语说得很流利",
    "我们学校又大又漂亮",
    "昨天我买了一件衣服",
]
# three systems: the reference, the source unchanged, and one that fixes every other sentence
ZH_SYSTEMS = {
    "good": ZH_REFERENCES,
    "keep": ZH_SOURCES,
    "half": [
        r if i % 2 else s for i, (s, r) in enumerate(zip(ZH_SOURCES, ZH_REFERENCES, strict=True))
    ],
}


def make_release_with(
    sources: list[str], references: list[str], *, language: str = "zh"
) -> DatasetVersion:
    """A released dataset, sentence ids "1", "2", ..., one golden reference each."""
    dataset = make_dataset(sentences=sources, language=language)
    for sentence, reference in zip(dataset.sentences.order_by("position"), references, strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=reference,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    return release_dataset(dataset=dataset)


def attention_campaign(
    judges: list[User], *, name: str = "attn", mode: str = "ranking", **extra: Any
) -> Campaign:
    release = make_release_with(ZH_SOURCES, ZH_REFERENCES)
    return services.create_campaign(
        name=name,
        release=release,
        system_outputs=ZH_SYSTEMS,
        mode=mode,
        judges=judges,
        judges_per_item=extra.pop("judges_per_item", 2),
        consistency_share=extra.pop("consistency_share", 0.0),
        outputs_per_item=3,
        **extra,
    )


def distance(a: str, b: str) -> int:
    """Levenshtein distance in characters."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def careful_ranks(assignment: Assignment, reference: str) -> list[int]:
    """Closer to the golden reference ranks higher (equal distance, equal rank)."""
    distances = [distance(o.text, reference) for o in assignment.item.outputs.all()]
    ordered = sorted(set(distances))
    return [ordered.index(d) + 1 for d in distances]


def careless_ranks(assignment: Assignment, rng: random.Random) -> list[int]:
    count = assignment.item.outputs.count()
    return [rng.randint(1, count) for _ in range(count)]


def careful_esa(assignment: Assignment, reference: str) -> list[dict[str, Any]]:
    """Every changed-here span kept as an error on an output that is not the reference (and
    dismissed on the reference); the score falls with the distance to the reference."""
    answer = []
    for output in esa.esa_view(assignment)["outputs"]:
        exact = output["text"] == reference
        spans = [{"start": s["start"], "end": s["end"]} for s in output["prefilled"]]
        answer.append(
            {
                "output": output["position"],
                "score": max(50, 100 - 10 * distance(output["text"], reference)),
                "spans": []
                if exact
                else [{**s, "severity": "minor", "origin": "prefilled"} for s in spans],
                "dismissed": spans if exact else [],
            }
        )
    return answer


def careless_esa(assignment: Assignment, rng: random.Random) -> list[dict[str, Any]]:
    """Random scores; every changed-here span dismissed."""
    return [
        {
            "output": output["position"],
            "score": rng.randint(50, 100),
            "spans": [],
            "dismissed": [{"start": s["start"], "end": s["end"]} for s in output["prefilled"]],
        }
        for output in esa.esa_view(assignment)["outputs"]
    ]


REFERENCES_BY_ID = {str(i): reference for i, reference in enumerate(ZH_REFERENCES, start=1)}


def judge_one(campaign: Campaign, judge: User, *, careful: bool, rng: random.Random) -> str | None:
    """Answer the judge's next item: "check", "ordinary", or None when they are done."""
    assignment = services.next_assignment(campaign=campaign, judge=judge)
    if assignment is None:
        return None
    reference = REFERENCES_BY_ID[assignment.item.src_id]
    if campaign.mode == "esa":
        answer = careful_esa(assignment, reference) if careful else careless_esa(assignment, rng)
        services.submit_judgment(assignment_id=assignment.pk, judge=judge, esa=answer)
    else:
        ranks = careful_ranks(assignment, reference) if careful else careless_ranks(assignment, rng)
        services.submit_judgment(
            assignment_id=assignment.pk,
            judge=judge,
            ranks=ranks,
            edit_verdicts=_every_edit_correct(campaign, assignment),
        )
    return "checks" if assignment.item.check_kind else "ordinary"


def judge_all(campaign: Campaign, judge: User, *, careful: bool, seed: int = 0) -> dict[str, int]:
    """Judge every item the judge is given; counts of ordinary items and checks answered."""
    rng = random.Random(seed)
    done = {"ordinary": 0, "checks": 0}
    while (kind := judge_one(campaign, judge, careful=careful, rng=rng)) is not None:
        done[kind] += 1
    return done


def _every_edit_correct(campaign: Campaign, assignment: Assignment) -> list[dict[str, Any]]:
    """Edits mode: a verdict on every edit (the check reads the ranks)."""
    if campaign.mode != "edits":
        return []
    view = selectors.judge_view_of_item(assignment.item, language=campaign.language)
    return [
        {"output": o["position"], "edit": e["index"], "correct": True}
        for o in view["outputs"]
        for e in o["edits"]
    ]
