from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Users, roles, audit log"

    def ready(self) -> None:
        from axes.signals import user_locked_out
        from django.db.models.signals import post_save

        from core import receivers
        from core.models import User

        post_save.connect(
            receivers.superuser_holds_admin_role, sender=User, dispatch_uid="core-superuser-role"
        )
        user_locked_out.connect(receivers.audit_lockout, dispatch_uid="core-audit-lockout")
