"""`manage.py publish_release` killed at each stage of writing its folder, by SIGKILL and by
SIGTERM, in a real subprocess: the folder asked for never exists half written (it appears
whole, by one rename, or not at all), what a killed run leaves is a hidden staging folder
that the next run removes, and the next run publishes.

Each kill happens at a known point, not after a sleep: the subprocess starts with
tests/publishing/stop_before/sitecustomize.py on its PYTHONPATH, which stops it (SIGSTOP)
just before a given file operation of the publish; the test sees it stopped, looks at what
is on disk, and kills it."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.exceptions import ServiceError
from datasets.models import DatasetVersion
from publishing import services, staging
from tests.manage_subprocess import (
    end_group,
    kill_stopped,
    manage_env,
    start_manage,
    wait_until_stopped,
)
from tests.publishing.test_publish import release_with_defects

pytestmark = pytest.mark.django_db(transaction=True)

TARGET = "published"


@dataclass(frozen=True)
class Stage:
    name: str
    stop_before: str  # "<audit event> <path glob>", read by stop_before/sitecustomize.py
    present: tuple[str, ...]  # in the staging folder when the process is stopped there
    absent: tuple[str, ...]


STAGES = [
    Stage("nothing written yet", "os.mkdir *.partial-*/formats", (), ("formats",)),
    Stage(
        "the export formats written",
        "os.mkdir *.partial-*/data",
        ("formats/learners-v1.m2", "formats/learners-v1.zip"),
        ("data",),
    ),
    Stage(
        "the Parquet files written",
        "os.mkdir *.partial-*/figures",
        ("data/train.parquet", "data/dev.parquet"),
        ("figures", "README.md"),
    ),
    Stage(
        "the figure written",
        "open *.partial-*/README.md",
        ("figures/reference_counts.svg",),
        ("README.md",),
    ),
    Stage(
        "README and data, without report, Croissant or checksums",
        "open *.partial-*/report.json",
        ("README.md", "data/train.parquet"),
        ("report.json", "croissant.json", "SHA256SUMS"),
    ),
    Stage(
        "the report written",
        "open *.partial-*/croissant.json",
        ("report.json",),
        ("croissant.json", "SHA256SUMS"),
    ),
    Stage("Croissant written", "open *.partial-*/SHA256SUMS", ("croissant.json",), ("SHA256SUMS",)),
    Stage("every file written, before the rename", f"os.rename */{TARGET}", ("SHA256SUMS",), ()),
]


@pytest.fixture
def release(tmp_path: Path) -> tuple[DatasetVersion, dict[str, str]]:
    """A release with its report (so each run only writes the folder), and the environment
    a `manage.py` subprocess reads the same rows with."""
    version = release_with_defects()
    services.compute_report(version=version)
    return version, manage_env(tmp_path)


def start_publish(
    version: DatasetVersion, env: dict[str, str], out: Path, log: Path, stop_before: str = ""
) -> subprocess.Popen[bytes]:
    args = ["publish_release", version.label, "-o", str(out)]
    return start_manage(args, env, log, stop_before=stop_before)


def leftovers(parent: Path) -> list[Path]:
    return sorted(parent.glob(f".{TARGET}{staging.STAGING_MARK}*"))


def assert_whole(folder: Path) -> None:
    check = subprocess.run(
        ["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=folder, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert {"README.md", "croissant.json", "report.json"} <= {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_publish_killed_at_any_stage_leaves_no_folder_and_a_rerun_publishes(
    release: tuple[DatasetVersion, dict[str, str]], tmp_path: Path, signum: signal.Signals
) -> None:
    version, env = release
    parent = tmp_path / "site"
    out = parent / TARGET
    for stage in STAGES:
        log = tmp_path / "publish.log"
        process = start_publish(version, env, out, log, stop_before=stage.stop_before)
        try:
            wait_until_stopped(process, log, stage.name)
            [partial] = leftovers(parent)  # a killed earlier run's folder was removed
            on_disk = {p.relative_to(partial).as_posix() for p in partial.rglob("*")}
            assert set(stage.present) <= on_disk, (stage.name, sorted(on_disk))
            assert not set(stage.absent) & on_disk, (stage.name, sorted(on_disk))
            kill_stopped(process, signum)
        finally:
            end_group(process)
        assert not out.exists(), stage.name
        # Nothing beside it looks like a release: at most the hidden staging folder.
        assert all(p.name.startswith(f".{TARGET}.partial-") for p in parent.iterdir()), stage.name
        if signum == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
            assert leftovers(parent) == [partial], stage.name
        else:
            assert process.returncode == 1, log.read_text()
            assert "stopped by SIGTERM" in log.read_text()
            assert leftovers(parent) == [], stage.name  # removed on the way out
    log = tmp_path / "rerun.log"
    rerun = start_publish(version, env, out, log)
    assert rerun.wait(timeout=300) == 0, log.read_text()
    assert_whole(out)
    assert leftovers(parent) == []


def test_a_running_publish_keeps_its_staging_folder_and_loses_the_race_cleanly(
    release: tuple[DatasetVersion, dict[str, str]], tmp_path: Path
) -> None:
    """A publish stopped (alive) before its rename holds its staging folder: a second
    publish to the same folder leaves it alone and publishes; the first, resumed, finds the
    folder taken, says so and removes its staging folder."""
    version, env = release
    parent = tmp_path / "site"
    out = parent / TARGET
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = start_publish(version, env, out, first_log, stop_before=STAGES[-1].stop_before)
    try:
        wait_until_stopped(first, first_log, "the rename")
        [held] = leftovers(parent)
        second = start_publish(version, env, out, second_log)
        assert second.wait(timeout=300) == 0, second_log.read_text()
        assert leftovers(parent) == [held]
        assert_whole(out)
        published = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        os.kill(first.pid, signal.SIGCONT)
        assert first.wait(timeout=60) == 1
    finally:
        end_group(first)
    assert "exists and is not an empty folder" in first_log.read_text()
    assert leftovers(parent) == []
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == published


def test_an_abandoned_staging_folder_is_removed_and_a_live_one_kept(tmp_path: Path) -> None:
    """In one process: a staging folder being written is locked and kept; one without a lock
    (its publish gone) is removed, complete-looking or not; other folders are not touched."""
    target = tmp_path / "site" / TARGET
    target.parent.mkdir()
    (target.parent / "other").mkdir()
    (target.parent / f".{TARGET}-notes").mkdir()
    abandoned = target.parent / f".{TARGET}{staging.STAGING_MARK}0123456789ab"
    (abandoned / "data").mkdir(parents=True)
    (abandoned / "SHA256SUMS").write_text("", encoding="utf-8")
    with staging.staging_folder(target) as live:
        (live / "README.md").write_text("half", encoding="utf-8")
        assert staging.discard_abandoned_publishes(target) == [abandoned]
        assert live.is_dir()
    assert not live.exists()  # the block ended without the rename: nothing is kept
    assert sorted(p.name for p in target.parent.iterdir()) == [f".{TARGET}-notes", "other"]


def test_an_empty_folder_is_published_into_and_anything_else_refused(tmp_path: Path) -> None:
    version = release_with_defects()
    empty = tmp_path / "empty"
    empty.mkdir()
    services.publish_release(version=version, out=empty)
    assert_whole(empty)
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    for taken in (empty, a_file):
        with pytest.raises(ServiceError, match="exists and is not an empty folder"):
            services.publish_release(version=version, out=taken)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "empty"]
