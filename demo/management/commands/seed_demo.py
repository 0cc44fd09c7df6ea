"""Seed the quick-start demo: users with printed passwords and a small Chinese dataset.

Safe to run again: existing users and the demo dataset are left as they are. With
DJANGO_DEBUG=0 it refuses unless --allow-demo-accounts is given: the demo's passwords are
published, and one of its accounts is a superuser.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from core.models import User
from core.roles import Role
from core.services import create_user
from demo.seed import seed_demo_dataset

DEMO_USERS: list[tuple[str, tuple[Role, ...]]] = [
    ("annotator1", (Role.ANNOTATOR,)),
    ("annotator2", (Role.ANNOTATOR,)),
    ("annotator3", (Role.ANNOTATOR,)),
    ("reviewer", (Role.REVIEWER,)),
    ("admin", (Role.ADMIN,)),
]
DEMO_DATASET = "demo-zh"
DEMO_FILE = Path(__file__).resolve().parents[2] / "demo_zh.tsv"


def demo_password(username: str) -> str:
    return f"{username}-demo"


class Command(BaseCommand):
    help = "Create demo users (annotator1..3, reviewer, admin) and the demo dataset."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--allow-demo-accounts",
            action="store_true",
            help="create the demo accounts even with DJANGO_DEBUG=0 (their passwords are public)",
        )

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["allow_demo_accounts"]:
            raise CommandError(
                "refusing to seed the demo with DJANGO_DEBUG=0: it creates accounts whose "
                "passwords are printed in the docs, the superuser 'admin' (password "
                f"{demo_password('admin')!r}) among them. Create the first admin with "
                "'manage.py createsuperuser' (docs/operations.md), or pass "
                "--allow-demo-accounts to seed the demo anyway."
            )
        for username, roles in DEMO_USERS:
            if User.objects.filter(username=username).exists():
                continue
            create_user(
                username=username,
                password=demo_password(username),
                roles=roles,
                is_superuser=Role.ADMIN in roles,
            )
        admin = User.objects.get(username="admin")
        dataset_created = seed_demo_dataset(name=DEMO_DATASET, path=DEMO_FILE, admin=admin)
        # `make run` serves on $(HOST):$(PORT) and passes both here, so the address printed is
        # the one the server listens on.
        host = os.environ.get("HOST", "127.0.0.1")
        port = os.environ.get("PORT", "8000")
        self.stdout.write(self.style.SUCCESS(f"Demo ready. Log in at http://{host}:{port} as:"))
        for username, roles in DEMO_USERS:
            role_names = ", ".join(r.value for r in roles)
            self.stdout.write(
                f"  {username:<11} password {demo_password(username):<16} ({role_names})"
            )
        state = "created" if dataset_created else "already present"
        self.stdout.write(f"Demo dataset {DEMO_DATASET!r}: {state}.")
