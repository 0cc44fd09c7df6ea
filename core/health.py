"""Checks behind /healthz: can we reach the database and the task broker?"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection


def database_status() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means "down", reported, not raised
        return {"ok": False, "vendor": connection.vendor, "error": str(error)}
    return {"ok": True, "vendor": connection.vendor}


def broker_status() -> dict[str, Any]:
    if not settings.REDIS_URL:
        return {"ok": True, "mode": "in-process"}
    import redis  # lazy: only deployments with a broker need the client

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2
        )
        client.ping()
    except Exception as error:
        return {"ok": False, "mode": "redis", "error": str(error)}
    return {"ok": True, "mode": "redis"}


def health_report(*, detailed: bool) -> tuple[dict[str, Any], int]:
    """The /healthz answer and its status code. Anonymous callers (a load balancer) learn
    only whether the service is healthy; the database engine, broker mode and error text are
    for platform admins (they help an attacker more than a load balancer)."""
    database = database_status()
    broker = broker_status()
    healthy = bool(database["ok"] and broker["ok"])
    body: dict[str, Any] = {"status": "ok" if healthy else "error"}
    if detailed:
        body.update(database=database, broker=broker)
    else:
        body.update(database={"ok": database["ok"]}, broker={"ok": broker["ok"]})
    return body, 200 if healthy else 503
