from django.db import migrations


def seed_guideline(apps, schema_editor):  # type: ignore[no-untyped-def]
    from annotate.guideline_seed import GUIDELINE_BODY, GUIDELINE_SLUG, GUIDELINE_TITLE

    Guideline = apps.get_model("review", "Guideline")
    Guideline.objects.get_or_create(
        slug=GUIDELINE_SLUG, defaults={"title": GUIDELINE_TITLE, "body": GUIDELINE_BODY}
    )


class Migration(migrations.Migration):
    dependencies = [("review", "0002_workflow")]
    operations = [migrations.RunPython(seed_guideline, migrations.RunPython.noop)]
