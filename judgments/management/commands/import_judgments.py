"""python manage.py import_judgments FILE.xml --campaign NAME [--release DATASET@vN]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.models import DatasetVersion
from datasets.selectors import get_dataset, get_version
from judgments import services


def parse_release(label: str) -> DatasetVersion:
    """`DATASET@vN` -> the release, or a CommandError saying what is missing."""
    name, sep, number = label.partition("@")
    if not sep or not number:
        raise CommandError(f"--release must look like DATASET@vN (got {label!r})")
    try:
        version = get_version(get_dataset(name), number)
    except ServiceError as error:
        raise CommandError(error.message) from None
    if version is None:
        raise CommandError(f"no release {label!r}")
    return version


class Command(BaseCommand):
    help = "Import an Appraise ranking XML file into a judgment campaign (created if new)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="Appraise ranking XML (.xml or .xml.gz)")
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--release", help="DATASET@vN the sentences' ids refer to")

    def handle(self, *args: Any, **options: Any) -> None:
        release = parse_release(options["release"]) if options["release"] else None
        try:
            campaign = services.import_judgments(
                campaign_name=options["campaign"], source=options["file"], release=release
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        items = campaign.assignments.count()
        systems = campaign.systems.count()
        self.stdout.write(f"campaign {campaign.name!r}: {items} ranking items, {systems} systems")
