"""The edit verdicts of an edits-mode campaign are read back everywhere: edit
precision per system (with bootstrap intervals), kappa on verdicts, the verdict-based human
ranking, on the results page, in the results API, the Appraise XML, the verdicts CSV and the
human_ranking command; only the campaign's admins see them."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import pytest
from django.core.management import call_command
from django.test import Client
from gecscore.meta.judgments import read_judgments_xml
from rest_framework.test import APIClient

from core.models import User
from core.roles import Role
from judgments import selectors, services
from judgments.models import Campaign
from tests.factories import make_user
from tests.judgments.factories import SYSTEMS, make_campaign

pytestmark = pytest.mark.django_db


def _verdict_rule(systems: list[str], edit: int) -> bool:
    """sysA's edits are right; another output's first edit is right, the rest wrong."""
    return "sysA" in systems or edit == 0


def _judge_all(campaign: Campaign, judge: User) -> dict[str, list[int]]:
    """Judge every item of `judge` by _verdict_rule; the [judged, correct] edits per system as
    counted from the judge's own view (independent of how the platform reads them back)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    while (assignment := services.next_assignment(campaign=campaign, judge=judge)) is not None:
        view = selectors.judge_view_of_item(assignment.item, language="zh")
        systems = {o.position: o.systems for o in assignment.item.outputs.all()}
        verdicts = []
        for output in view["outputs"]:
            for edit in output["edits"]:
                correct = _verdict_rule(systems[output["position"]], edit["index"])
                verdicts.append(
                    {"output": output["position"], "edit": edit["index"], "correct": correct}
                )
                for name in systems[output["position"]]:
                    counts[name][0] += 1
                    counts[name][1] += correct
        services.submit_judgment(
            assignment_id=assignment.pk,
            judge=judge,
            ranks=[1 if "sysA" in systems[o["position"]] else 2 for o in view["outputs"]],
            edit_verdicts=verdicts,
        )
    return counts


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    judges = [make_user(Role.ANNOTATOR) for _ in range(2)]
    owner = make_user(Role.ADMIN)
    campaign = make_campaign(judges=judges, mode="edits", k=2, created_by=owner)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for judge in judges:
        for name, (judged, correct) in _judge_all(campaign, judge).items():
            totals[name][0] += judged
            totals[name][1] += correct
    return {"campaign": campaign, "judges": judges, "owner": owner, "totals": totals}


def test_edit_precision_is_the_share_of_each_systems_judged_edits_marked_correct(world) -> None:  # type: ignore[no-untyped-def]
    totals = world["totals"]
    expected = {name: c / j for name, (j, c) in totals.items() if j}
    assert set(expected) == set(SYSTEMS)
    assert len(set(expected.values())) > 1  # the rule really separates the systems
    got = selectors.human_system_scores(world["campaign"], method="edit-precision")
    assert got == pytest.approx(expected)
    report = selectors.campaign_results(world["campaign"], method="ew", bootstrap=100)
    edits = report["edits"]
    rows = {row["system"]: row for row in edits["systems"]}
    for name, (judged, correct) in totals.items():
        assert (rows[name]["judged"], rows[name]["correct"]) == (judged, correct)
        low, high = rows[name]["interval"]
        assert low <= rows[name]["precision"] <= high
    assert edits["verdicts"] == selectors.count_edit_verdicts(world["campaign"]) > 0
    # two judges judged every item with the same rule: they agree completely
    assert edits["agreement"]["inter_kappa"] == pytest.approx(1.0)
    ranked = edits["ranking"]["systems"]
    assert next(iter(ranked)) == "sysA"  # only sysA has no wrong edit
    ew = selectors.human_system_scores(world["campaign"], method="edit-ew")
    assert ew == pytest.approx({n: r["expected_wins"] for n, r in ranked.items()})


def test_ranking_campaign_has_no_edit_results(world) -> None:  # type: ignore[no-untyped-def]
    judge = make_user(Role.ANNOTATOR)
    campaign = make_campaign(judges=[judge], k=1, name="plain")
    assignment = services.next_assignment(campaign=campaign, judge=judge)
    assert assignment is not None
    services.submit_judgment(
        assignment_id=assignment.pk, judge=judge, ranks=[1] * assignment.item.outputs.count()
    )
    assert selectors.campaign_results(campaign, method="ew")["edits"] is None
    assert selectors.human_system_scores(campaign, method="edit-precision") == {}


def test_results_page_shows_precision_agreement_and_each_verdict(world, computed) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(world["owner"])
    response = computed(client, f"/judgments/{world['campaign'].pk}/results/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="edit-precision"' in html
    for name, (judged, correct) in world["totals"].items():
        assert (
            f'<tr data-system="{name}"><td>{name}</td><td class="num">{judged}</td><td class="num">{correct}</td>'
            in html
        )
    assert "Agreement on verdicts" in html
    assert "汽 → 气" in html and ">incorrect<" in html and ">correct<" in html
    assert 'data-testid="edits-csv-link"' in html


def test_csv_and_xml_exports_carry_every_verdict(world) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(world["owner"])
    campaign = world["campaign"]
    text = client.get(f"/judgments/{campaign.pk}/export.edits.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == selectors.count_edit_verdicts(campaign)
    judged: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        for name in row["systems"].split():
            judged[name][0] += 1
            judged[name][1] += row["correct"] == "correct"
    assert dict(judged) == dict(world["totals"])
    xml = client.get(f"/judgments/{campaign.pk}/export.xml").content
    back = read_judgments_xml(xml)
    assert back == selectors.campaign_judgment_set(campaign)
    assert sum(len(e.edits) for item in back.items for e in item.entries) == len(rows)


def test_imported_xml_keeps_the_verdicts(world) -> None:  # type: ignore[no-untyped-def]
    xml = services.export_judgments(campaign=world["campaign"])
    copy = services.import_judgments(
        campaign_name="copy", source=xml.encode(), release=world["campaign"].release
    )
    assert selectors.human_system_scores(copy, method="edit-precision") == pytest.approx(
        selectors.human_system_scores(world["campaign"], method="edit-precision")
    )


def test_results_api_gives_edit_results_and_verdicts_on_request(world, computed) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(world["owner"])
    url = f"/api/judgments/campaigns/{world['campaign'].pk}/results/"
    data = computed(api, url, {"method": "ew", "bootstrap": 50}).json()
    assert {row["system"] for row in data["edits"]["systems"]} == set(SYSTEMS)
    assert "edit_verdicts" not in data
    data = computed(api, url, {"method": "ew", "verdicts": "1"}).json()
    assert len(data["edit_verdicts"]) == selectors.count_edit_verdicts(world["campaign"])
    assert set(data["edit_verdicts"][0]) >= {"judge", "systems", "source", "target", "correct"}
    export = api.get(
        f"/api/judgments/campaigns/{world['campaign'].pk}/export/", {"as": "edits-csv"}
    )
    assert export.status_code == 200 and export.content.decode().startswith("item,src_id,judge")


def test_only_the_campaigns_admins_see_edit_results(world) -> None:  # type: ignore[no-untyped-def]
    campaign = world["campaign"]
    other_admin = make_user(Role.ADMIN)
    for user, page_status in ((world["judges"][0], 403), (other_admin, 404)):
        client = Client()
        client.force_login(user)
        assert client.get(f"/judgments/{campaign.pk}/results/").status_code == page_status
        assert client.get(f"/judgments/{campaign.pk}/export.edits.csv").status_code == page_status
        api = APIClient()
        api.force_authenticate(user)
        base = f"/api/judgments/campaigns/{campaign.pk}"
        assert api.get(f"{base}/results/", {"verdicts": "1"}).status_code == page_status
        assert api.get(f"{base}/export/", {"as": "edits-csv"}).status_code == page_status
    anonymous = Client()
    assert anonymous.get(f"/judgments/{campaign.pk}/export.edits.csv").status_code == 302
    assert APIClient().get(f"/api/judgments/campaigns/{campaign.pk}/results/").status_code in (
        401,
        403,
    )


def test_human_ranking_command_prints_edit_precision(world) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    call_command("human_ranking", campaign=world["campaign"].name, method="ew", stdout=out)
    text = out.getvalue()
    assert "edit verdicts:" in text and "precision" in text and "verdict kappa" in text
    out = io.StringIO()
    call_command(
        "human_ranking", campaign=world["campaign"].name, method="ew", json=True, stdout=out
    )
    assert json.loads(out.getvalue())["edits"]["systems"]


def test_export_command_writes_the_verdicts_csv(world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "verdicts.csv"
    call_command(
        "export_judgments",
        campaign=world["campaign"].name,
        output=str(target),
        format="edits-csv",
        stdout=io.StringIO(),
    )
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert len(rows) == selectors.count_edit_verdicts(world["campaign"])
