"""Run the PT-M2 reference (pygongnlp/PT-M2, ``evaluate.py``'s ``--base m2|sentm2`` path) on
files, for the equality test and the benchmark. Run it as a script with the reference
checkout as working directory (its modules import each other by bare name):

    cd ../refs/ptm2 && python .../ptm2_reference.py --source SRC --reference REFDIR \\
        --hypothesis HYP --base m2 --scorer bertscore --model PATH --layers 6 [--baseline TSV]

It calls the reference's own ``PTM2.compute_m2`` / ``compute_sentm2`` (lattice, weights,
annotator choice: all the reference's code) with the reference's vendored bert_score. Only
the scorer object is built here, because ``PTM2.get_plm_scorer`` takes a hub model name and no
layer or baseline file (a local model folder needs both). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def _empty_sentences_under_transformers_5() -> None:
    """The one change to the reference: its vendored bert_score encodes an empty sentence
    (the source minus its only token) with `tokenizer.build_inputs_with_special_tokens([])`,
    which transformers 5 tokenizers no longer have. The ids it returned under transformers 4
    for BERT were [CLS] [SEP]; give exactly those, and leave every other sentence alone."""
    import bert_score.utils as utils

    original = utils.sent_encode

    def sent_encode(tokenizer, sent):  # type: ignore[no-untyped-def]
        if sent.strip() == "" and not hasattr(tokenizer, "build_inputs_with_special_tokens"):
            return [tokenizer.cls_token_id, tokenizer.sep_token_id]
        return original(tokenizer, sent)

    utils.sent_encode = sent_encode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument(
        "--reference", required=True, help="folder with ref0, ref1, ... and REFERENCE.m2 beside it"
    )
    parser.add_argument("--hypothesis", required=True)
    parser.add_argument("--base", choices=("m2", "sentm2"), default="m2")
    parser.add_argument("--scorer", choices=("self", "bertscore"), default="bertscore")
    parser.add_argument("--model")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--baseline", help="bert-score baseline .tsv (rescale as PT-M2 does)")
    parser.add_argument("--beta", type=float, default=0.5)
    args = parser.parse_args()

    sys.path.insert(0, os.getcwd())  # the reference checkout: its metrics, utils, bert_score
    import torch
    from bert_score import BERTScorer
    from metrics import PTM2
    from utils import load_dir, load_file

    _empty_sentences_under_transformers_5()
    options = argparse.Namespace(
        beta=args.beta, device=torch.device("cpu"), model_type=args.model, scorer="self"
    )
    metric = PTM2(options, corpus=None)
    if args.scorer == "bertscore":
        metric.args.scorer = "bertscore"
        metric.scorer = BERTScorer(
            model_type=args.model,
            num_layers=args.layers,
            lang="en",
            device="cpu",
            rescale_with_baseline=args.baseline is not None,
            baseline_path=args.baseline,
        )
    sources = load_file(args.source)
    references = load_dir(args.reference)
    compute = metric.compute_m2 if args.base == "m2" else metric.compute_sentm2
    started = time.perf_counter()
    score = compute(
        m2_file=f"{args.reference}.m2",
        hyp_file=args.hypothesis,
        sources=sources,
        references=references,
    )
    seconds = time.perf_counter() - started
    print(json.dumps({"score": float(score), "seconds": seconds}))


if __name__ == "__main__":
    main()
