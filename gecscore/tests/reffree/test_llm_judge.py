"""The LLM judges (LLM-S, LLM-E) against a real local HTTP server speaking the OpenAI
chat-completions route (tests/reffree/chat_server.py), and against gec-metrics 0.1.1 talking to
the same kind of server through its OpenAI client: the same prompts sent, the same pairwise
tables, the same TrueSkill scores. Retries, timeouts, 500s and malformed answers are exercised
with the faults the server injects.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gecscore import get_metric
from gecscore.errors import GECError
from gecscore.meta.aggregation import expected_wins_scores, trueskill_scores
from gecscore.reffree.llm_judge import (
    EDIT_TEMPLATE,
    SENT_TEMPLATE,
    pairwise_table,
    parse_scores,
    sample_targets,
)
from tests.reffree.chat_server import ChatServer, model_scores
from tests.reffree.conftest import SYSTEMS, reference_python, run_reference

# gec-metrics 0.1.1's TrueSkill mu per system (SYSTEMS order) through the chat server,
# recorded 2026-11-26; they hold without the reference virtualenv.
RECORDED_TRUESKILL: dict[str, list[float] | None] = {
    "llm-s": [
        -0.05975409058760653,
        -0.07689381129186619,
        0.04976212357383688,
        -0.06344238320764763,
        -0.009435818567440515,
        -0.11607879003400257,
    ],
    "llm-e": [
        -0.05564090058986695,
        -0.06905953200121598,
        -0.09184725752016429,
        -0.02026172223794828,
        -0.0173325247633058,
        -0.0760171209153138,
    ],
}


def _systems(seeda: dict[str, list[str]]) -> tuple[list[str], list[list[str]]]:
    return seeda["INPUT"], [seeda[name] for name in SYSTEMS]


def _judge(name: str, url: str, **options: object):  # type: ignore[no-untyped-def]
    Judge = get_metric(name)
    return Judge(Judge.Config(model="tiny-judge", url=url, retry_wait=0.0, **options))


@pytest.mark.parametrize(("name", "criteria"), [("llm-s", None), ("llm-e", "impact")])
def test_judge_equals_gec_metrics_through_a_chat_server(
    name: str, criteria: str | None, seeda: dict[str, list[str]], tmp_path: Path
) -> None:
    sources, systems = _systems(seeda)
    options = {"criteria": criteria} if criteria else {}
    with ChatServer() as server:
        judge = _judge(name, server.url, **options)
        ours = judge.score_systems(sources, systems)
        ranking = judge.rank_systems(sources, systems, "trueskill")
        our_requests = list(server.requests)
    assert len(our_requests) == len(set(s.prompt for s in ours.sentences))  # each prompt once
    assert ours.details["unjudged"] == 0
    # Sentences with more than five distinct hypotheses leave some pairs unjudged.
    assert any(None in row for table in ours.pairwise for row in table)
    assert "prompt=kobayashi24-gec-metrics-0.1.1|backend=http|model=tiny-judge" in judge.signature
    recorded = RECORDED_TRUESKILL[name]
    if reference_python() is None:
        if recorded is None:
            pytest.skip("gec-metrics 0.1.1 absent and no recorded numbers")
        assert ranking == pytest.approx(recorded, abs=1e-9)
        return
    with ChatServer() as server:
        config = {
            "model": "tiny-judge",
            "api_key": "unused",
            "base_url": server.url,
            "cache": str(tmp_path / "gec-metrics.cache"),
            **options,
        }
        theirs = run_reference(
            {"metric": name, "config": config, "sources": sources, "systems": systems}
        )
        their_requests = list(server.requests)
    print(name, "ours", ranking, "gec-metrics", theirs["trueskill"])

    # The same request bodies (ours arrive concurrently: compared in prompt order).
    def bodies(requests: list[dict]) -> list[str]:  # type: ignore[type-arg]
        keys = ("messages", "seed", "response_format", "model")
        return sorted(json.dumps({k: r[k] for k in keys}, sort_keys=True) for r in requests)

    assert bodies(our_requests) == bodies(their_requests)
    assert [list(table) for table in ours.pairwise] == theirs["pairwise"]
    assert ranking == pytest.approx(theirs["trueskill"], abs=1e-9)
    if recorded is not None:
        assert ranking == pytest.approx(recorded, abs=1e-9)


def test_retries_timeouts_500s_and_malformed_answers(seeda: dict[str, list[str]]) -> None:
    sources, systems = _systems(seeda)
    sources, systems = sources[:8], [hyps[:8] for hyps in systems]
    with ChatServer() as server:
        clean = _judge("llm-s", server.url, concurrency=1).score_systems(sources, systems)
    faults = {
        0: ["500", "500"],  # two server errors, then an answer
        1: ["slow"],  # past the timeout once
        2: ["prose"],  # no JSON: asked again
        3: ["fenced"],  # read from the code fence at once
        4: ["missing", "missing", "missing"],  # never readable with retries=2: unjudged
    }
    with ChatServer(faults, slow_seconds=1.5) as server:
        judge = _judge("llm-s", server.url, concurrency=1, retries=2, timeout=0.5)
        result = judge.score_systems(sources, systems)
        attempts = [server.attempts[p] for p in server.order]
    assert attempts[:5] == [3, 2, 2, 1, 3]
    assert [s.attempts for s in result.sentences[:5]] == [1, 1, 2, 1, 3]
    assert result.details["unjudged"] == 1
    assert result.sentences[4].scores is None
    assert all(v is None for row in result.pairwise[4] for i, v in enumerate(row) if v != 0)
    for i in (0, 1, 2, 3, 5, 6, 7):
        assert result.sentences[i].scores == clean.sentences[i].scores
        assert result.pairwise[i] == clean.pairwise[i]


def test_an_endpoint_that_never_answers_is_an_error_naming_the_url() -> None:
    with ChatServer({0: ["500"] * 10}) as server:
        judge = _judge("llm-s", server.url, retries=2)
        started = time.monotonic()
        with pytest.raises(GECError, match=r"/v1/chat/completions failed 3 times \(last: HTTP 500"):
            judge.score_corpus(["A sentence ."], ["A sentence ."])
    assert time.monotonic() - started < 10


def test_missing_settings_name_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEC_LLM_URL", raising=False)
    monkeypatch.delenv("GEC_LLM_MODEL", raising=False)
    Judge = get_metric("llm-s")
    with pytest.raises(GECError, match=r"url \(--url\) or \$GEC_LLM_URL"):
        Judge(Judge.Config(model="m"))
    with pytest.raises(GECError, match=r"model \(--model\) or \$GEC_LLM_MODEL"):
        Judge(Judge.Config(url="http://127.0.0.1:9/v1"))
    with pytest.raises(GECError, match=r"llm-s model \(--model\) or \$GEC_LLM_MODEL"):
        Judge(Judge.Config(backend="hf"))
    with pytest.raises(GECError, match="criteria must be one of grammaticality"):
        Judge(Judge.Config(model="m", url="http://x/v1", criteria="impact"))


def test_one_system_is_judged_sentence_by_sentence() -> None:
    with ChatServer() as server:
        result = _judge("llm-s", server.url).score_corpus(
            ["A sentence .", "Two words ."], ["A sentence .", "Two word ."]
        )
    expected = [model_scores(["A sentence ."])[0], model_scores(["Two word ."])[0]]
    assert [s.score for s in result.sentences] == expected
    assert result.score == sum(expected) / 2


def test_parsing_of_recorded_answers() -> None:
    # What gec-metrics reads (json.loads(content)["target_score{i}"]) and what we read beyond.
    assert parse_scores('{"target_score1": 4, "target_score2": 2}', 2) == (4, 2)
    assert parse_scores('{"target_score1": 4.5}', 1) == (4.5,)
    assert parse_scores('```json\n{\n"target1_score": 3, "target2_score": "5"\n}\n```', 2) == (3, 5)
    assert parse_scores('Sure! {"target_score1": 1} is my answer', 1) == (1,)
    assert parse_scores('{"target_score1": 4}', 2) is None
    assert parse_scores('{"target_score1": true}', 1) is None
    assert parse_scores("Target 1: 5", 1) is None


def test_sampling_tables_and_aggregations() -> None:
    hyps = ["b", "a", "b", "c", "d", "e", "f", "a"]
    targets = sample_targets(hyps, 5)
    assert targets == ["a", "b", "c", "d", "e"]  # the two frequent ones, then first seen
    table = pairwise_table(hyps, targets, [3, 1, 2, 2, 5])
    assert table[0][2] == 0 and table[1][7] == 0  # same hypothesis: tie
    assert table[0][1] == -1 and table[1][0] == 1  # "b" (1) loses to "a" (3)
    assert table[3][4] == 0 and table[6][0] is None  # "f" (system 6) was not shown
    assert trueskill_scores([table])[1] > trueskill_scores([table])[0]
    ew = expected_wins_scores([table])
    # "e" (system 5) beats the six systems of "a", "b", "c", "d"; "f" was never compared.
    assert ew[6] == 0.0 and ew[5] == pytest.approx(6 / 7)


def test_templates_are_gec_metrics_prompts() -> None:
    # Hashes of gec-metrics 0.1.1's two templates (LLMKobayashi24 / LLMKobayashi24OpenAIEdit).
    import hashlib

    assert "[SOURCE]" in SENT_TEMPLATE and "[CORRECTION]" in EDIT_TEMPLATE
    assert hashlib.sha256(SENT_TEMPLATE.encode()).hexdigest()[:16] == SENT_SHA
    assert hashlib.sha256(EDIT_TEMPLATE.encode()).hexdigest()[:16] == EDIT_SHA


SENT_SHA = "9070fda51d363782"
EDIT_SHA = "b61c461120356ed0"


def test_local_hf_causal_lm_backend(
    tiny_chat_lm: Path, tiny_gpt2: Path, seeda: dict[str, list[str]]
) -> None:
    Judge = get_metric("llm-e")
    short = Judge(Judge.Config(backend="hf", model=str(tiny_gpt2), device="cpu"))
    with pytest.raises(GECError, match="exceeds the model's 256 positions"):
        short.score_corpus(seeda["INPUT"][:1], seeda["REF-F"][:1])
    judge = Judge(
        Judge.Config(backend="hf", model=str(tiny_chat_lm), device="cpu", max_new_tokens=8)
    )
    sources, systems = _systems(seeda)
    result = judge.score_systems(sources[:2], [hyps[:2] for hyps in systems])
    # A random model writes no JSON: every sentence is asked retries + 1 times, then unjudged.
    assert result.details["unjudged"] == 2
    assert all(s.attempts == 4 for s in result.sentences)
    assert f"model={tiny_chat_lm.name}@" in judge.signature and "decode=greedy8" in judge.signature
    assert json.dumps(result.pairwise[0]).count("null") > 0
