"""python manage.py export_closest_golds --dataset NAME [--release N] --out DIR

A release's closest-gold references in their own files (docs/closest-gold.md): the JSONL
records (kind ``closest-gold``, system, verification status) and, per task system, the
parallel files ``gecscore score`` reads to reproduce the platform's closest-gold scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset
from scoring import selectors
from scoring.services.closest_gold_files import export_closest_golds


class Command(BaseCommand):
    help = "Write a release's closest-gold references (JSONL + gecscore parallel files)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, help="dataset name")
        parser.add_argument("--release", default=None, help="release number (default: newest)")
        parser.add_argument("--out", required=True, metavar="DIR", help="folder to write into")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            dataset = get_dataset(options["dataset"], field="dataset")
            version = selectors.get_release(dataset, options["release"])
            written = export_closest_golds(version=version, folder=Path(options["out"]), user=None)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        for path in written:
            self.stdout.write(str(path))
