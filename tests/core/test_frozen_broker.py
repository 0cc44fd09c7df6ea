"""A frozen broker: Redis accepts TCP and never answers (SIGSTOP). Every request
that starts a job answers within GEC_BROKER_TIMEOUT + 1 s, leaves no job, and nothing runs
when Redis resumes, even the messages that reached Redis's socket before it froze and are
taken after SIGCONT: their requests rolled back, so a real worker finds no job to claim
(core.job_leases.claim_job) or a failed one it leaves alone.

The twin of test_faults.py::test_dead_broker_answers_503_fast_and_changes_nothing (a closed
port). Here the test starts its own `redis-server` on a free port and freezes it.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from core.jobs import start_job
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.models import Dataset, DatasetVersion
from scoring import services as scoring
from scoring.models import MetaEvaluation, ScoreStatus, SystemOutput, SystemScore
from scoring.services import meta
from scoring.services.annotators import JOB_KIND_ANNOTATORS
from tests.core.faultkit import (
    REPO_ROOT,
    Worker,
    mucgec_lines,
    released,
    run_client_script,
    wait_for,
)
from tests.factories import make_user

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

BROKER_TIMEOUT = 2.0
QUEUES = ("default", "gpu")


class FrozenRedis:
    """A redis-server of this test's own, on a free port, that the test may freeze."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        import redis

        self.client = redis.Redis.from_url(self.url, socket_timeout=5)
        wait_for(self._answers, timeout=20, what="redis-server to answer")

    def _answers(self) -> bool:
        try:
            return bool(self.client.ping())
        except Exception:
            return False

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def queued(self) -> int:
        """Messages waiting in the worker queues or taken and not yet acknowledged."""
        return sum(self.client.llen(q) for q in QUEUES) + self.client.hlen("unacked")

    def stop(self) -> None:
        self.resume()
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def frozen_redis() -> Iterator[FrozenRedis]:
    server = FrozenRedis()
    yield server
    server.stop()


# Before each request: Redis resumes, the process publishes once (its pooled connection is
# then open and healthy, as in a web worker that served requests before), Redis freezes. The
# request's publish is then written to that connection's socket and read back never: the
# hard case, where the message reaches Redis after SIGCONT. "cold" requests start with no
# open connection instead (connect succeeds, the first command hangs).
FROZEN_SCRIPT = r"""
import signal
from django.contrib.messages import get_messages
from config.celery import app

redis_pid = int(os.environ["FROZEN_REDIS_PID"])
# One ping to each worker queue: kombu declares a queue (a Redis command) at its first
# publish; declared now, a frozen request's first command is the message's LPUSH itself.
for queue in ("default", "gpu"):
    app.send_task("core.ping", queue=queue)

def frozen(name, method, path, warm=True, **kwargs):
    if warm:
        os.kill(redis_pid, signal.SIGCONT)
        app.send_task("core.ping", queue="gpu" if "weighted" in name else "default")
    os.kill(redis_pid, signal.SIGSTOP)
    response = timed(name, method, path, **kwargs)
    results[name]["messages"] = [str(m) for m in get_messages(response.wsgi_request)]

system, ds, release, version = args["system"], args["dataset"], args["release"], args["version"]
json_post = {"content_type": "application/json"}
# More warming: a first upload loads the edit extractor (3 s at load 9, none of it the
# broker's), so one is made while Redis answers, scored in-process (`wait`: no message).
client.get(f"/api/scoring/systems/{system}/")
# And the meta-evaluation's first use (its metric catalogue and imports, none of it the
# broker's: that first request took 3.12 s at load 10, over the 3 s bound), the way a web
# worker has served that page before.
assert client.get(f"/scoring/releases/{version}/meta/").status_code == 200
with open(args["upload"], "rb") as handle:
    response = client.post("/api/scoring/systems/", data={
        "dataset": ds, "name": "warm-up", "file": handle, "format": "auto", "wait": "1"})
assert response.status_code == 201, response.content
frozen("score_api", "post", f"/api/scoring/systems/{system}/score/", warm=False)
frozen("rescore_page", "post", f"/scoring/systems/{system}/rescore/")
with open(args["upload"], "rb") as handle:
    frozen("upload_api", "post", "/api/scoring/systems/", data={
        "dataset": ds, "name": "new-sys", "file": handle, "format": "auto"})
with open(args["upload"], "rb") as handle:
    frozen("upload_page", "post", f"/scoring/releases/{version}/upload/", data={
        "name": "new-sys-page", "file": handle, "format": "auto"})
with open(args["import_file"], "rb") as handle:
    frozen("import_api", "post", "/datasets/api/import/", data={
        "name": "never-imported", "format": "mucgec", "files": handle})
with open(args["import_file"], "rb") as handle:
    frozen("import_page", "post", "/datasets/import/", data={
        "name": "never-imported-page", "format": "mucgec", "files": handle})
frozen("export_api", "post", f"/datasets/api/{ds}/exports/",
       data={"format": "m2", "release": release}, **json_post)
frozen("export_page", "post", f"/datasets/{ds}/export/", data={"format": "m2", "release": release})
frozen("release_api", "post", f"/datasets/api/{ds}/releases/", data={"note": "x"}, **json_post)
frozen("release_page", "post", f"/datasets/{ds}/release/", data={"note": "y"})
frozen("meta_api", "post", f"/api/scoring/releases/{version}/meta/",
       data={"metrics": ["f05"], "human_scores": args["human"], "bootstrap": 0}, **json_post)
frozen("meta_page", "post", f"/scoring/releases/{version}/meta/",
       data={"metrics": "f05", "human": f"upload:{args['human']}", "bootstrap": "0"})
frozen("weighted_page", "post", f"/scoring/systems/{system}/weighted/")
frozen("annotators_page", "post", f"/scoring/datasets/{args['dataset_id']}/annotators/")
frozen("retry_api", "post", f"/jobs/{args['failed_job']}/retry/", HTTP_ACCEPT="application/json")
frozen("retry_page", "post", f"/jobs/{args['failed_job']}/retry/")
os.kill(redis_pid, signal.SIGCONT)
"""
# Pages that show the form again with the message (a redirect) rather than a 503 page.
FORM_PAGES = {"upload_page", "export_page", "release_page", "meta_page"}
FORM_PAGES |= {"weighted_page", "retry_page"}
QUEUE_DOWN = "task queue cannot be reached"
WARM_UP = "warm-up"
PINGS = 2 + 15  # the script's: one per queue, one before each warm request


def _state() -> dict[str, Any]:
    """Everything a job could have made or changed."""
    media = Path(settings.MEDIA_ROOT)
    warm_up = SystemScore.objects.filter(system__name=WARM_UP).values("background_job_id")
    jobs = BackgroundJob.objects.exclude(pk__in=warm_up)
    return {
        "jobs": sorted(jobs.values_list("pk", "status", "done", "attempts")),
        "versions": DatasetVersion.objects.count(),
        "datasets": sorted(Dataset.objects.values_list("name", flat=True)),
        # (the script's own warm-up upload, scored in-process, is not the frozen requests')
        "systems": sorted(
            SystemOutput.objects.exclude(name=WARM_UP).values_list("name", flat=True)
        ),
        "scores": sorted(
            SystemScore.objects.exclude(system__name=WARM_UP).values_list(
                "pk", "status", "background_job_id"
            )
        ),
        "meta": MetaEvaluation.objects.count(),
        "files": sorted(str(p) for p in media.rglob("*") if p.is_file()) if media.exists() else [],
    }


def test_frozen_broker_answers_fast_queues_nothing_and_nothing_runs_after_it_resumes(  # type: ignore[no-untyped-def]
    frozen_redis, tmp_path
) -> None:
    admin = make_user(Role.ADMIN)
    version, references = released(40, seed=27)
    systems = []
    for index in range(3):
        hypotheses = references[index:] + references[:index]  # three different outputs
        system = scoring.upload_system_output(
            version=version,
            name=f"sys{index}",
            data=("\n".join(hypotheses) + "\n").encode(),
            file_name="s.txt",
            user=admin,
        )
        assert scoring.score_now(system=system, user=admin).status == ScoreStatus.DONE
        systems.append(system)
    human = meta.upload_human_scores(
        version=version,
        name="ew",
        data="".join(f"HUMAN\tzh\ttest\tsys{i}\t{0.5 - i / 4}\n" for i in range(3)).encode(),
        file_name="human.tsv",
        user=admin,
    )
    # A failed, retryable job: a late retry message must leave it failed.
    failed = start_job(kind=JOB_KIND_ANNOTATORS, user=admin, params={"dataset": version.dataset_id})
    BackgroundJob.objects.filter(pk=failed.pk).update(
        status=JobStatus.FAILED,
        retryable=True,
        task_name="scoring.rescore_annotator_dataset",
        task_args=[version.dataset_id, failed.pk, False],
    )
    upload = tmp_path / "other.txt"
    upload.write_text("\n".join(references) + "\n", encoding="utf-8")
    import_file = tmp_path / "import.txt"
    import_file.write_text("\n".join(mucgec_lines(5, seed=3)[0]) + "\n", encoding="utf-8")
    before = _state()

    results = run_client_script(
        FROZEN_SCRIPT,
        user=admin,
        args={
            "system": systems[0].pk,
            "dataset": version.dataset.name,
            "dataset_id": version.dataset_id,
            "release": version.number,
            "version": version.pk,
            "human": human.pk,
            "upload": str(upload),
            "import_file": str(import_file),
            "failed_job": failed.pk,
        },
        env={
            "REDIS_URL": frozen_redis.url,  # broker, results and cache: all frozen
            "GEC_BROKER_TIMEOUT": str(BROKER_TIMEOUT),
            "GEC_BERT_MODEL": "self",  # weighted scoring can be asked for
            "FROZEN_REDIS_PID": str(frozen_redis.process.pid),
        },
    )
    frozen_redis.resume()  # (the script resumed it too, unless it died half way)
    assert len(results) == 16, sorted(results)
    for name, result in results.items():
        assert result["seconds"] <= BROKER_TIMEOUT + 1, (name, result)
        if name in FORM_PAGES:
            assert result["status"] == 302, (name, result)
            assert any(QUEUE_DOWN in m for m in result["messages"]), (name, result)
        else:
            assert result["status"] == 503, (name, result)
            assert QUEUE_DOWN in result["body"], (name, result["body"][-1500:])
    assert _state() == before

    # The warm requests' messages were written before the freeze answered nothing: Redis
    # takes them now. A real worker on this Redis receives each and does nothing.
    messages = frozen_redis.client.lrange("default", 0, -1) + frozen_redis.client.lrange(
        "gpu", 0, -1
    )
    tasks = [json.loads(m)["headers"]["task"] for m in messages]
    seen_late = len(messages) - PINGS
    assert tasks.count("core.ping") == PINGS, tasks
    assert seen_late <= len(results), tasks
    log = REPO_ROOT / "artifacts" / "frozen-broker-worker.log"
    log.unlink(missing_ok=True)
    worker = Worker(
        ",".join(QUEUES),
        log,
        tmp_path,
        env={"REDIS_URL": frozen_redis.url, "GEC_JOB_ROW_WAIT_SECONDS": "1"},
    )
    worker.start()
    try:
        wait_for(
            lambda: frozen_redis.queued() == 0, timeout=120, what="the late messages", step=0.5
        )
    finally:
        worker.stop()
    text = log.read_text(encoding="utf-8")
    # The late messages are counted where the worker took them: Redis reads what the frozen
    # connections wrote only once it runs again, and at load 19 one of them was read after
    # the look above (34 received for 33 seen), so that look is a lower bound only.
    received = re.findall(r"Task ([\w.]+)\[([0-9a-f-]+)\] received", text)
    assert len({task_id for _, task_id in received}) == len(received), "delivered twice"
    assert [name for name, _ in received].count("core.ping") == PINGS, text[-3000:]
    late = len(received) - PINGS
    assert seen_late <= late, text[-3000:]
    # Every warm request's message reached Redis (the cold one's may have: its connection was
    # made before the freeze answered nothing).
    assert len(results) - 1 <= late <= len(results), text[-3000:]
    assert (
        text.count("not found: its request rolled back") + text.count("is failed: nothing to do")
        == late
    ), text[-3000:]
    time.sleep(1)
    assert _state() == before
