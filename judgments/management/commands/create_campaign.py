"""python manage.py create_campaign RELEASE --systems A,B,... [--judges u1,u2]
[--mode ranking|edits|esa] [--attention-share F] [--attention loud|silent] [--dynamic]
[--name NAME] [--judges-per-item K] [--seed S] [--json]

A judgment campaign on RELEASE (dataset@vN) over some of its stored system outputs, thin over
judgments.services.create_campaign. Without --judges every active user judges."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from core.models import User
from datasets.selectors import get_dataset, get_version
from judgments import selectors, services
from judgments.models import AttentionFeedback, CampaignMode


def _names(raw: str) -> list[str]:
    return [name.strip() for name in raw.split(",") if name.strip()]


class Command(BaseCommand):
    help = "Create a judgment campaign on a release (attention checks, dynamic assignment)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("release", help="the release, dataset@vN")
        parser.add_argument("--systems", required=True, help="stored system outputs, A,B,...")
        parser.add_argument("--judges", default="", help="user names u1,u2 (default: everyone)")
        parser.add_argument("--mode", choices=CampaignMode.values, default=CampaignMode.RANKING)
        parser.add_argument(
            "--attention-share",
            type=float,
            default=0.0,
            help="share of each judge's items that are attention checks (0-0.5)",
        )
        parser.add_argument(
            "--attention", choices=AttentionFeedback.values, default=AttentionFeedback.SILENT
        )
        parser.add_argument("--dynamic", action="store_true", help="dynamic assignment")
        parser.add_argument("--name", default="", help="default: RELEASE MODE")
        parser.add_argument("--judges-per-item", type=int, default=2)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print the campaign as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            label = options["release"]
            dataset_name, _, number = label.partition("@")
            release = get_version(get_dataset(dataset_name), number) if number else None
            if release is None:
                raise CommandError(f"no release {label!r} (write dataset@vN)")
            stored = selectors.release_system_outputs(release)
            wanted = _names(options["systems"])
            missing = [name for name in wanted if name not in stored]
            if missing:
                raise CommandError(
                    f"no stored outputs of {', '.join(missing)} on {label}"
                    f" (stored: {', '.join(stored) or 'none'})"
                )
            judges = self._judges(_names(options["judges"]))
            campaign = services.create_campaign(
                name=options["name"] or f"{label} {options['mode']}",
                release=release,
                system_outputs={name: stored[name] for name in wanted},
                mode=options["mode"],
                judges=judges,
                judges_per_item=options["judges_per_item"],
                seed=options["seed"],
                attention_share=options["attention_share"],
                attention_feedback=options["attention"],
                dynamic=options["dynamic"],
            )
        except ServiceError as error:
            raise CommandError(f"{error.field or 'campaign'}: {error.message}") from None
        summary = {
            "id": campaign.pk,
            "name": campaign.name,
            "mode": campaign.mode,
            "release": label,
            "systems": wanted,
            "judges": [judge.username for judge in judges],
            "items": campaign.items.filter(check_kind="").count(),
            "attention_checks": campaign.items.exclude(check_kind="").count(),
            "attention_feedback": campaign.attention_feedback,
            "dynamic": campaign.dynamic,
        }
        if options["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2))
            return
        self.stdout.write(
            f"campaign {campaign.name} ({campaign.pk}): {summary['items']} items,"
            f" {summary['attention_checks']} attention checks, {len(judges)} judges"
            + (", dynamic assignment" if campaign.dynamic else "")
        )

    @staticmethod
    def _judges(names: list[str]) -> list[User]:
        users = User.objects.filter(is_active=True).order_by("username")
        if not names:
            return list(users)
        found = list(users.filter(username__in=names))
        missing = sorted(set(names) - {user.username for user in found})
        if missing:
            raise CommandError(f"no active user {', '.join(missing)}")
        return found
