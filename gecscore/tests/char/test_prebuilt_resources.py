"""The prebuilt form of the char metric's resources (gecscore/src/gecscore/resources/).

Cilin, the confusion sets and the pinyin readings are parsed once, written to the cache folder
($GEC_CACHE_DIR) and read back by later processes; they must give exactly what parsing the
text gives (ChERRANT's M2, byte for byte), be rebuilt when a resource file changes, survive a
damaged file and work without a writable cache folder.
"""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gecscore import resources
from gecscore.extract import parallel_to_m2, read_parallel
from gecscore.m2 import write_m2
from gecscore.resources import (
    CJK_FIRST,
    CJK_LAST,
    ConfusionSets,
    Resources,
    char_readings,
    load_resources,
    pypinyin_readings,
)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv(resources.CACHE_ENV_VAR, str(folder))
    resources._load_directory.cache_clear()  # a fresh process, as far as loading goes
    yield folder
    resources._load_directory.cache_clear()


@pytest.fixture
def resource_copy(tmp_path: Path, shared_data: Path) -> Path:
    folder = tmp_path / "cherrant-data"
    shutil.copytree(shared_data / "cherrant-resources", folder)
    return folder


def _reload(folder: Path) -> Resources:
    resources._load_directory.cache_clear()
    return load_resources(folder)


def _prebuilt_files(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("cherrant-*.bin"))


def _text_parsed(folder: Path) -> tuple[dict[str, tuple[str, str, str]], dict[str, frozenset[str]]]:
    """Cilin and confusion sets read straight from the text files, ChERRANT's way."""
    semantic: dict[str, tuple[str, str, str]] = {}
    for line in (folder / "cilin.txt").read_text(encoding="gbk").strip().split("\n"):
        code, *words = line.split(" ")
        for word in words:
            semantic[word] = (code[0], code[1], code[2:4])
    confusion: dict[str, frozenset[str]] = {}
    for line in (folder / "confusion_dict.txt").read_text(encoding="utf-8").split("\n"):
        if line:
            head, *rest = line.split(" ")
            confusion[head] = frozenset(rest)
    return semantic, confusion


def test_prebuilt_form_is_written_once_then_read_instead_of_the_text(
    cache_dir: Path, resource_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _reload(resource_copy)
    (written,) = _prebuilt_files(cache_dir)
    stamp = written.stat().st_mtime_ns, written.stat().st_ino

    def no_parsing(*args: object) -> None:
        raise AssertionError("the text files were parsed although the prebuilt form exists")

    monkeypatch.setattr(resources, "_parse_cilin", no_parsing)
    monkeypatch.setattr(resources, "_parse_confusion", no_parsing)
    second = _reload(resource_copy)
    assert (written.stat().st_mtime_ns, written.stat().st_ino) == stamp  # reused, not rewritten
    semantic, confusion = _text_parsed(resource_copy)
    for loaded in (first, second):
        assert dict(loaded.semantic) == semantic
        assert dict(loaded.confusion) == confusion
        assert loaded.signature == first.signature


def test_a_changed_resource_file_rebuilds_the_prebuilt_form(
    cache_dir: Path, resource_copy: Path
) -> None:
    before = _reload(resource_copy)
    (written,) = _prebuilt_files(cache_dir)
    header = written.read_bytes().split(b"\n", 1)[0]
    confusion_file = resource_copy / "confusion_dict.txt"
    # A later line for a char replaces its set (ChERRANT's dict semantics).
    confusion_file.write_bytes(confusion_file.read_bytes() + "做 坐 作\n".encode())
    after = _reload(resource_copy)
    assert before.confusion["做"] != frozenset({"坐", "作"})
    assert after.confusion["做"] == frozenset({"坐", "作"})
    assert after.signature != before.signature
    (rebuilt,) = set(_prebuilt_files(cache_dir)) - {written}  # a new key, a new file
    assert rebuilt.read_bytes().split(b"\n", 1)[0] != header
    assert dict(after.confusion) == _text_parsed(resource_copy)[1]


def test_a_damaged_prebuilt_file_is_rebuilt(
    cache_dir: Path, resource_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _reload(resource_copy)
    (written,) = _prebuilt_files(cache_dir)
    data = written.read_bytes()
    written.write_bytes(data[: len(data) // 2])  # the header (and key) still match
    loaded = _reload(resource_copy)
    assert dict(loaded.semantic) == dict(expected.semantic)
    assert dict(loaded.confusion) == dict(expected.confusion)
    assert written.stat().st_size > len(data) // 2
    monkeypatch.setattr(resources, "_parse_cilin", None)  # the rebuilt file is read back
    assert dict(_reload(resource_copy).semantic) == dict(expected.semantic)


def test_an_unwritable_cache_folder_falls_back_to_parsing(
    tmp_path: Path, resource_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder's parent should be", encoding="utf-8")
    monkeypatch.setenv(resources.CACHE_ENV_VAR, str(blocker / "cache"))
    loaded = _reload(resource_copy)
    resources._load_directory.cache_clear()
    semantic, confusion = _text_parsed(resource_copy)
    assert dict(loaded.semantic) == semantic
    assert dict(loaded.confusion) == confusion
    assert blocker.is_file()


def test_extraction_with_prebuilt_resources_is_byte_identical_to_cherrant(
    cache_dir: Path, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = shared_data / "cherrant-resources"
    lines = read_parallel(shared_data / "mucgec-dev" / "MuCGEC_dev.txt")
    expected = (shared_data / "mucgec-dev" / "MuCGEC_dev.m2").read_text(encoding="utf-8")
    _reload(folder)  # writes the prebuilt form
    from_prebuilt = _reload(folder)  # a later process: reads it
    assert _prebuilt_files(cache_dir)
    # The text-parsed resources: no usable cache folder at all.
    monkeypatch.setenv(resources.CACHE_ENV_VAR, str(tmp_path / "blocked"))
    (tmp_path / "blocked").write_text("", encoding="utf-8")
    from_text = _reload(folder)
    resources._load_directory.cache_clear()
    outputs = []
    for loaded in (from_prebuilt, from_text):
        blocks, truncated = parallel_to_m2(lines, resources=loaded)
        assert truncated == []
        outputs.append(write_m2(blocks))
    assert outputs[0] == outputs[1] == expected


def test_pinyin_table_equals_pypinyin_for_every_cjk_character() -> None:
    table = char_readings()
    assert len(table) == CJK_LAST - CJK_FIRST + 1
    for point in range(CJK_FIRST, CJK_LAST + 1):
        char = chr(point)
        assert table[char] == pypinyin_readings(char), char


def test_confusion_sets_travel_to_worker_processes_intact(
    cache_dir: Path, shared_data: Path
) -> None:
    loaded = _reload(shared_data / "cherrant-resources")
    assert isinstance(loaded.confusion, ConfusionSets)
    loaded.confusion.get("做")  # one set decoded, the rest still compact
    copy = pickle.loads(pickle.dumps(loaded))
    assert dict(copy.confusion) == dict(loaded.confusion)
    assert copy.confusion.get("no such char", ()) == ()
    assert "做" in copy.confusion and "no such char" not in copy.confusion
