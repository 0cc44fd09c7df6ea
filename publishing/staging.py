"""The staging folder a release is published through: written beside the target under a
hidden name, renamed into place at the end, so a publish killed at any moment (even by
SIGKILL, which no clean-up code sees) leaves no folder that looks complete; the next publish
to the same place removes what a killed one left."""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.exceptions import ServiceError

STAGING_MARK = ".partial-"


def target_of(folder: Path) -> Path:
    """``out`` as an absolute path without ``.`` or ``..`` (the staging folder goes beside
    it, in the same file system, so the final rename is atomic)."""
    target = Path(os.path.abspath(folder))
    if not target.name:
        raise ServiceError(f"{folder} is not a folder that can be published to", field="out")
    return target


def _staging_prefix(target: Path) -> str:
    return f".{target.name}{STAGING_MARK}"


@contextmanager
def staging_folder(target: Path) -> Iterator[Path]:
    """A new hidden folder beside ``target``, locked (flock) for as long as this process
    writes it: the kernel drops the lock when the process dies, however it dies, which is
    how a later publish tells a killed run's folder from a running one's. Removed when the
    block ends without renaming it (an exception, a signal turned into one)."""
    while True:
        staging = target.parent / f"{_staging_prefix(target)}{secrets.token_hex(6)}"
        try:
            staging.mkdir()  # not mkdtemp: the published folder keeps the umask's mode
            break
        except FileExistsError:
            continue
    handle = os.open(staging, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield staging
    finally:
        # Already gone when it was renamed into place; otherwise the block failed.
        shutil.rmtree(staging, ignore_errors=True)
        os.close(handle)


def discard_abandoned_publishes(target: Path) -> list[Path]:
    """Remove the staging folders of ``target`` whose publish is gone (killed: its lock was
    released with the process); a folder still locked is a publish at work and is left.
    Returns the folders removed."""
    removed = []
    for leftover in sorted(target.parent.glob(_staging_prefix(target) + "*")):
        if leftover.is_symlink() or not leftover.is_dir():
            continue
        try:
            handle = os.open(leftover, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue  # renamed into place or removed meanwhile
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            # By path: if the publish renamed it into place just before we locked, the
            # path is gone and nothing is removed.
            shutil.rmtree(leftover, ignore_errors=True)
            removed.append(leftover)
        finally:
            os.close(handle)
    return removed


def move_into_place(staging: Path, target: Path, *, shown_as: Path) -> None:
    """One rename: ``target`` goes from absent (or empty) to complete. A folder that another
    publish filled meanwhile is not replaced (rename refuses a non-empty target)."""
    try:
        os.rename(staging, target)
    except OSError as error:
        if error.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise ServiceError(
                f"{shown_as} exists and is not an empty folder", field="out"
            ) from None
        raise
