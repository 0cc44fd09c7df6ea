"""Closest-gold tasks (docs/closest-gold.md): items built from system outputs (equal ones
merged), proposals from a real local OpenAI-compatible server on 127.0.0.1 (cached, a retry
asks only for what is missing, a garbage answer stores no proposal), verification with k
verifiers, the selector contract system scoring reads, and who may do what."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.exceptions import Conflict, PermissionDenied, ServiceError
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset, DatasetVersion
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from judgments.models import Campaign
from scoring import services
from scoring.models import (
    ClosestGoldItem,
    ClosestGoldProposalCache,
    ClosestGoldTask,
    ClosestGoldVerification,
    SystemOutput,
)
from scoring.selectors import closest_gold_coverage, closest_golds
from scoring.services.closest_gold_proposals import PROMPTS, parse_proposal, run_proposals
from tests.factories import make_user
from tests.scoring_app.llm_servers import CorrectionServer

pytestmark = [pytest.mark.django_db]

SOURCES = ["我明天去学校了。", "他们在公园里玩的很开心。", "这个问题很难回答。"]
REFS = ["我明天去学校。", "他们在公园里玩得很开心。", "这个问题很难回答。"]
SYSTEMS = {
    "alpha": ["我明天去学校。", "他们在公园里玩的很开心。", "这个问题很难回答。"],
    "beta": ["我明天去学校。", "他们在公园里玩得很开心。", "这个问题很难回答。"],
    "gamma": ["我明天要去学校了。", "他们在公园里玩得很开心。", "这问题很难回答。"],
}
ZH_LABEL = PROMPTS["zh"].output_label


def correct(output: str) -> str:
    """The test server's 'model': a fixed minimal correction of the output."""
    return output.replace("玩的", "玩得").replace("了。", "。").replace("这问题", "这个问题")


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


@pytest.fixture
def release(settings) -> tuple[object, DatasetVersion, dict[str, SystemOutput]]:  # type: ignore[no-untyped-def]
    settings.GEC_LLM_URL = settings.GEC_LLM_MODEL = ""
    settings.GEC_LLM_RETRIES = 0
    settings.GEC_LLM_TIMEOUT = 5.0
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="cg-zh",
        fmt="parallel",
        language="zh",
        user=admin,
        source_name="tiny",
        files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(REFS))],
    )
    version = release_dataset(dataset=Dataset.objects.get(name="cg-zh"), user=admin)
    systems = {
        name: services.upload_system_output(
            version=version, name=name, data=_lines(hyps), file_name=name, user=admin
        )
        for name, hyps in SYSTEMS.items()
    }
    return admin, version, systems


def _create(release, capture, **options):  # type: ignore[no-untyped-def]
    admin, version, systems = release
    with capture(execute=True):
        return services.create_closest_gold_task(
            version=version, systems=list(systems.values()), user=admin, **options
        )


def test_equal_outputs_are_merged_into_one_item_that_counts_for_each_system(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    task = _create(release, django_capture_on_commit_callbacks)
    _, version, systems = release
    # Per sentence: alpha=beta, gamma | alpha, beta=gamma | alpha=beta, gamma.
    assert task.items.count() == 6
    shared = task.items.get(position=0, output=SYSTEMS["alpha"][0])
    assert {s.name for s in shared.systems.all()} == {"alpha", "beta"}
    assert task.llm_model == "" and task.background_job_id is None
    assert all(item.proposal is None for item in task.items.all())
    # A second build (a retried request) adds nothing.
    assert services.closest_gold.build_items(task) == 6
    assert task.items.count() == 6
    assert ClosestGoldItem.systems.through.objects.filter(closestgolditem__task=task).count() == 9

    reviewer = make_user(Role.REVIEWER)
    services.submit_verification(item_id=shared.pk, verifier=reviewer, decision="output-correct")
    assert closest_golds(systems["alpha"])[0] == [SYSTEMS["alpha"][0]]
    assert closest_golds(systems["beta"])[0] == [SYSTEMS["alpha"][0]]
    assert closest_golds(systems["gamma"])[0] == []


def test_selector_gives_verified_texts_in_release_order_with_coverage(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    task = _create(release, django_capture_on_commit_callbacks, per_item=2)
    _, version, systems = release
    gamma = systems["gamma"]
    first, second = make_user(Role.REVIEWER), make_user(Role.REVIEWER)
    item_of = {
        item.position: item for item in task.items.filter(systems=gamma).order_by("position")
    }
    # Verified out of order; k=2 with distinct texts gives both, equal texts give one.
    services.submit_verification(
        item_id=item_of[2].pk, verifier=first, decision="rewritten", text="这个问题很难回答。"
    )
    services.submit_verification(
        item_id=item_of[2].pk, verifier=second, decision="rewritten", text="这个问题很难回答。"
    )
    services.submit_verification(
        item_id=item_of[0].pk, verifier=first, decision="rewritten", text="我明天要去学校。"
    )
    services.submit_verification(
        item_id=item_of[0].pk, verifier=second, decision="rewritten", text="我明天去学校。"
    )
    assert closest_golds(gamma) == [
        ["我明天要去学校。", "我明天去学校。"],
        [],
        ["这个问题很难回答。"],
    ]
    assert closest_gold_coverage(gamma) == (2, 3)
    assert closest_gold_coverage(systems["alpha"]) == (0, 3)
    # An output replaced since its item was built lends no text to the new hypothesis.
    SystemOutput.objects.filter(pk=gamma.pk).update(
        hypotheses=["别的句子。", *SYSTEMS["gamma"][1:]]
    )
    gamma.refresh_from_db()
    assert closest_golds(gamma) == [[], [], ["这个问题很难回答。"]]


def test_decisions_store_the_text_they_mean(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    task = _create(release, django_capture_on_commit_callbacks, per_item=3)
    item = task.items.get(position=1, output=SYSTEMS["alpha"][1])
    a, b, c = (make_user(Role.REVIEWER) for _ in range(3))
    with pytest.raises(ServiceError, match="no proposal"):
        services.submit_verification(item_id=item.pk, verifier=a, decision="accepted")
    with pytest.raises(ServiceError, match="write the corrected sentence"):
        services.submit_verification(item_id=item.pk, verifier=a, decision="rewritten", text=" ")
    with pytest.raises(ServiceError, match="decision must be one of"):
        services.submit_verification(item_id=item.pk, verifier=a, decision="maybe")
    ClosestGoldItem.objects.filter(pk=item.pk).update(proposal="他们在公园里玩得很开心。")
    assert services.submit_verification(item_id=item.pk, verifier=a, decision="accepted").text == (
        "他们在公园里玩得很开心。"
    )
    unchanged = services.submit_verification(
        item_id=item.pk, verifier=b, decision="edited", text="他们在公园里玩得很开心。"
    )
    assert unchanged.decision == "accepted"
    kept = services.submit_verification(item_id=item.pk, verifier=c, decision="output-correct")
    assert (kept.decision, kept.text) == ("output-correct", SYSTEMS["alpha"][1])


def _next_pk(task: ClosestGoldTask, verifier: object) -> int | None:
    item = services.next_item(task=task, verifier=verifier)  # type: ignore[arg-type]
    return None if item is None else item.pk


def test_k_verifiers_per_item_and_never_twice_by_one(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    task = _create(release, django_capture_on_commit_callbacks, per_item=2)
    first, second, third = (make_user(Role.REVIEWER) for _ in range(3))
    item = services.next_item(task=task, verifier=first)
    assert item is not None and item.position == 0
    services.submit_verification(item_id=item.pk, verifier=first, decision="output-correct")
    with pytest.raises(Conflict, match="already verified"):
        services.submit_verification(item_id=item.pk, verifier=first, decision="output-correct")
    # The first verifier moves on; the second still gets the item (1 of k=2 done).
    assert _next_pk(task, first) != item.pk
    assert _next_pk(task, second) == item.pk
    services.submit_verification(item_id=item.pk, verifier=second, decision="output-correct")
    assert _next_pk(task, third) != item.pk
    with pytest.raises(Conflict, match="already has its 2"):
        services.submit_verification(item_id=item.pk, verifier=third, decision="output-correct")
    assert ClosestGoldVerification.objects.filter(item=item).count() == 2
    # The pool: a reviewer outside it is refused.
    pooled = _create(release, django_capture_on_commit_callbacks, verifiers=[first])
    assert services.next_item(task=pooled, verifier=first) is not None
    with pytest.raises(PermissionDenied, match="verifier pool"):
        services.next_item(task=pooled, verifier=second)


def test_proposals_from_a_local_server_are_cached_and_a_retry_asks_only_for_what_is_missing(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    with CorrectionServer(correct, output_label=ZH_LABEL) as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-corrector"
        task = _create(release, django_capture_on_commit_callbacks)
        job = BackgroundJob.objects.get(pk=task.background_job_id)
        assert job.status == JobStatus.DONE, job.message
        assert job.task_name == "scoring.closest_gold_proposals"  # HTTP: the default queue
        assert len(server.requests) == 6
        assert (task.llm_model, task.prompt_version) == ("tiny-corrector", "cg-zh-1")
        for item in task.items.all():
            assert item.proposal == correct(item.output)
            assert (item.proposal_model, item.proposal_prompt_version) == (
                "tiny-corrector",
                "cg-zh-1",
            )
        source_line = server.requests[0]["messages"][-1]["content"]
        assert "原句：" in source_line and ZH_LABEL in source_line
        # A run again (a retry) asks nothing: every item has its proposal.
        assert run_proposals(task_id=task.pk) == {"asked": 0, "cached": 0, "refused": 0}
        # Two items lose their proposal and one answer leaves the cache: one request.
        lost = list(task.items.order_by("id")[:2])
        ClosestGoldItem.objects.filter(pk__in=[i.pk for i in lost]).update(proposal=None)
        ClosestGoldProposalCache.objects.filter(proposal=correct(lost[0].output)).delete()
        assert run_proposals(task_id=task.pk) == {"asked": 1, "cached": 1, "refused": 0}
        assert len(server.requests) == 7
        # A second task over the same outputs reads them all from the cache.
        second = _create(release, django_capture_on_commit_callbacks)
        assert len(server.requests) == 7
        assert BackgroundJob.objects.get(pk=second.background_job_id).result["cached"] == 6
        assert second.items.filter(proposal__isnull=True).count() == 0


def test_a_garbage_answering_server_leaves_no_proposal_and_the_verifier_writes(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    with CorrectionServer(correct, output_label=ZH_LABEL, garbage=True) as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "confused"
        task = _create(release, django_capture_on_commit_callbacks)
    job = BackgroundJob.objects.get(pk=task.background_job_id)
    assert job.status == JobStatus.DONE and job.result["refused"] == 6
    item = task.items.order_by("position", "id").first()
    assert item.proposal is None and "no correction of the output" in item.proposal_error
    assert not ClosestGoldProposalCache.objects.exists()
    reviewer = make_user(Role.REVIEWER)
    written = services.submit_verification(
        item_id=item.pk, verifier=reviewer, decision="rewritten", text="我明天去学校。"
    )
    assert written.text == "我明天去学校。"


def test_an_endpoint_that_is_down_fails_the_job_as_retryable(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = "http://127.0.0.1:9/v1", "nobody"
    task = _create(release, django_capture_on_commit_callbacks)
    job = BackgroundJob.objects.get(pk=task.background_job_id)
    assert job.status == JobStatus.FAILED and job.retryable, job.message
    assert "failed 1 times" in job.message
    assert task.items.filter(proposal__isnull=False).count() == 0


def test_parse_proposal_takes_the_line_closest_to_the_output() -> None:
    output = "他们在公园里玩的很开心。"
    answer = "改正后的句子如下：\n```\n“他们在公园里玩得很开心。”\n```"
    assert parse_proposal(answer, output) == "他们在公园里玩得很开心。"
    with pytest.raises(ServiceError, match="no correction"):
        parse_proposal("I cannot help with that request, sorry.", output)
    with pytest.raises(ServiceError, match="answered nothing"):
        parse_proposal("\n  \n", output)


def test_only_admins_create_tasks_page_and_api(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    admin, version, systems = release
    reviewer = make_user(Role.REVIEWER)
    with pytest.raises(PermissionDenied):
        services.create_closest_gold_task(
            version=version, systems=list(systems.values()), user=reviewer
        )
    client = Client()
    client.force_login(reviewer)
    assert client.get(f"/scoring/releases/{version.pk}/closest-gold/").status_code == 403
    api = APIClient()
    api.force_authenticate(reviewer)
    url = f"/api/scoring/releases/{version.pk}/closest-gold/"
    assert api.post(url, {"systems": [systems["alpha"].pk]}, format="json").status_code == 403
    api.force_authenticate(admin)
    refused = api.post(url, {"systems": [systems["alpha"].pk], "per_item": 0}, format="json")
    assert refused.status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        made = api.post(url, {"systems": [systems["alpha"].pk], "per_item": 2}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["progress"]["items"] == 3 and made.json()["per_item"] == 2
    assert ClosestGoldTask.objects.get(pk=made.json()["id"]).created_by == admin
    client.force_login(admin)
    page = client.post(
        f"/scoring/releases/{version.pk}/closest-gold/",
        {"systems": [systems["beta"].pk], "per_item": "x"},
    )
    assert page.status_code == 200 and "verifiers per item" in page.content.decode()


def test_annotators_and_judges_get_403_on_verification(  # type: ignore[no-untyped-def]
    release, django_capture_on_commit_callbacks
) -> None:
    admin, version, systems = release
    task = _create(release, django_capture_on_commit_callbacks)
    item = task.items.first()
    annotator = make_user(Role.ANNOTATOR)
    judge = make_user()
    campaign = Campaign.objects.create(name="c", release=version, created_by=admin)
    campaign.judges.add(judge)
    for user in (annotator, judge):
        client = Client()
        client.force_login(user)
        assert client.get(f"/scoring/closest-gold/{task.pk}/next/").status_code == 403
        assert client.get(f"/scoring/closest-gold/items/{item.pk}/").status_code == 403
        posted = client.post(
            f"/scoring/closest-gold/items/{item.pk}/", {"decision": "output-correct"}
        )
        assert posted.status_code == 403
        api = APIClient()
        api.force_authenticate(user)
        assert api.get(f"/api/scoring/closest-gold/{task.pk}/next/").status_code == 403
        answer = api.post(
            f"/api/scoring/closest-gold/items/{item.pk}/verify/",
            {"decision": "output-correct"},
            format="json",
        )
        assert answer.status_code == 403
    assert not ClosestGoldVerification.objects.exists()
    # A reviewer verifies through the API; the page shows the proposal-less item.
    reviewer = make_user(Role.REVIEWER)
    api = APIClient()
    api.force_authenticate(reviewer)
    shown = api.get(f"/api/scoring/closest-gold/{task.pk}/next/")
    assert shown.status_code == 200 and shown.json()["source"] == SOURCES[0]
    saved = api.post(
        f"/api/scoring/closest-gold/items/{shown.json()['id']}/verify/",
        {"decision": "rewritten", "text": "我明天去学校。", "time_spent_seconds": 7},
        format="json",
    )
    assert saved.status_code == 201, saved.content
    assert ClosestGoldVerification.objects.get().time_spent_seconds == 7
    client = Client()
    client.force_login(reviewer)
    done = client.get(f"/scoring/closest-gold/items/{shown.json()['id']}/").content.decode()
    assert 'data-testid="cg-done"' in done
    other = task.items.exclude(pk=shown.json()["id"]).first()
    page = client.get(f"/scoring/closest-gold/items/{other.pk}/").content.decode()
    assert 'data-testid="cg-no-proposal"' in page and "Keyboard shortcuts" in page


def test_verification_page_shows_both_diffs_of_the_proposal(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks, tmp_path: Path
) -> None:
    with CorrectionServer(correct, output_label=ZH_LABEL) as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-corrector"
        task = _create(release, django_capture_on_commit_callbacks)
    item = task.items.get(position=1, output=SYSTEMS["alpha"][1])
    reviewer = make_user(Role.REVIEWER)
    client = Client()
    client.force_login(reviewer)
    page = client.get(f"/scoring/closest-gold/items/{item.pk}/").content.decode()
    assert 'data-testid="cg-diff-output"' in page and 'data-testid="cg-diff-source"' in page
    # Output -> proposal: 的 -> 得, drawn as a substitution.
    assert '<span class="edit-del">的</span><span class="edit-ins">得</span>' in page
    moved = client.post(
        f"/scoring/closest-gold/items/{item.pk}/",
        {"decision": "accepted", "opened_at": "1"},
    )
    assert moved.status_code == 302 and moved["Location"].endswith(f"/closest-gold/{task.pk}/next/")
    verification = ClosestGoldVerification.objects.get()
    assert verification.text == "他们在公园里玩得很开心。" and verification.decision == "accepted"
    admin_page = Client()
    admin_page.force_login(release[0])
    shown = admin_page.get(f"/scoring/closest-gold/{task.pk}/").content.decode()
    assert "tiny-corrector, cg-zh-1" in shown and f"by {reviewer.username}" in shown


def test_a_local_model_proposes_on_the_gpu_queue(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks, tmp_path: Path
) -> None:
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = "", str(tmp_path / "no-model-here")
    task = _create(release, django_capture_on_commit_callbacks)
    job = BackgroundJob.objects.get(pk=task.background_job_id)
    assert job.task_name == "scoring.gpu_closest_gold_proposals"
    # The folder holds no model: the job fails and says so, and is not retried as it is.
    assert job.status == JobStatus.FAILED and not job.retryable
    assert task.items.filter(proposal__isnull=False).count() == 0


def test_an_english_release_gets_the_english_prompt(  # type: ignore[no-untyped-def]
    settings, django_capture_on_commit_callbacks
) -> None:
    admin = make_user(Role.ADMIN)
    sources = ["He go to school .", "She have two cat ."]
    import_dataset(
        name="cg-en",
        fmt="parallel",
        language="en",
        user=admin,
        source_name="tiny",
        files=[ImportFile("src", _lines(sources)), ImportFile("ref0", _lines(sources))],
    )
    version = release_dataset(dataset=Dataset.objects.get(name="cg-en"), user=admin)
    system = services.upload_system_output(
        version=version,
        name="en-sys",
        data=_lines(["He goes to school .", "She have two cats ."]),
        file_name="en-sys",
        user=admin,
    )
    settings.GEC_LLM_RETRIES = 0
    with CorrectionServer(lambda output: output.replace("have", "has")) as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-corrector"
        with django_capture_on_commit_callbacks(execute=True):
            task = services.create_closest_gold_task(version=version, systems=[system], user=admin)
    assert task.prompt_version == "cg-en-1"
    prompts = sorted(body["messages"][-1]["content"] for body in server.requests)
    assert "Source: He go to school .\nOutput: He goes to school .\n" in prompts[0]
    assert all("Starting from the Output" in prompt for prompt in prompts)
    assert sorted(str(p) for p in task.items.values_list("proposal", flat=True)) == [
        "He goes to school .",
        "She has two cats .",
    ]


def test_an_output_as_long_as_a_sentence_may_be_still_makes_one_item(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    # Varied characters (3 bytes each in UTF-8) compress badly: far above the 2,704 bytes a
    # PostgreSQL B-tree entry holds, so the uniqueness of items cannot index the text itself.
    long_output = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(4000)) + "。"
    admin, version, systems = release
    hypotheses = [long_output, *SYSTEMS["alpha"][1:]]
    SystemOutput.objects.filter(pk=systems["alpha"].pk).update(hypotheses=hypotheses)
    SystemOutput.objects.filter(pk=systems["beta"].pk).update(hypotheses=hypotheses)
    task = _create(release, django_capture_on_commit_callbacks)
    assert task.items.filter(output=long_output).count() == 1
    assert services.closest_gold.build_items(task) == task.items.count()
