"""Suggested corrections for a post-edit annotation project (docs/workflow.md, "Post-edit
annotation"):

    python manage.py suggest_corrections DATASET (--from-system NAME | --from-llm)
                                         [--blind-share F] [--seed S] [--json]

`--from-system NAME` takes the output NAME uploaded for the newest release of DATASET that
has one; `--from-llm` asks the configured LLM (GEC_LLM_URL / GEC_LLM_MODEL) in this process.
The source becomes the project's suggestion source. `--blind-share F` (0 <= F < 1) then
makes exactly round(F x n) of each annotator's n unopened assignments blind, drawn with
`--seed`. `--json` prints {"dataset", "source", "suggested", "blind", "signature"}.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset
from scoring.services.suggestions import suggest_from_llm_now, suggest_from_system


class Command(BaseCommand):
    help = "Store suggested corrections (a system output or the LLM's) for post-edit annotation."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", help="dataset name")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--from-system", metavar="NAME", help="a system output's name")
        source.add_argument("--from-llm", action="store_true", help="the configured LLM")
        parser.add_argument(
            "--blind-share",
            type=float,
            default=None,
            metavar="F",
            help="share (0 <= F < 1) of each annotator's unopened assignments made blind",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the blind draw")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            dataset = get_dataset(options["dataset"], field="dataset")
            if options["from_system"]:
                run = suggest_from_system(
                    dataset=dataset,
                    name=options["from_system"],
                    blind_share=options["blind_share"],
                    seed=options["seed"],
                )
            else:
                run = suggest_from_llm_now(
                    dataset=dataset, blind_share=options["blind_share"], seed=options["seed"]
                )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        if options["json"]:
            self.stdout.write(json.dumps(run.as_json(), ensure_ascii=False))
            return
        self.stdout.write(
            f"{run.dataset}: {run.suggested} sentences with a suggestion from {run.source} "
            f"({run.unsuggested} without), {run.blind} blind assignments\n{run.signature}"
        )
