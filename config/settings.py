"""Settings, 12-factor style: every knob comes from the environment (see config/env.py).

Defaults give the quick start: SQLite under var/, Celery tasks run in-process, DEBUG on.
`DATABASE_URL` and `REDIS_URL` switch to PostgreSQL and a Redis-backed Celery; with
`DJANGO_DEBUG=0` the security settings below make `manage.py check --deploy` clean.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.env import database_from_url, env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("GEC_VAR_DIR", str(BASE_DIR / "var")))

# Nothing in this product may reach a model hub: models load from configured local paths.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DEBUG = env_bool("DJANGO_DEBUG", True)
_DEV_SECRET_KEY = "dev-only-insecure-key-change-me-for-production-0123456789abcdef"
SECRET_KEY = env_str("DJANGO_SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG=0")
ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # ReDoc served by the app, pinned (no CDN)
    "csp",
    "axes",  # login throttling (django-axes): see "Logins" below
    "core",
    "datasets",
    "annotate",
    "review",
    "judgments",
    "scoring",
    "publishing",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.RequestLogMiddleware",
    "core.middleware.ServiceErrorMiddleware",
    "core.middleware.NullCharacterMiddleware",
    # Last: turns a login refused by the throttle into the lockout answer (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.roles",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            # WAL + IMMEDIATE transactions: concurrent writers wait instead of failing.
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file (not in-memory) test database, so that tests with several writers at
            # once (threads, the live server) see the same WAL database production uses.
            "TEST": {"NAME": str(VAR_DIR / "test-db.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "core.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# --- Logins: throttling and API tokens (docs/operations.md, "Logins") ----------------------
# The throttle backend refuses a locked-out login before any password is hashed; it must
# come first. django-axes records failures in the database (AccessAttempt rows), so every
# web worker sees the same counts.
AUTHENTICATION_BACKENDS = [
    "core.login_throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("GEC_LOGIN_THROTTLE", True)
# GEC_LOGIN_FAILURE_LIMIT failed logins for one username, or from one client address, lock
# logins for that username or from that address until GEC_LOGIN_LOCKOUT_MINUTES have passed
# since the last counted failure. Attempts during a lockout are refused without a password
# check and do not extend it; a success does not wipe the count (an attacker's own account
# must not reset an address's failures).
AXES_FAILURE_LIMIT = env_int("GEC_LOGIN_FAILURE_LIMIT", 10)
GEC_LOGIN_LOCKOUT_MINUTES = env_int("GEC_LOGIN_LOCKOUT_MINUTES", 15)
if AXES_FAILURE_LIMIT < 1 or GEC_LOGIN_LOCKOUT_MINUTES < 1:
    raise ImproperlyConfigured(
        "GEC_LOGIN_FAILURE_LIMIT and GEC_LOGIN_LOCKOUT_MINUTES must be at least 1 "
        "(GEC_LOGIN_THROTTLE=0 turns the throttle off)"
    )
AXES_COOLOFF_TIME = timedelta(minutes=GEC_LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = False
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_DISABLE_ACCESS_LOG = True  # successful logins are not recorded row by row
AXES_CLIENT_IP_CALLABLE = "core.login_throttle.client_address"
AXES_USERNAME_CALLABLE = "core.login_throttle.attempted_username"
AXES_LOCKOUT_CALLABLE = "core.login_throttle.lockout_response"
AXES_VERBOSE = False
# Reverse proxies in front of the web server that append the client to X-Forwarded-For; 0
# means clients connect directly and REMOTE_ADDR is the client.
GEC_TRUSTED_PROXY_COUNT = env_int("GEC_TRUSTED_PROXY_COUNT", 0)
# An API token (POST /api/auth/token/) is refused with 401 this many hours after it was
# issued; asking for a token again then issues a new one.
GEC_API_TOKEN_HOURS = env_int("GEC_API_TOKEN_HOURS", 24 * 14)
if GEC_API_TOKEN_HOURS < 1:
    raise ImproperlyConfigured("GEC_API_TOKEN_HOURS must be at least 1 (hours a token lives)")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static and uploaded files -----------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
MEDIA_ROOT = Path(env_str("DJANGO_MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if env_bool("DJANGO_STATIC_MANIFEST", not DEBUG)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
# Limits of the one bounded reader every uploaded file goes through (core/uploads.py,
# gecscore/src/gecscore/boundedio.py): the file as uploaded (compressed when gzipped), its content
# decompressed (read as a stream, stopping at the limit), its lines and one line's length;
# XML nesting depth. An upload above one is refused (413) with the setting's name.
GEC_MAX_UPLOAD_BYTES = env_int("GEC_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
GEC_MAX_UPLOAD_DECOMPRESSED_BYTES = env_int("GEC_MAX_UPLOAD_DECOMPRESSED_BYTES", 200 * 1024 * 1024)
GEC_MAX_UPLOAD_LINES = env_int("GEC_MAX_UPLOAD_LINES", 5_000_000)
GEC_MAX_UPLOAD_LINE_BYTES = env_int("GEC_MAX_UPLOAD_LINE_BYTES", 1024 * 1024)
# Human system-score files (meta-evaluation) and Appraise XML are small: tighter bounds.
GEC_MAX_HUMAN_SCORES_BYTES = env_int("GEC_MAX_HUMAN_SCORES_BYTES", 5 * 1024 * 1024)
GEC_MAX_JUDGMENTS_XML_BYTES = env_int("GEC_MAX_JUDGMENTS_XML_BYTES", 50 * 1024 * 1024)
GEC_MAX_XML_DEPTH = env_int("GEC_MAX_XML_DEPTH", 16)
# The one maximum sentence length (characters) at import, in the annotation box, in the
# APIs and in system uploads (datasets.textrules).
GEC_MAX_SENTENCE_CHARS = env_int("GEC_MAX_SENTENCE_CHARS", 5000)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
# Human-judgment campaign results (judgments/results.py): computed by a background job,
# stored and served from storage. A request past one of these bounds is refused with a 400
# that names the setting; the job checks them before it expands a single pairwise
# comparison, so its memory is bounded whatever was imported (docs/judgments.md).
GEC_RESULTS_MAX_RUNS = env_int("GEC_RESULTS_MAX_RUNS", 10_000)  # TrueSkill runs
# ESA judging: the longest pause between two actions that counts in full toward an item's
# time (a longer one counts as this many seconds; docs/judgments.md "ESA for GEC").
GEC_ESA_IDLE_SECONDS = env_int("GEC_ESA_IDLE_SECONDS", 120)
GEC_RESULTS_MAX_BOOTSTRAP = env_int("GEC_RESULTS_MAX_BOOTSTRAP", 2000)  # EW resamples
GEC_RESULTS_MAX_ITEMS = env_int("GEC_RESULTS_MAX_ITEMS", 100_000)  # judged items per campaign
GEC_RESULTS_MAX_SYSTEMS_PER_ITEM = env_int("GEC_RESULTS_MAX_SYSTEMS_PER_ITEM", 100)
GEC_RESULTS_MAX_SYSTEMS = env_int("GEC_RESULTS_MAX_SYSTEMS", 500)  # systems per campaign
GEC_RESULTS_MAX_COMPARISONS = env_int("GEC_RESULTS_MAX_COMPARISONS", 1_000_000)  # pairwise
# Parameter sets kept per campaign (the oldest other sets go first) and computations queued
# or running at once per campaign (one more is refused with a 429 naming this setting).
GEC_RESULTS_KEEP = env_int("GEC_RESULTS_KEEP", 20)
GEC_RESULTS_MAX_QUEUED = env_int("GEC_RESULTS_MAX_QUEUED", 3)

# --- Security (production) ----------------------------------------------------------------
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "core.api_auth.ExpiringTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GEC platform API",
    "DESCRIPTION": "Build multi-reference GEC datasets; score annotators and systems.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # An annotation assignment's status appears in two components (the assignment, and the
    # assignment as its annotator opens it); named here, the schema keeps a readable enum name
    # instead of a hash ("Status09fEnum"), and `check --deploy` stays clean.
    "ENUM_NAME_OVERRIDES": {"AnnotationAssignmentStatusEnum": "annotate.models.AssignmentStatus"},
    # /api/docs/ renders offline: ReDoc from drf-spectacular-sidecar, served by whitenoise.
    "REDOC_DIST": "SIDECAR",
}

# --- Content-Security-Policy (django-csp) -----------------------------------------------
# Scripts and styles come from the app only: templates carry no inline <script>, style=""
# or <style> (JSON data goes in <script type="application/json">, which is never run). The
# API docs page alone adds what ReDoc needs (core.views.ApiDocsView).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'self'"],
    }
}

# --- Celery -----------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
# Without a broker the quick start runs every task in-process, synchronously. The test suite
# on Redis sets CELERY_TASK_ALWAYS_EAGER=1 and sends only the worker tests to a real worker.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
# Delivery (docs/operations.md, "Background jobs and faults"): a message is acknowledged
# after its task ends (acks_late), and a task whose pool child died is re-queued
# (reject_on_worker_lost); when the whole worker dies, Redis hands unacknowledged messages
# out again after `visibility_timeout`. Re-delivery is safe: a task first claims its job row
# (core.jobs.run_claimed) and does nothing for a job that is finished or running elsewhere.
# A running job holds a lease its worker renews; the sweeper fails a job whose lease ran out
# as retryable, so no job shows "running" without a live worker for longer than the lease.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
GEC_JOB_LEASE_SECONDS = env_int("GEC_JOB_LEASE_SECONDS", 60)
GEC_JOB_RETRY_HOURS = env_int("GEC_JOB_RETRY_HOURS", 24)
# Test-only, unset in every deployment: a worker started with GEC_TEST_HOLD_AT_DONE=N and
# GEC_TEST_HOLD_DIR=<folder> stops each job at its first progress report of N or more units
# done, writes <folder>/job-<id> and waits there (at most GEC_TEST_HOLD_SECONDS), so the fault
# tests kill it at a known point inside the work instead of after a guessed sleep.
GEC_TEST_HOLD_AT_DONE = env_int("GEC_TEST_HOLD_AT_DONE", 0)
GEC_TEST_HOLD_DIR = env_str("GEC_TEST_HOLD_DIR")
GEC_TEST_HOLD_SECONDS = env_int("GEC_TEST_HOLD_SECONDS", 120)
# Seconds a web request waits for the broker before answering 503 (nothing changed): every
# socket operation on the broker is bounded by it in both directions (connect, send, read),
# and core.jobs.publish stops kombu's retries once one wait has run out. A closed port, a
# frozen Redis (SIGSTOP, a stalled host) and an overloaded one all end the same way.
GEC_BROKER_TIMEOUT = float(env_str("GEC_BROKER_TIMEOUT", "3"))
# Seconds a worker waits for the job row of a message that arrived before its request
# committed (core.job_leases.claim_job); a message whose request rolled back (the broker
# timed out after the message reached it) finds no row and is dropped after this wait.
GEC_JOB_ROW_WAIT_SECONDS = float(env_str("GEC_JOB_ROW_WAIT_SECONDS", "15"))
CELERY_BROKER_CONNECTION_TIMEOUT = GEC_BROKER_TIMEOUT
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("GEC_VISIBILITY_TIMEOUT", 600),
    # kombu looks for unacknowledged messages older than visibility_timeout every 10 s but,
    # by default, scans only every 10th time (100 s); one cheap scan per 10 s hands a dead
    # worker's messages out within visibility_timeout + 10 s.
    "unacked_restore_throttle": 1,
    # The scan runs under a Redis lock (kombu's `unacked_mutex`) that expires after 300 s by
    # default: a worker killed during a scan (milliseconds, every 10 s) left it held and no
    # worker handed out a dead worker's messages for 5 minutes (seen in the fault suite).
    # A scan takes milliseconds; two overlapping ones after an early expiry could at worst
    # deliver a message twice, which the job claim makes harmless.
    "unacked_mutex_expire": env_int("GEC_UNACKED_MUTEX_SECONDS", 20),
    "socket_connect_timeout": GEC_BROKER_TIMEOUT,
    # Without it a frozen Redis (accepts TCP, never answers) held a request for minutes.
    "socket_timeout": GEC_BROKER_TIMEOUT,
    # A long-lived worker connection to a vanished host is noticed by TCP keepalive too.
    "socket_keepalive": True,
    "retry_on_timeout": False,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# Jobs report through the database, not the result backend: a queued task does not
# subscribe to a result, so a dead result store cannot hold a web request. The tasks whose
# results are read (the M2 export's chord parts, the ping check) opt in.
CELERY_TASK_IGNORE_RESULT = True
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = GEC_BROKER_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = max(GEC_BROKER_TIMEOUT, 5.0)
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
}
# The sweeper also runs on every read of a job; beat (`celery -A config beat`) is the backstop.
CELERY_BEAT_SCHEDULE = {
    "sweep-expired-jobs": {"task": "core.sweep_expired_jobs", "schedule": 30.0},
}
CELERY_TASK_DEFAULT_QUEUE = "default"
# Model-backed (BERTScore) work goes to the gpu queue, named by the task's `gpu_` prefix.
CELERY_TASK_ROUTES = {"*.gpu_*": {"queue": "gpu"}}
# One message per process at a time: jobs are long, and a prefetched message would wait
# behind a long job (and, unacknowledged, be handed out again after visibility_timeout).
CELERY_WORKER_PREFETCH_MULTIPLIER = env_int("CELERY_WORKER_PREFETCH_MULTIPLIER", 1)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Caches -----------------------------------------------------------------------------
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # A dead cache must fail fast: its readers fall back to computing (core.cache).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# --- GEC scoring ------------------------------------------------------------------------
# ChERRANT's `data/` folder (cilin.txt + confusion_dict.txt) for official-compatible numbers;
# empty means the library's documented default resources.
GEC_CHERRANT_RESOURCES = env_str("GEC_CHERRANT_RESOURCES")
# Web and worker processes load the English spaCy model (ERRANT) in a background thread at
# start when an English dataset exists (datasets/warmup.py; docs/operations.md). 0 turns it off.
GEC_WARM_ENGLISH_MODEL = env_bool("GEC_WARM_ENGLISH_MODEL", True)
# Until an English dataset exists, each process's warm-up thread asks again this often (one
# small query), so a dataset imported into a running deployment warms every process. 0: once.
GEC_WARM_ENGLISH_POLL_SECONDS = env_float("GEC_WARM_ENGLISH_POLL_SECONDS", 15.0)
# Local path (or installed package name) of the model used for BERTScore edit weights.
GEC_BERT_MODEL = env_str("GEC_BERT_MODEL")
# The same for English releases (PT-M2 on the MaxMatch lattice); a Chinese BERT never weighs
# English edits, so English has its own setting.
GEC_BERT_MODEL_EN = env_str("GEC_BERT_MODEL_EN")
# The BERT layer BERTScore reads; 0 = bert-score's default table (known model names only;
# a local MiniLM folder needs it, e.g. 6).
GEC_BERT_LAYERS = env_int("GEC_BERT_LAYERS", 0) or None
GEC_BERT_BATCH_SIZE = env_int("GEC_BERT_BATCH_SIZE", 64)
# Where the gpu queue runs the model: auto (cuda when the worker sees a GPU, else cpu), cpu or
# cuda (cuda on a worker without a GPU fails the job with a message saying so).
GEC_BERT_DEVICE = env_str("GEC_BERT_DEVICE", "auto")
# fp16 forward passes on cuda, opt-in; the score's signature states the measured weight error.
GEC_BERT_FP16 = env_bool("GEC_BERT_FP16", False)
# Reference-free metrics (scoring/services/reffree.py), offered when every model of one is set:
# local folders (config.json, weights, tokenizer); see docs/metrics/reference-free.md.
GEC_SOME_MODEL_G = env_str("GEC_SOME_MODEL_G")
GEC_SOME_MODEL_F = env_str("GEC_SOME_MODEL_F")
GEC_SOME_MODEL_M = env_str("GEC_SOME_MODEL_M")
GEC_IMPARA_MODEL_QE = env_str("GEC_IMPARA_MODEL_QE")
GEC_IMPARA_MODEL_SE = env_str("GEC_IMPARA_MODEL_SE")
GEC_SCRIBENDI_MODEL = env_str("GEC_SCRIBENDI_MODEL")
# The LLM (core/llm.py: judges, suggested corrections, closest-gold proposals): GEC_LLM_URL,
# an OpenAI-compatible endpoint the operator runs (vLLM, llama.cpp, Ollama; base URL ending in
# /v1) with GEC_LLM_MODEL the model name it serves, or GEC_LLM_MODEL alone, a local Hugging Face causal LM folder.
GEC_LLM_URL = env_str("GEC_LLM_URL")
GEC_LLM_MODEL = env_str("GEC_LLM_MODEL")
GEC_LLM_API_KEY = env_str("GEC_LLM_API_KEY")
# Seconds per request, all of it: connect, headers and body (a server that drips is cut off).
GEC_LLM_TIMEOUT = env_float("GEC_LLM_TIMEOUT", 60.0)
# An answer larger than this is an error, read no further (a chat answer is a few KB at most).
GEC_LLM_MAX_RESPONSE_BYTES = env_int("GEC_LLM_MAX_RESPONSE_BYTES", 1 << 20)
GEC_LLM_CONCURRENCY = env_int("GEC_LLM_CONCURRENCY", 4)
# A request that fails (connection, timeout, HTTP 429/5xx) is sent again GEC_LLM_RETRIES times,
# the first after GEC_LLM_RETRY_WAIT seconds, each wait twice the last (1 + 2 + 4 s by default).
# The first request that still fails ends the run: the prompts not yet asked are not asked.
GEC_LLM_RETRIES = env_int("GEC_LLM_RETRIES", 3)
GEC_LLM_RETRY_WAIT = env_float("GEC_LLM_RETRY_WAIT", 1.0)
GEC_WEIGHT_CACHE_DIR = Path(env_str("GEC_WEIGHT_CACHE_DIR", str(VAR_DIR / "weights-cache")))

# --- Logging: one JSON object per line ------------------------------------------------------
LOG_LEVEL = env_str("DJANGO_LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.server": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "jieba": {"level": "WARNING"},
    },
}
