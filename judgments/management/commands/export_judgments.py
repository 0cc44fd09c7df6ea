"""python manage.py export_judgments --campaign NAME -o FILE.xml [--format ...]"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.formats.files import write_atomically
from judgments import selectors, services


class Command(BaseCommand):
    help = "Export a judgment campaign as Appraise ranking XML (or WMT pairwise CSV)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("-o", "--output", required=True, help="file to write")
        parser.add_argument(
            "--format",
            choices=["xml", "csv", "csv-unexpanded", "edits-csv", "esa-scores"],
            default="xml",
            help="xml (Appraise, with edit verdicts and ESA spans), csv (WMT pairwise,"
            " expanded), csv-unexpanded, edits-csv (one row per judged edit), or esa-scores (an"
            " ESA campaign's mean scores, the human file of `gecscore meta system --human`)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign = selectors.get_campaign(options["campaign"])
            if options["format"] == "esa-scores":
                text = services.export_esa_scores(campaign=campaign)
            elif options["format"] == "edits-csv":
                text = services.export_edit_verdicts_csv(campaign=campaign)
            elif options["format"] in ("csv", "csv-unexpanded"):
                text = services.export_pairwise_csv(
                    campaign=campaign, expanded=options["format"] == "csv"
                )
            else:
                text = services.export_judgments(campaign=campaign)
        except ServiceError as error:
            raise CommandError(error.message) from None
        write_atomically(Path(options["output"]), [text])
        self.stdout.write(f"wrote {options['output']}")
