"""The web entry point (gunicorn workers, `runserver`). Each web process loads the English
model in the background when the platform has an English dataset (datasets/warmup.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()


# After the application (the apps are ready): start-up does not wait for the thread.
from datasets.warmup import start_english_warmup  # noqa: E402

start_english_warmup("web")
