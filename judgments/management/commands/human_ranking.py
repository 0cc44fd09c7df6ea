"""python manage.py human_ranking --campaign NAME [--method ew|trueskill|both] [--bootstrap N]
[--seed S] --json. An edits-mode campaign also prints edit precision per system (with
intervals from the bootstrap), kappa on verdicts and the verdict-based ranking."""

from __future__ import annotations

import json
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from gecscore import HUMAN_RANKING_METHODS
from judgments import selectors


class Command(BaseCommand):
    help = "Human ranking of a judgment campaign: Expected Wins and/or TrueSkill, agreement."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--method", choices=HUMAN_RANKING_METHODS, default="both")
        parser.add_argument(
            "--bootstrap", type=int, default=0, help="EW bootstrap resamples (rank ranges)"
        )
        parser.add_argument("--seed", type=int, default=None, help="default: the campaign's")
        parser.add_argument("--runs", type=int, default=selectors.TRUESKILL_RUNS)
        parser.add_argument(
            "--workers",
            type=int,
            default=min(2, os.cpu_count() or 1),
            help="processes for TrueSkill (the numbers do not depend on it); default 2",
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaign = selectors.get_campaign(options["campaign"])
            report = selectors.campaign_results(
                campaign,
                method=options["method"],
                bootstrap=options["bootstrap"],
                seed=options["seed"],
                runs=options["runs"],
                workers=options["workers"],
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for rank, (name, row) in enumerate(report["systems"].items(), start=1):
            ew, ts = row["expected_wins"], row["trueskill"]
            self.stdout.write(
                f"{rank:>3} {name:<24} EW {'' if ew is None else f'{ew:.4f}':>8}"
                f"  TS {'' if ts is None else f'{ts:.4f}':>8}"
                f"  ranks {row['rank_range']}  cluster {row['cluster']}"
            )
        kappa = report["agreement"]
        self.stdout.write(
            f"{report['judgments']} pairwise judgments; inter kappa {kappa['inter_kappa']},"
            f" intra kappa {kappa['intra_kappa']}"
        )
        if report.get("edits"):
            self._write_edits(report["edits"])

    def _write_edits(self, edits: dict[str, Any]) -> None:
        """Edit precision (interval), and the verdict-based EW / TrueSkill, per system."""
        ranked = (edits.get("ranking") or {}).get("systems", {})
        self.stdout.write(f"edit verdicts: {edits['verdicts']} in {edits['items']} items")
        for row in edits["systems"]:
            p, interval = row["precision"], row["interval"]
            shown = "" if p is None else f"{p:.4f}"
            span = f" [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else ""
            by_edits = ranked.get(row["system"], {})
            ew, ts = by_edits.get("expected_wins"), by_edits.get("trueskill")
            self.stdout.write(
                f"    {row['system']:<24} precision {shown:>6} ({row['correct']}/{row['judged']})"
                f"{span}  EW(edits) {'' if ew is None else f'{ew:.4f}'}"
                f"  TS(edits) {'' if ts is None else f'{ts:.4f}'}"
            )
        kappa = edits["agreement"]
        self.stdout.write(
            f"verdict kappa: inter {kappa['inter_kappa']}, intra {kappa['intra_kappa']}"
        )
