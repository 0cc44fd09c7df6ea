"""Subcommands ``some``, ``impara``, ``scribendi`` and ``llm-judge``: the model-based
reference-free metrics (``pip install 'gecscore[reffree]'``; models from local folders only).

    gecscore some --src SRC.txt --hyp SYSTEM.txt [--hyp ...] --model-g DIR --model-f DIR --model-m DIR
    gecscore impara --src SRC.txt --hyp SYSTEM.txt --model-qe DIR --model-se DIR [--threshold 0.9]
    gecscore scribendi --src SRC.txt --hyp SYSTEM.txt --model DIR [--threshold 0.8]
    gecscore llm-judge --level sent|edit --src SRC.txt --hyp A.txt [--hyp B.txt ...]
        (--url URL --model NAME | --backend hf --model DIR) [--aggregate trueskill|expected-wins]

Model flags may be left out when the environment variable of the setting is set
(docs/metrics/reference-free.md). Text output: ``<file name> <score>`` per system (6
decimals), ``--sentence`` adds ``<index> <score>`` lines; ``--json``: one line per system, the
metric's Result data (``Result.to_dict()``) and ``system``.
``llm-judge`` with several ``--hyp`` judges them together and prints each system's
TrueSkill (or Expected Wins) score, as in Kobayashi et al. (2024); with one it prints the mean
1-5 score of its sentences, each judged alone.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from gecscore.cli import CommandError
from gecscore.commands import arguments
from gecscore.english.textfiles import check_same_length, read_text_lines
from gecscore.errors import GECError
from gecscore.meta.aggregation_names import RANKING_SPELLINGS
from gecscore.metric import Result, SentenceScore
from gecscore.result_data import json_line

__all__ = [
    "register",
    "run_llm_judge",
    "run_model_metric",
]


def _common(parser: argparse.ArgumentParser) -> None:
    arguments.add_src(parser)
    arguments.add_hyp(parser, "SYSTEM.txt", "system output, one sentence a line")
    parser.add_argument("--sentence", action="store_true", help="also sentence-level scores")
    arguments.add_json(parser)


def _device(parser: argparse.ArgumentParser) -> None:
    arguments.add_device(parser)
    parser.add_argument("--batch-size", type=arguments.positive_int, default=32, metavar="N")


def _threshold(parser: argparse.ArgumentParser, default: float) -> None:
    parser.add_argument(
        "--threshold",
        type=arguments.probability,
        default=default,
        metavar="T",
        help=f"a number from 0 to 1 (default {default:g})",
    )


def register(subparsers: Any) -> None:
    some = subparsers.add_parser("some", help="SOME (three BERT regressors), reference-free")
    _common(some)
    for aspect, label in (("g", "grammaticality"), ("f", "fluency"), ("m", "meaning")):
        some.add_argument(f"--model-{aspect}", metavar="DIR", help=f"{label} regressor folder")
    some.add_argument("--max-length", type=arguments.positive_int, default=128, metavar="N")
    _device(some)
    some.set_defaults(func=run_model_metric, metric="some")

    impara = subparsers.add_parser("impara", help="IMPARA (quality + similarity), reference-free")
    _common(impara)
    impara.add_argument("--model-qe", metavar="DIR", help="quality estimator folder")
    impara.add_argument("--model-se", metavar="DIR", help="similarity encoder folder")
    _threshold(impara, 0.9)
    impara.add_argument("--max-length", type=arguments.positive_int, default=128, metavar="N")
    _device(impara)
    impara.set_defaults(func=run_model_metric, metric="impara")

    scribendi = subparsers.add_parser("scribendi", help="Scribendi score (LM perplexity + ratios)")
    _common(scribendi)
    scribendi.add_argument("--model", metavar="DIR", help="causal language model folder")
    _threshold(scribendi, 0.8)
    _device(scribendi)
    scribendi.set_defaults(func=run_model_metric, metric="scribendi")

    judge = subparsers.add_parser("llm-judge", help="LLM-S / LLM-E judges (Kobayashi et al. 2024)")
    _common(judge)
    judge.add_argument("--level", choices=("sent", "edit"), default="sent")
    judge.add_argument("--backend", choices=("http", "hf"), default="http")
    judge.add_argument("--model", help="model name (http) or local folder (hf)")
    judge.add_argument("--url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    judge.add_argument(
        "--timeout", type=arguments.positive_float, default=60.0, help="seconds per request"
    )
    judge.add_argument("--concurrency", type=arguments.positive_int, default=4, metavar="N")
    judge.add_argument("--retries", type=arguments.non_negative_int, default=3, metavar="N")
    judge.add_argument("--criteria", help="gec-metrics' criteria (LLM-E: difficulty, impact)")
    judge.add_argument("--aggregate", choices=RANKING_SPELLINGS, default="trueskill")
    arguments.add_device(judge, help="where the hf backend's model runs (default auto)")
    judge.set_defaults(func=run_llm_judge)


def _inputs(args: argparse.Namespace) -> tuple[list[str], list[tuple[str, list[str]]]]:
    source = read_text_lines(args.src)
    systems = []
    for path in args.hyp:
        hyp = read_text_lines(path)
        check_same_length(source, hyp)
        for note in hyp.notes():
            print(f"warning: {note}", file=sys.stderr)
        systems.append((path, hyp.lines))
    return source.lines, systems


def _config(args: argparse.Namespace) -> dict[str, Any]:
    if args.metric == "some":
        return {
            "model_g": args.model_g,
            "model_f": args.model_f,
            "model_m": args.model_m,
            "max_length": args.max_length,
        }
    if args.metric == "impara":
        return {
            "model_qe": args.model_qe,
            "model_se": args.model_se,
            "threshold": args.threshold,
            "max_length": args.max_length,
        }
    return {"model": args.model, "threshold": args.threshold}


def _print(args: argparse.Namespace, path: str, result: Result, *, dash: bool = False) -> None:
    """One system's result; ``dash``: an unjudged sentence (NaN) prints ``-`` (a joint
    judgment), else as the number it is."""
    if args.json:
        print(json_line(result.to_dict(), path), flush=True)
        return
    if args.sentence:
        print(f"== {path}")
        for index, sentence in enumerate(result.sentences):
            value = sentence.score
            print(f"{index} -" if dash and math.isnan(value) else f"{index} {value:f}")
    print(f"{os.path.basename(path)} {result.score:f}", flush=True)


def run_model_metric(args: argparse.Namespace) -> int:
    from gecscore.registry import get_metric

    sources, systems = _inputs(args)
    metric_class: Any = get_metric(args.metric)
    try:
        metric = metric_class(
            metric_class.Config(**_config(args), device=args.device, batch_size=args.batch_size)
        )
        for path, hypotheses in systems:
            _print(args, path, metric.score_corpus(sources, hypotheses))
    except GECError as exc:
        raise CommandError(str(exc)) from None
    return 0


def run_llm_judge(args: argparse.Namespace) -> int:
    from gecscore.registry import get_metric

    sources, systems = _inputs(args)
    judge_class: Any = get_metric("llm-s" if args.level == "sent" else "llm-e")
    try:
        judge = judge_class(
            judge_class.Config(
                backend=args.backend,
                model=args.model,
                url=args.url,
                timeout=args.timeout,
                concurrency=args.concurrency,
                retries=args.retries,
                criteria=args.criteria,
                device=args.device,
            )
        )
        if len(systems) == 1:
            path, hypotheses = systems[0]
            _print(args, path, judge.score_corpus(sources, hypotheses))
            return 0
        judged = judge.score_systems(sources, [hyps for _, hyps in systems])
        from gecscore.meta.aggregation import expected_wins_scores, trueskill_scores

        aggregate = trueskill_scores if args.aggregate == "trueskill" else expected_wins_scores
        ranking = aggregate(judged.pairwise)
        signature = f"{judged.signature}|aggregate={args.aggregate}"
        for (path, _), score, sentences in zip(systems, ranking, judged.scores, strict=True):
            # One system's share of a joint judgment: its aggregate score, its sentences'
            # 1-5 scores (NaN where unjudged, None in JSON).
            ranked = Result(
                metric=judge.name,
                score=score,
                signature=signature,
                sentences=tuple(
                    SentenceScore(math.nan if s is None else float(s)) for s in sentences
                ),
                details={"aggregate": args.aggregate, "unjudged": judged.details["unjudged"]},
            )
            _print(args, path, ranked, dash=True)
        if judged.details["unjudged"]:
            print(f"warning: {judged.details['unjudged']} sentences unjudged", file=sys.stderr)
    except GECError as exc:
        raise CommandError(str(exc)) from None
    return 0
