"""python manage.py release_dataset NAME [--note TEXT] [--split S] [--source NAME ...]

Prints the new version id (the DatasetVersion primary key) on stdout; the label goes to stderr.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset
from datasets.services.releases import release_dataset


class Command(BaseCommand):
    help = "Freeze the current golden references of a dataset as a new release."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--note", default="")
        parser.add_argument("--split", default="", choices=["", "dev", "test", "train"])
        parser.add_argument(
            "--source",
            action="append",
            default=[],
            dest="sources",
            help="only this source (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = release_dataset(
                dataset=get_dataset(options["name"]),
                note=options["note"],
                split=options["split"],
                source_names=options["sources"],
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stderr.write(
            f"released {version.label}: {version.counts['sentences']} sentences, "
            f"{version.counts['references']} references, sha256 {version.checksum}"
        )
        self.stdout.write(str(version.pk))
