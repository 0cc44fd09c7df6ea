"""Score a system output file on a dataset release (for scripts and model developers' CI).

    python manage.py score_system --dataset NAME [--release VERSION] --hyp FILE --name SYSTEM
                                  [--resources DIR] [--refs golden|closest-gold|pooled]
                                  [--partial] [--json]

The output is stored (replacing an earlier output of the same name on that release) and
scored synchronously with the same service the Celery job uses. ``--refs closest-gold`` or
``pooled`` then scores it against those references (docs/closest-gold.md): refused while
its closest-golds are not all verified, unless ``--partial``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset
from scoring import selectors, services
from scoring.models import ReferenceSet, ReferenceSetScore, ScoreStatus
from scoring.reference_set_selectors import reference_set_payload
from scoring.services.reference_sets import REFERENCE_SET_NAMES, score_reference_set


class Command(BaseCommand):
    help = "Upload a system output for a dataset release and score it (char-level ChERRANT F0.5)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, help="dataset name")
        parser.add_argument("--release", default=None, help="release number (default: newest)")
        parser.add_argument(
            "--hyp",
            required=True,
            help="MuCGEC 'id<TAB>source<TAB>hypothesis' file, or one hypothesis a line",
        )
        parser.add_argument(
            "--name",
            required=True,
            help="system name (an existing output of this name is replaced)",
        )
        parser.add_argument("--format", default="auto", choices=["auto", "mucgec", "lines"])
        parser.add_argument(
            "--resources",
            default=None,
            help="ChERRANT resources directory (cilin.txt, confusion_dict.txt); default: the "
            "GEC_CHERRANT_RESOURCES setting/environment variable",
        )
        parser.add_argument(
            "--refs",
            default="golden",
            choices=list(REFERENCE_SET_NAMES),
            help="reference set: golden (the release's references, default), closest-gold (the "
            "system's own verified closest-golds) or pooled (golden + every task system's)",
        )
        parser.add_argument(
            "--partial",
            action="store_true",
            help="with --refs: score the verified sentences only when coverage is incomplete",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["hyp"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            # Bad resources are refused before anything is stored.
            services.scoring_resources(options["resources"])
            dataset = get_dataset(options["dataset"], field="dataset")
            version = selectors.get_release(dataset, options["release"])
            system = services.upload_system_output(
                version=version,
                name=options["name"],
                data=path.read_bytes(),
                file_name=str(path),
                user=None,
                file_format=options["format"],
                replace=True,
            )
            score = services.score_now(system=system, resources_dir=options["resources"])
            if score.status == ScoreStatus.DONE and options["refs"] != ReferenceSet.GOLDEN:
                set_score = score_reference_set(
                    system=system,
                    reference_set=options["refs"],
                    partial=options["partial"],
                    resources_dir=options["resources"],
                )
                self._print_set_score(set_score, as_json=options["json"])
                return
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        if score.status != ScoreStatus.DONE:
            raise CommandError(f"scoring failed: {score.error or score.status}")
        payload = selectors.score_payload(score)
        if options["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        self.stdout.write(f"{system.name} on {version.label}  ({score.signature})")
        self.stdout.write("TP\tFP\tFN\tPrec\tRec\tF0.5")
        self.stdout.write(f"{score.tp}\t{score.fp}\t{score.fn}\t{score.p}\t{score.r}\t{score.f05}")
        self.stdout.write(
            "first-k references: " + " / ".join(f"{v}" for v in payload["ref_count_curve"])
        )
        for name, row in payload["categories"].items():
            self.stdout.write(
                f"{name}\t{row['tp']}\t{row['fp']}\t{row['fn']}\t{row['p']}\t{row['r']}\t{row['f05']}"
            )

    def _print_set_score(self, score: ReferenceSetScore, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(reference_set_payload(score), ensure_ascii=False))
            return
        label = score.reference_set + (
            f" (PARTIAL: {score.verified} of {score.total} verified, "
            f"{score.sentences_scored} sentences scored)"
            if score.partial
            else ""
        )
        self.stdout.write(f"{score.system.name} against {label}  ({score.signature})")
        self.stdout.write("TP\tFP\tFN\tPrec\tRec\tF0.5")
        self.stdout.write(f"{score.tp}\t{score.fp}\t{score.fn}\t{score.p}\t{score.r}\t{score.f05}")
