"""Shared set-up of the benchmarks that time Django services: a fresh quick-start database.

The benchmark runs on the embedded default (SQLite in a temporary folder, tasks in-process),
with ChERRANT's resources from the shared ground-truth folder, so its numbers do not depend
on whatever database or broker the caller's environment names.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def setup_quickstart_django(data: Path, *, prefix: str) -> str:
    """Point Django at a new SQLite database under a temporary folder, migrate it, and
    return that folder."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    os.environ["GEC_VAR_DIR"] = workdir
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["GEC_CHERRANT_RESOURCES"] = str(data / "cherrant-resources")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return workdir
