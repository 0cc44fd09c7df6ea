"""python manage.py dataset_stats NAME [--release VERSION] [--json]

MuCGEC Table 3 numbers per source and overall (see datasets/statistics.py for definitions),
and the sections the apps above add through `datasets.signals.collect_statistics` (scoring:
``prefill``, the post-edit anchoring report; docs/workflow.md).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset, get_version
from datasets.statistics import dataset_statistics, higher_app_statistics

TABLE_KEYS = [
    ("sentences", "sentences"),
    ("references", "references"),
    ("erroneous_sentences", "erroneous"),
    ("erroneous_share", "err. share"),
    ("chars_per_sentence", "chars/sent"),
    ("edits_per_reference", "edits/ref"),
    ("refs_per_sentence", "refs/sent"),
]


class Command(BaseCommand):
    help = "Dataset statistics (MuCGEC Table 3 and Figure 1), per source and overall."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--release", default=None)
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument("--resources", default=None)
        parser.add_argument("--workers", type=int, default=None)
        parser.add_argument(
            "--chunks",
            action="store_true",
            help="add CLEME chunk statistics (chunks, lengths, ICC/IUC/CC)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            dataset = get_dataset(options["name"])
            version = get_version(dataset, options["release"])
            stats = dataset_statistics(
                dataset=dataset,
                version=version,
                resources_dir=options["resources"],
                workers=options["workers"],
                chunks=options["chunks"],
            )
            stats.update(higher_app_statistics(dataset=dataset, version=version))
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        if options["json"]:
            self.stdout.write(json.dumps(stats, ensure_ascii=False, indent=2))
            return
        label = stats["release"] or f"{stats['dataset']} (live)"
        self.stdout.write(f"{label}  resources: {stats['resources']}")
        header = "source".ljust(16) + "".join(title.rjust(12) for _, title in TABLE_KEYS)
        self.stdout.write(header)
        for name, part in [*stats["by_source"].items(), ("overall", stats)]:
            self.stdout.write(
                name[:16].ljust(16) + "".join(str(part[key]).rjust(12) for key, _ in TABLE_KEYS)
            )
        self.stdout.write(f"refs per sentence: {stats['refs_per_sentence_histogram']}")
        self.stdout.write(f"edit types: {stats['edit_types']}")
        if "cleme_chunks" in stats:
            self.stdout.write(f"CLEME chunks: {stats['cleme_chunks']}")
        prefill = stats.get("prefill")
        if prefill and prefill.get("overall"):
            arms = prefill["overall"]
            self.stdout.write(
                "post-edit items: "
                + ", ".join(f"{arm} {figures['items']}" for arm, figures in arms.items())
                + f"; flagged annotators: {', '.join(prefill['flagged']) or 'none'}"
                + " (--json for the anchoring report)"
            )
