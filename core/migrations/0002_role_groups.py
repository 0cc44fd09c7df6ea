"""Create the annotator / reviewer / admin groups with their permissions."""

from django.db import migrations

ROLE_PERMISSIONS = {
    "annotator": ["annotate_sentences"],
    "reviewer": ["review_sentences"],
    "admin": ["manage_platform", "review_sentences"],
}
PERMISSION_NAMES = {
    "annotate_sentences": "Can annotate assigned sentences",
    "review_sentences": "Can review merged corrections",
    "manage_platform": "Can manage datasets, users, exports and scoring",
}


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    user_type, _ = ContentType.objects.get_or_create(app_label="core", model="user")
    for group_name, codenames in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=group_name)
        for codename in codenames:
            permission, _ = Permission.objects.get_or_create(
                codename=codename,
                content_type=user_type,
                defaults={"name": PERMISSION_NAMES[codename]},
            )
            group.permissions.add(permission)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]
    operations = [migrations.RunPython(create_groups, remove_groups)]
