"""Suggested corrections from a system output, on real MuCGEC dev sentences: the command
`suggest_corrections` (its JSON, its errors), the project page's action and the API, each
refused to annotators and reviewers.

The project re-annotates a released set: the dataset is imported with its references,
released, the example system's output uploaded for the release, then its sentences are put
back to pending and handed out (as benchmarks/datasets_scale.py prepares a re-annotation)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotate.models import Assignment, Suggestion
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import AnnotationMode, Dataset, SentenceStatus
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from review.workflow import assign_dataset
from scoring import services
from tests.factories import make_user

pytestmark = [pytest.mark.django_db]

DATASET = "postedit-mucgec"
SENTENCES = 8


def _head(path: Path, lines: int) -> bytes:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:lines]).encode()


@pytest.fixture
def project(shared_data: Path, settings):  # type: ignore[no-untyped-def]
    settings.GEC_LLM_URL = settings.GEC_LLM_MODEL = ""
    folder = shared_data / "mucgec-dev"
    admin = make_user(Role.ADMIN)
    import_dataset(
        name=DATASET,
        fmt="mucgec",
        source_name="mucgec",
        split="dev",
        user=admin,
        files=[ImportFile("MuCGEC_dev.txt", _head(folder / "MuCGEC_dev.txt", SENTENCES))],
    )
    dataset = Dataset.objects.get(name=DATASET)
    version = release_dataset(dataset=dataset, user=admin)
    for name, file in (("example", "example_pred_dev.txt"), ("copy", "source_pred_dev.txt")):
        services.upload_system_output(
            version=version,
            name=name,
            data=_head(folder / file, SENTENCES),
            file_name=file,
            user=admin,
        )
    dataset.sentences.update(status=SentenceStatus.PENDING)
    annotators = [make_user(Role.ANNOTATOR) for _ in range(3)]
    dataset.annotators.set(annotators)
    dataset.reviewers.set([make_user(Role.REVIEWER)])
    assign_dataset(dataset=dataset, seed=1, by=admin)
    return dataset, admin, annotators


def _suggest(*args: str) -> dict[str, object]:
    out = StringIO()
    call_command("suggest_corrections", DATASET, *args, "--json", stdout=out)
    return dict(json.loads(out.getvalue()))


def _hypotheses(shared_data: Path, file: str) -> dict[str, str]:
    rows = (shared_data / "mucgec-dev" / file).read_text(encoding="utf-8").splitlines()
    return {row.split("\t")[0]: row.split("\t")[2] for row in rows[:SENTENCES]}


def test_the_command_maps_the_system_lines_onto_the_sentences(project, shared_data) -> None:  # type: ignore[no-untyped-def]
    dataset, _admin, annotators = project
    result = _suggest("--from-system", "example", "--blind-share", "0.25", "--seed", "4")
    assert set(result) == {"dataset", "source", "suggested", "blind", "signature"}
    assert (result["dataset"], result["source"], result["suggested"]) == (
        DATASET,
        "system:example",
        SENTENCES,
    )
    # 8 assignments each, round(0.25 x 8) = 2 blind per annotator.
    assert result["blind"] == 3 * 2
    assert str(result["signature"]).startswith(f"system:example|release:{DATASET}@v1|sha:")
    expected = _hypotheses(shared_data, "example_pred_dev.txt")
    stored = dict(
        Suggestion.objects.filter(sentence__dataset=dataset).values_list(
            "sentence__external_id", "text"
        )
    )
    assert stored == expected
    blind = set(Assignment.objects.filter(blind=True).values_list("pk", flat=True))
    for user in annotators:
        assert Assignment.objects.filter(annotator=user, blind=True).count() == 2

    # Run again (a retry): the same rows, the same draw.
    again = _suggest("--from-system", "example", "--blind-share", "0.25", "--seed", "4")
    assert again == result
    assert Suggestion.objects.filter(sentence__dataset=dataset).count() == SENTENCES
    assert set(Assignment.objects.filter(blind=True).values_list("pk", flat=True)) == blind
    dataset.refresh_from_db()
    assert dataset.suggestion_source == "system:example"


def test_a_system_line_equal_to_the_source_is_kept(project) -> None:  # type: ignore[no-untyped-def]
    dataset, _admin, _annotators = project
    result = _suggest("--from-system", "copy")
    assert result["suggested"] == SENTENCES
    assert result["blind"] == 0  # no --blind-share: the blind flags are left as they were
    for sentence in dataset.sentences.all():
        assert sentence.suggestions.get(source="system:copy").text == sentence.text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-dataset", "--from-system", "example"], "no dataset named 'no-such-dataset'"),
        ([DATASET, "--from-system", "nope"], "no system output 'nope'.*uploaded: copy, example"),
        ([DATASET, "--from-system", "example", "--blind-share", "1"], r"\[0, 1\)"),
        ([DATASET, "--from-system", "example", "--blind-share", "-0.2"], r"\[0, 1\)"),
        ([DATASET, "--from-llm"], "no LLM configured: set GEC_LLM_URL"),
    ],
)
def test_the_command_refuses_bad_input_clearly(project, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match=message):
        call_command("suggest_corrections", *args, stdout=StringIO())
    assert not Suggestion.objects.exists()


def test_the_command_needs_exactly_one_source(project) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="one of the arguments"):
        call_command("suggest_corrections", DATASET, stdout=StringIO())
    with pytest.raises(CommandError, match="not allowed with"):
        call_command(
            "suggest_corrections", DATASET, "--from-llm", "--from-system", "x", stdout=StringIO()
        )


def test_the_project_page_offers_and_runs_the_action(project, client) -> None:  # type: ignore[no-untyped-def]
    dataset, admin, _annotators = project
    client.force_login(admin)
    page = client.get(f"/annotate/admin/projects/{DATASET}/").content.decode()
    assert 'value="system:example"' in page and 'value="system:copy"' in page
    assert 'data-testid="llm-unconfigured"' in page and "GEC_LLM_URL" in page
    response = client.post(
        f"/annotate/admin/projects/{DATASET}/suggest/",
        {"source": "system:example", "blind_share": "0.5", "seed": "2"},
        follow=True,
    )
    shown = response.content.decode()
    assert f"{SENTENCES} sentences have a suggestion from system:example" in shown
    assert Assignment.objects.filter(blind=True).count() == 3 * 4
    refused = client.post(
        f"/annotate/admin/projects/{DATASET}/suggest/",
        {"source": "system:example", "blind_share": "1.2"},
        follow=True,
    )
    assert "blind share must be in [0, 1)" in refused.content.decode()
    client.post(
        f"/annotate/admin/projects/{DATASET}/annotation-mode/", {"annotation_mode": "post-edit"}
    )
    dataset.refresh_from_db()
    assert dataset.annotation_mode == AnnotationMode.POST_EDIT


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.REVIEWER])
def test_annotators_and_reviewers_cannot_suggest_or_switch_the_mode(project, client, role) -> None:  # type: ignore[no-untyped-def]
    dataset, _admin, _annotators = project
    user = make_user(role)
    client.force_login(user)
    assert (
        client.post(
            f"/annotate/admin/projects/{DATASET}/suggest/", {"source": "system:example"}
        ).status_code
        == 403
    )
    assert (
        client.post(
            f"/annotate/admin/projects/{DATASET}/annotation-mode/",
            {"annotation_mode": "post-edit"},
        ).status_code
        == 403
    )
    api = APIClient()
    api.force_authenticate(user)
    assert (
        api.post(
            f"/api/scoring/projects/{DATASET}/suggestions/",
            {"source": "system:example"},
            format="json",
        ).status_code
        == 403
    )
    assert (
        api.patch(
            f"/api/projects/{DATASET}/", {"annotation_mode": "post-edit"}, format="json"
        ).status_code
        == 403
    )
    anonymous = APIClient()
    assert (
        anonymous.post(
            f"/api/scoring/projects/{DATASET}/suggestions/", {"source": "llm"}, format="json"
        ).status_code
        == 403
    )
    assert not Suggestion.objects.exists()
    dataset.refresh_from_db()
    assert dataset.annotation_mode == AnnotationMode.REWRITE


def test_the_api_applies_a_system_output_and_sets_the_mode(project) -> None:  # type: ignore[no-untyped-def]
    dataset, admin, _annotators = project
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(
        f"/api/scoring/projects/{DATASET}/suggestions/",
        {"source": "system:example", "blind_share": 0.25, "seed": 3},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["source"], body["suggested"], body["blind"], body["unsuggested"]) == (
        "system:example",
        SENTENCES,
        6,
        0,
    )
    bad = api.post(
        f"/api/scoring/projects/{DATASET}/suggestions/", {"source": "gpt"}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["field"] == "source"
    no_llm = api.post(f"/api/scoring/projects/{DATASET}/suggestions/", {"source": "llm"})
    assert no_llm.status_code == 400 and "no LLM configured" in no_llm.json()["detail"]
    patched = api.patch(
        f"/api/projects/{DATASET}/", {"annotation_mode": "post-edit"}, format="json"
    )
    assert patched.status_code == 200
    assert patched.json()["annotation_mode"] == "post-edit"
    assert patched.json()["suggestion_source"] == "system:example"
    assert patched.json()["blind_assignments"] == 6
    wrong = api.patch(f"/api/projects/{DATASET}/", {"annotation_mode": "edit"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["field"] == "annotation_mode"
