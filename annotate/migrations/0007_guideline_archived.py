"""Guidelines kept from before each had a task and language: all but one guideline of each
(task, language) are archived, not deleted, so migrating loses no text an admin wrote. The
one kept live is the historical "main" where it is in the group, else the last edited."""

from typing import Any

from django.db import migrations, models

FIRST_CONSTRAINT = "unique_guideline_task_language"  # as the first version of 0006 added it


def archive_all_but_one_per_task_and_language(apps: Any, schema_editor: Any) -> None:
    Guideline = apps.get_model("annotate", "Guideline")
    kept: set[tuple[str, str]] = set()
    # "main" first, then the most recently edited: the first of each group stays live.
    ordered = sorted(
        Guideline.objects.all(),
        key=lambda g: (g.slug != "main", -g.updated_at.timestamp(), -g.pk),
    )
    for guideline in ordered:
        group = (guideline.task, guideline.language)
        if group in kept:
            Guideline.objects.filter(pk=guideline.pk).update(archived=True)
        else:
            kept.add(group)


def drop_first_constraint_where_applied(apps: Any, schema_editor: Any) -> None:
    """A database that applied the first version of 0006 has its unconditional constraint,
    which would still refuse archived duplicates: drop it there (other databases never had
    it)."""
    Guideline = apps.get_model("annotate", "Guideline")
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        names = connection.introspection.get_constraints(cursor, Guideline._meta.db_table)
    if FIRST_CONSTRAINT in names:
        schema_editor.remove_constraint(
            Guideline, models.UniqueConstraint(fields=("task", "language"), name=FIRST_CONSTRAINT)
        )


class Migration(migrations.Migration):
    dependencies = [("annotate", "0006_guideline_task_language")]

    operations = [
        migrations.AddField(
            model_name="guideline",
            name="archived",
            field=models.BooleanField(
                default=False,
                help_text="kept from before guidelines had a task and language; shown to no one"
                " but admins",
            ),
        ),
        migrations.RunPython(drop_first_constraint_where_applied, migrations.RunPython.noop),
        migrations.RunPython(archive_all_but_one_per_task_and_language, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="guideline",
            constraint=models.UniqueConstraint(
                fields=("task", "language"),
                condition=models.Q(archived=False),
                name="unique_live_guideline_task_language",
            ),
        ),
    ]
