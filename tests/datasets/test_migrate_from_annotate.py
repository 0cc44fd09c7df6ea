"""A database made by the code before the datasets app existed migrates forward with every row.

The test rolls the schema back to the last migrations of that code (datasets lived in
annotate, golden references and the guideline in review, the reference-M2 cache in scoring),
writes rows through the historical models of that state, migrates forward and reads every
row back through today's models: same ids, same values, same links between rows.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, models
from django.db.migrations.executor import MigrationExecutor

# The leaf migrations of the code before the move (commit 68b8cf3).
OLD_STATE: list[tuple[str, str | None]] = [
    ("datasets", None),  # the app did not exist
    ("core", "0003_background_job"),
    ("annotate", "0002_initial"),
    ("review", "0003_seed_guideline"),
    ("scoring", "0001_initial"),
]


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def _latest() -> list[tuple[str, str | None]]:
    executor = MigrationExecutor(connection)
    return list(executor.loader.graph.leaf_nodes())


def _write_old_rows(apps: Any) -> dict[str, Any]:
    User = apps.get_model("core", "User")
    Dataset = apps.get_model("annotate", "Dataset")
    Source = apps.get_model("annotate", "Source")
    Sentence = apps.get_model("annotate", "Sentence")
    Version = apps.get_model("annotate", "DatasetVersion")
    Released = apps.get_model("annotate", "ReleasedSentence")
    Assignment = apps.get_model("annotate", "Assignment")
    Submission = apps.get_model("annotate", "Submission")
    Correction = apps.get_model("annotate", "Correction")
    Golden = apps.get_model("review", "GoldenReference")
    ReviewTask = apps.get_model("review", "ReviewTask")
    Guideline = apps.get_model("review", "Guideline")
    Cache = apps.get_model("scoring", "ReferenceM2Cache")
    SystemOutput = apps.get_model("scoring", "SystemOutput")

    annotator = User.objects.create(username="ann-old", password="x")
    reviewer = User.objects.create(username="rev-old", password="x")
    dataset = Dataset.objects.create(name="old-data", language="zh", annotators_per_sentence=1)
    dataset.annotators.add(annotator)
    dataset.reviewers.add(reviewer)
    source = Source.objects.create(dataset=dataset, name="NLPCC18")
    sentences = [
        Sentence.objects.create(
            dataset=dataset,
            source=source,
            external_id=str(n),
            position=n,
            text=text,
            status="reviewed",
            judgement="annotatable",
        )
        for n, text in enumerate(["我今天去学校了了。", "他很高兴地的说。"])
    ]
    golden = Golden.objects.create(
        sentence=sentences[0],
        revision=1,
        position=0,
        kind="correction",
        text="我今天去学校了。",
        origin="imported",
        is_current=True,
    )
    version = Version.objects.create(
        dataset=dataset,
        number=1,
        checksum="c" * 64,
        counts={"sentences": 2},
        source_names=["NLPCC18"],
    )
    released = Released.objects.create(
        version=version,
        sentence=sentences[0],
        position=0,
        external_id="0",
        source_name="NLPCC18",
        text=sentences[0].text,
        judgement="annotatable",
        references=["我今天去学校了。"],
    )
    assignment = Assignment.objects.create(
        sentence=sentences[1], annotator=annotator, status="submitted"
    )
    submission = Submission.objects.create(assignment=assignment, revision=1)
    Correction.objects.create(submission=submission, position=0, text="他很高兴地说。")
    task = ReviewTask.objects.create(sentence=sentences[1], reviewer=reviewer)
    # The seeded guideline, whatever an earlier test's flush left (its absence hid that two
    # guidelines made migration 0006 fail), and a second one an admin added.
    Guideline.objects.get_or_create(slug="main", defaults={"title": "Main", "body": "# main"})
    Guideline.objects.update_or_create(
        slug="old-guide", defaults={"title": "Old", "body": "# keep me"}
    )
    cache = Cache.objects.create(
        version=version, resources_key="default", m2_text="S 我\nA -1 -1|||noop\n\n"
    )
    system = SystemOutput.objects.create(
        version=version, name="sys", file_format="text", hypotheses=["a", "b"], checksum="d" * 64
    )
    return {
        "dataset": dataset.pk,
        "source": source.pk,
        "sentences": [s.pk for s in sentences],
        "golden": golden.pk,
        "version": version.pk,
        "released": released.pk,
        "assignment": assignment.pk,
        "task": task.pk,
        "cache": cache.pk,
        "system": system.pk,
        "annotator": annotator.pk,
        "reviewer": reviewer.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_database_of_the_previous_code_migrates_forward_with_every_row() -> None:
    latest = _latest()
    old_apps = _migrate(OLD_STATE)
    try:
        ids = _write_old_rows(old_apps)
    finally:
        new_apps = _migrate(latest)

    Dataset = new_apps.get_model("datasets", "Dataset")
    Sentence = new_apps.get_model("datasets", "Sentence")
    Golden = new_apps.get_model("datasets", "GoldenReference")
    Version = new_apps.get_model("datasets", "DatasetVersion")
    Released = new_apps.get_model("datasets", "ReleasedSentence")
    Cache = new_apps.get_model("datasets", "ReferenceM2Cache")
    Guideline = new_apps.get_model("annotate", "Guideline")
    Assignment = new_apps.get_model("annotate", "Assignment")
    ReviewTask = new_apps.get_model("review", "ReviewTask")
    SystemOutput = new_apps.get_model("scoring", "SystemOutput")

    dataset = Dataset.objects.get(pk=ids["dataset"])
    assert dataset.name == "old-data"
    assert list(dataset.annotators.values_list("pk", flat=True)) == [ids["annotator"]]
    assert list(dataset.reviewers.values_list("pk", flat=True)) == [ids["reviewer"]]
    assert list(dataset.sources.values_list("pk", "name")) == [(ids["source"], "NLPCC18")]
    assert list(
        Sentence.objects.filter(dataset=dataset).order_by("position").values_list("pk", "text")
    ) == [(ids["sentences"][0], "我今天去学校了了。"), (ids["sentences"][1], "他很高兴地的说。")]
    golden = Golden.objects.get(pk=ids["golden"])
    assert (golden.sentence_id, golden.text, golden.is_current) == (
        ids["sentences"][0],
        "我今天去学校了。",
        True,
    )
    version = Version.objects.get(pk=ids["version"])
    assert (version.dataset_id, version.number, version.counts) == (
        ids["dataset"],
        1,
        {"sentences": 2},
    )
    released = Released.objects.get(pk=ids["released"])
    assert (released.version_id, released.sentence_id, released.references) == (
        ids["version"],
        ids["sentences"][0],
        ["我今天去学校了。"],
    )
    assert Cache.objects.get(pk=ids["cache"]).m2_text == "S 我\nA -1 -1|||noop\n\n"
    # Two guidelines became two of (annotation, zh): "main" stays live, the other is archived
    # with its text.
    old_guide = Guideline.objects.get(slug="old-guide")
    assert (old_guide.body, old_guide.archived) == ("# keep me", True)
    live = Guideline.objects.filter(task="annotation", language="zh", archived=False)
    assert list(live.values_list("slug", flat=True)) == ["main"]
    assert Assignment.objects.get(pk=ids["assignment"]).sentence_id == ids["sentences"][1]
    assert ReviewTask.objects.get(pk=ids["task"]).sentence_id == ids["sentences"][1]
    assert SystemOutput.objects.get(pk=ids["system"]).version_id == ids["version"]
    # The tables carry the new apps' names now, and the old ones are gone.
    tables = set(connection.introspection.table_names())
    assert {
        "datasets_dataset",
        "datasets_sentence",
        "datasets_goldenreference",
        "datasets_referencem2cache",
        "datasets_dataset_annotators",
        "annotate_guideline",
    } <= tables
    assert (
        not {
            "annotate_dataset",
            "annotate_sentence",
            "review_goldenreference",
            "scoring_referencem2cache",
            "review_guideline",
        }
        & tables
    )


@pytest.mark.django_db(transaction=True)
def test_a_database_that_applied_the_first_0006_loses_its_constraint_and_migrates() -> None:
    # The first version of annotate 0006 added an unconditional unique (task, language); 0007
    # drops it where present, or it would refuse the archived duplicates 0007 allows.
    # (SQLite rebuilds the table on 0007's AddField and loses it anyway: PostgreSQL is the
    # database where this test bites, as .ci/run's third stage runs it.)
    latest = _latest()
    apps = _migrate([("annotate", "0006_guideline_task_language")])
    try:
        Guideline = apps.get_model("annotate", "Guideline")
        with connection.schema_editor() as editor:
            editor.add_constraint(
                Guideline,
                models.UniqueConstraint(
                    fields=("task", "language"), name="unique_guideline_task_language"
                ),
            )
    finally:
        new_apps = _migrate(latest)
    with connection.cursor() as cursor:
        names = connection.introspection.get_constraints(cursor, "annotate_guideline")
    assert "unique_guideline_task_language" not in names
    assert "unique_live_guideline_task_language" in names
    Guideline = new_apps.get_model("annotate", "Guideline")
    for slug in ("a", "b"):
        Guideline.objects.create(slug=slug, title=slug, body=slug, archived=True)
    assert Guideline.objects.filter(task="annotation", language="zh", archived=True).count() == 2
