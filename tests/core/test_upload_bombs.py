"""Every upload path refuses a gzip bomb and an XML bomb fast, in bounded memory.

Reported before the one bounded reader (core/uploads.py, gecscore/src/gecscore/boundedio.py): a 1 MB
``.txt.gz`` of newlines (1 GB decompressed) took a worker to 5.4 GB and a MemoryError on the
human-score upload (``gzip.decompress`` in scorefiles._read_text and human._first_line), and
a 58 KB ``.xml.gz`` of 20 million nested elements to 5.5 GB for 70 s on the Appraise import.
Each case posts one bomb to one path and measures the answer's time and the process's
resident memory while it is served (sampled from /proc every 2 ms by a thread).
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from core.models import BackgroundJob
from core.roles import Role
from judgments.models import Campaign
from publishing.models import ReferenceFile
from scoring.models import HumanSystemScores, SystemOutput
from tests.factories import make_user
from tests.judgments.factories import make_release

pytestmark = pytest.mark.django_db

SECONDS = 5.0
RSS_GROWTH = 200 * 1024 * 1024
PAGE = 4096


def _gzip(*pieces: bytes, times: int) -> bytes:
    """gzip of (pieces joined) * times: one gzip member repeated (a multi-member file, as
    `cat a.gz b.gz` makes; every gzip reader reads them all), so it is built at once."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = b"".join(packer.compress(p) for p in pieces) + packer.flush()
    return member * times


@cache
def bomb(kind: str) -> tuple[str, bytes]:
    """(file name, bytes) of each bomb."""
    mib = 1024 * 1024
    if kind == "newlines":  # the reported file: ~1 MB of gzip, 1 GiB of newlines
        return "scores.txt.gz", _gzip(b"\n" * mib, times=1024)
    if kind == "zeros":  # 1 GiB without one line end
        return "scores.txt.gz", _gzip(b"\0" * mib, times=1024)
    # 20 million nested elements, as reported: <a><a>...</a></a>, ~140 MB of XML
    nested = 20_000_000
    opened = _gzip(b"<a>" * 1_000_000, times=nested // 1_000_000)
    closed = _gzip(b"</a>" * 1_000_000, times=nested // 1_000_000)
    return "judgments.xml.gz", opened + closed


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * PAGE


@contextmanager
def peak_rss_growth() -> Iterator[list[int]]:
    """[growth in bytes] of the resident memory above its level at entry, sampled."""
    start = _rss()
    peak = [start]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _rss())
            time.sleep(0.002)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    growth = [0]
    try:
        yield growth
    finally:
        stop.set()
        sampler.join()
        growth[0] = max(peak[0], _rss()) - start


@dataclass(frozen=True)
class Path_:
    """One upload path: how to post a file to it, and what must not exist afterwards."""

    name: str
    post: Callable[[Client, Any, SimpleUploadedFile], Any]
    page: bool  # a page answers with its error page (HTML), an API with JSON; both a 4xx
    nothing_stored: Callable[[], bool]


def _post_dataset_api(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    body = {"name": "bomb", "format": "text", "files": [upload]}
    return client.post(reverse("datasets:api-import"), body)


def _post_dataset_page(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    body = {"name": "bomb", "format": "text", "files": [upload]}
    return client.post(reverse("datasets:import"), body)


def _post_system_api(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    body = {"dataset": release.dataset.name, "name": "bomb", "file": upload}
    return client.post(reverse("scoring:api-systems"), body)


def _post_system_page(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    return client.post(
        reverse("scoring:upload", args=[release.pk]), {"name": "bomb", "file": upload}
    )


def _post_human_api(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    url = reverse("scoring:api-human-scores", args=[release.pk])
    return client.post(url, {"name": "bomb", "file": upload})


def _post_human_page(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    url = reverse("scoring:meta-human-upload", args=[release.pk])
    return client.post(url, {"name": "bomb", "file": upload})


def _post_appraise_api(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    return client.post(reverse("api-judgment-import"), {"campaign": "bomb", "file": upload})


def _post_reference_file_api(client: Client, release: Any, upload: SimpleUploadedFile) -> Any:
    return client.post(reverse("publishing:api-reference-files"), {"name": "bomb", "file": upload})


PATHS = [
    Path_(
        "dataset import API", _post_dataset_api, False, lambda: not BackgroundJob.objects.exists()
    ),
    Path_(
        "dataset import page", _post_dataset_page, False, lambda: not BackgroundJob.objects.exists()
    ),
    Path_("system output API", _post_system_api, False, lambda: not SystemOutput.objects.exists()),
    Path_("system output page", _post_system_page, True, lambda: not SystemOutput.objects.exists()),
    Path_(
        "human scores API", _post_human_api, False, lambda: not HumanSystemScores.objects.exists()
    ),
    Path_(
        "human scores page", _post_human_page, True, lambda: not HumanSystemScores.objects.exists()
    ),
    Path_(
        "Appraise XML API",
        _post_appraise_api,
        False,
        lambda: not Campaign.objects.exists() and not BackgroundJob.objects.exists(),
    ),
    Path_(
        "release reference file API",
        _post_reference_file_api,
        False,
        lambda: not ReferenceFile.objects.exists(),
    ),
]


@pytest.fixture
def admin(settings: Any, tmp_path: Path) -> Client:
    settings.MEDIA_ROOT = tmp_path / "media"
    user = make_user(Role.ADMIN, username="bomb-admin")
    client = Client()
    client.force_login(user)
    reverse("datasets:import")  # loads the URLconf and the views before any timing
    return client


def _error_text(client: Client, response: Any) -> str:
    if response.status_code == 302:
        return " ".join(str(m) for m in get_messages(response.wsgi_request))
    if response.get("Content-Type", "").startswith("application/json"):
        return str(response.json().get("detail", ""))
    return response.content.decode(errors="replace")


@pytest.mark.parametrize("kind", ["newlines", "zeros", "nested-xml"])
@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_a_bomb_is_refused_fast_in_bounded_memory(admin: Client, path: Path_, kind: str) -> None:
    needs_release = path.name.startswith(("system", "human"))
    release = make_release(["他去学校。", "我很好。"]) if needs_release else None
    name, data = bomb(kind)
    upload = SimpleUploadedFile(name, data, content_type="application/gzip")
    started = time.monotonic()
    with peak_rss_growth() as growth:
        response = path.post(admin, release, upload)
    elapsed = time.monotonic() - started
    text = _error_text(admin, response)
    print(
        f"{path.name} / {kind}: {response.status_code} in {elapsed:.2f} s, RSS +{growth[0] / 2**20:.0f} MiB"
    )
    # the error names the file and what was wrong (a limit and its setting, or the XML)
    assert name in text, text[:300]
    if path.name.startswith("system output") and "GEC_MAX_" not in text:
        # A system output is parsed as it streams: the bomb's first line is already no
        # hypothesis (an empty line, or no text at all), so it is refused there, before
        # any limit is reached; the page shows the error on the release page it returns to.
        assert response.status_code == (302 if path.page else 400), (response.status_code, text)
        assert "line 1: empty hypothesis" in text or "not text" in text, text[:300]
    else:
        assert 400 <= response.status_code < 500, (response.status_code, text[:300])
        assert "GEC_MAX_" in text or "malformed XML" in text, text[:300]
    assert elapsed < SECONDS, f"{path.name}: {elapsed:.1f} s"
    assert growth[0] < RSS_GROWTH, f"{path.name}: RSS grew {growth[0] / 2**20:.0f} MiB"
    assert path.nothing_stored()
