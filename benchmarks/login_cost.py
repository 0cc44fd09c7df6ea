"""What one login costs with the production password hasher, and how many hashes it takes.

    python benchmarks/login_cost.py [--repeat 7]

Runs on a fresh quick-start database (SQLite in a temporary folder) with Django's default
PBKDF2 hasher (the tests' fast MD5 hasher is not involved), through the real login page and
the API's token endpoint. It prints the median time of: one hash; a login with the right
password; one with a wrong password; one for an unknown username; an attempt refused by the
login throttle; and the hashes each took, with the load average before and after.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _quickstart_db import setup_quickstart_django  # noqa: E402

setup_quickstart_django(Path("unused"), prefix="gec-login-cost-")

from django.conf import settings  # noqa: E402
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password  # noqa: E402
from django.test import Client, override_settings  # noqa: E402

from core.roles import Role  # noqa: E402
from core.services import create_user  # noqa: E402

PASSWORD = "a-long-benchmark-password-1"


class CountingPBKDF2(PBKDF2PasswordHasher):
    """Django's production hasher, counting the hashes it computes."""

    calls = 0

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        CountingPBKDF2.calls += 1
        return super().encode(password, salt, iterations)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def timed(repeat: int, step: Callable[[int], object]) -> tuple[float, int]:
    """Median milliseconds of `step(n)` and the hashes one step took."""
    times = []
    CountingPBKDF2.calls = 0
    for n in range(repeat):
        start = time.perf_counter()
        step(n)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), CountingPBKDF2.calls


def main() -> None:
    logging.getLogger("django.request").setLevel(logging.ERROR)  # not a line per 429
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    hasher = "__main__.CountingPBKDF2"
    with override_settings(PASSWORD_HASHERS=[hasher], ALLOWED_HOSTS=["testserver"]):
        user = create_user(username="bench", password=PASSWORD, roles=[Role.ANNOTATOR])

        def post(url: str, username: str, password: str, address: str) -> int:
            response = Client(REMOTE_ADDR=address).post(
                url, {"username": username, "password": password}
            )
            return response.status_code

        print(f"load average before: {load()}")
        print(f"PBKDF2 iterations: {PBKDF2PasswordHasher.iterations}")
        rows = [
            ("one hash (make_password)", timed(repeat, lambda n: make_password(PASSWORD))),
            (
                "login page, right password",
                timed(repeat, lambda n: post("/accounts/login/", "bench", PASSWORD, f"10.1.0.{n}")),
            ),
            (
                "API token, right password",
                timed(repeat, lambda n: post("/api/auth/token/", "bench", PASSWORD, f"10.2.0.{n}")),
            ),
            (
                "login page, wrong password",
                timed(repeat, lambda n: post("/accounts/login/", "bench", "wrong", f"10.3.0.{n}")),
            ),
            (
                "login page, unknown username",
                timed(repeat, lambda n: post("/accounts/login/", f"x{n}", "wrong", f"10.4.0.{n}")),
            ),
        ]
        for _ in range(settings.AXES_FAILURE_LIMIT):
            post("/accounts/login/", user.username, "wrong", "10.5.0.1")
        rows.append(
            (
                "attempt refused by the throttle",
                timed(repeat, lambda n: post("/accounts/login/", "bench", PASSWORD, "10.5.0.1")),
            )
        )
        for label, (ms, hashes) in rows:
            print(f"{label:<34} {ms:8.1f} ms   hashes per attempt: {hashes / repeat:.0f}")
        print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
