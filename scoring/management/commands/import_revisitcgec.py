"""python manage.py import_revisitcgec DIR [--dataset NAME] [--campaign NAME]
[--yaclc-refs minimal|fluency] [--mucgec-dev FILE] [--resources DIR] [--admin USERNAME]
[--closest-gold DIR]

RevisitCGEC's folder as a Chinese dataset release, a judgment campaign on it and the six
systems' scored outputs (docs/meta-evaluation-page.md), ready for the meta-evaluation page.
``--closest-gold DIR`` (one parallel file ``<SYSTEM>.txt`` per system: id, source,
closest-gold) stores them as verified closest-golds, the admin as verifier, and scores every
system under closest-gold and pooled (docs/closest-gold.md).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from core.roles import Role, has_role
from scoring.services.revisitcgec import import_revisitcgec


class Command(BaseCommand):
    help = "Import RevisitCGEC (release, judgment campaign, six scored system outputs)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", metavar="DIR", help="the RevisitCGEC folder")
        parser.add_argument("--dataset", default="RevisitCGEC", help="dataset name (new)")
        parser.add_argument("--campaign", default="RevisitCGEC human rankings")
        parser.add_argument("--yaclc-refs", choices=["minimal", "fluency"], default="minimal")
        parser.add_argument("--mucgec-dev", help="MuCGEC_dev.txt (default: found beside DIR)")
        parser.add_argument(
            "--resources", help="ChERRANT resources directory (default: GEC_CHERRANT_RESOURCES)"
        )
        parser.add_argument(
            "--admin",
            metavar="USERNAME",
            help="the admin who owns the campaign (only its admins see it on the page)",
        )

        parser.add_argument(
            "--closest-gold",
            metavar="DIR",
            help="one parallel file <SYSTEM>.txt per system (id, source, closest-gold), "
            "stored as verified closest-golds (needs --admin: the verifier)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = None
        if options["admin"]:
            user = get_user_model().objects.filter(username=options["admin"]).first()
            if user is None or not has_role(user, Role.ADMIN):
                raise CommandError(f"--admin {options['admin']!r}: no admin of that name")
        if options["closest_gold"] and user is None:
            raise CommandError("--closest-gold needs --admin USERNAME: the verifier recorded")
        try:
            result = import_revisitcgec(
                folder=options["folder"],
                dataset_name=options["dataset"],
                campaign_name=options["campaign"],
                yaclc_refs=options["yaclc_refs"],
                mucgec_dev=options["mucgec_dev"],
                resources_dir=options["resources"],
                user=user,
                closest_gold_dir=options["closest_gold"],
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            f"release {result.release.label} (id {result.release.pk}); campaign "
            f"{result.campaign.name!r} (id {result.campaign.pk}, "
            f"{result.campaign.assignments.count()} ranking items)"
        )
        for name, score in result.scores.items():
            sets = result.set_scores.get(name)
            extra = (
                f"\tclosest-gold {sets['closest-gold']}\tpooled {sets['pooled']}" if sets else ""
            )
            self.stdout.write(f"{name}\t{score.status}\tF0.5 {score.f05}{extra}")
        self.stdout.write(
            f"meta-evaluation page: /scoring/releases/{result.release.pk}/meta/"
            f"?campaign={result.campaign.pk}"
        )
