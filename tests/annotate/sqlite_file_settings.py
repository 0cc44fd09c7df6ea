"""Settings for running the concurrency tests on SQLite: a file test database (the default
in-memory one cannot hold two writers). Use:

    .venv/bin/pytest tests/annotate/test_concurrency.py --ds tests.annotate.sqlite_file_settings
"""

from config.settings import *  # noqa: F403
from config.settings import DATABASES, VAR_DIR

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-concurrency.sqlite3")}
