"""A release with planted defects: the report finds exactly those; the published folder's
Parquet round-trips every field, its Croissant validates with mlcroissant, its card states
the release's numbers."""

from __future__ import annotations

import json
import random
import subprocess
import unicodedata
import zipfile
from pathlib import Path

import pytest

from core.exceptions import Conflict, ServiceError
from datasets.formats import ImportFile
from datasets.models import DatasetVersion
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from publishing import checks, formats, services
from tests.factories import make_user

pytestmark = pytest.mark.django_db

# Sentences of a small learner corpus (MuCGEC-style), ids and splits chosen to plant:
# a duplicate source (t1 / t2), a source in two splits (t3 in train, d1 in dev), a sentence
# that occurs in an uploaded test file (d2), a label written as reference text (t4).
ROWS = [
    {
        "id": "t1",
        "source": "我在北京上大学了三年。",
        "references": ["我在北京上了三年大学。"],
        "split": "train",
    },
    {
        "id": "t2",
        "source": "我在北京上大学了三年。",
        "references": ["我在北京上了三年大学。"],
        "split": "train",
    },
    {
        "id": "t3",
        "source": "他们对这个问题很关心的。",
        "references": ["他们很关心这个问题。", "他们对这个问题很关心。"],
        "split": "train",
    },
    {"id": "t4", "source": "今天天气很好。", "references": ["没有错误。"], "split": "train"},
    {
        "id": "t5",
        "source": "因为下雨，所以我们没有去公园玩了。",
        "references": ["因为下雨，所以我们没有去公园玩。"],
        "split": "train",
    },
    {
        "id": "d1",
        "source": "他们对这个问题很关心的。",
        "references": ["他们很关心这个问题。"],
        "split": "dev",
    },
    {
        "id": "d2",
        "source": "这本书对我的影响非常大的。",
        "references": ["这本书对我的影响非常大。", "这本书对我影响非常大。"],
        "split": "dev",
    },
    {
        "id": "d3",
        "source": "我们应该保护环境，减少污染。",
        "references": ["没有错误"],
        "split": "dev",
    },
]
TEST_FILE = "别的句子，和这个数据集无关。\n这本书对我的影响非常大的。\n第三句话也不在里面。\n"


def release_with_defects() -> DatasetVersion:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ROWS)
    dataset = import_dataset(
        name="learners",
        fmt="jsonl",
        files=[ImportFile(name="learners.jsonl", data=text.encode("utf-8"))],
        source_name="essays",
    ).dataset
    return release_dataset(dataset=dataset)


def sentence_ids(finding: dict) -> list[list[str]]:
    groups = []
    for item in finding["items"]:
        if "sentences" in item and isinstance(item["sentences"], list):
            groups.append(sorted(s["id"] for s in item["sentences"]))
        else:
            groups.append([item["id"]])
    return sorted(groups)


def test_the_report_finds_exactly_the_planted_defects() -> None:
    admin = make_user()
    version = release_with_defects()
    services.add_reference_file(
        name="known-test", upload=TEST_FILE.encode("utf-8"), file_name="test.txt", user=admin
    )
    report = services.compute_report(version=version, user=admin)
    found = {f["check"]: f for f in report.findings}
    assert list(found) == list(checks.CHECKS)
    assert sentence_ids(found["duplicate_sources"]) == [["t1", "t2"]]
    assert sentence_ids(found["cross_split_sources"]) == [["d1", "t3"]]
    assert sentence_ids(found["overlap_exact"]) == [["d2"]]
    assert found["overlap_exact"]["items"][0]["corpus"] == "file known-test"
    assert found["overlap_exact"]["items"][0]["line"] == "2"
    assert sentence_ids(found["special_label_references"]) == [["t4"]]
    for check in checks.CHECKS:
        if check not in {
            "duplicate_sources",
            "cross_split_sources",
            "overlap_exact",
            "special_label_references",
        }:
            assert found[check]["count"] == 0, (check, found[check])


def test_near_duplicates_and_normalised_duplicates_are_found() -> None:
    rows = [
        checks.ReleaseRow(0, "a", "我們在北京上了三年大學，非常開心。", "train", ("x",)),
        checks.ReleaseRow(1, "b", "我们在北京上了三年大学，非常开心。", "train", ("x",)),
        checks.ReleaseRow(2, "c", "ＡＢＣ 我们 学习 汉语", "train", ("x",)),
        checks.ReleaseRow(3, "d", "abc我们学习汉语", "train", ("x",)),
        checks.ReleaseRow(4, "e", "他每天早上六点起床，然后去公园跑步锻炼身体。", "dev", ("x",)),
        checks.ReleaseRow(5, "f", "他每天早上六点起床，然后去公园跑步锻炼身体了。", "dev", ("x",)),
        checks.ReleaseRow(6, "g", "完全不同的一句话在这里出现。", "dev", ("x",)),
    ]
    found = {f.check: f for f in checks.release_findings(rows)}
    normalised = sorted(
        sorted(s["id"] for s in i["sentences"]) for i in found["normalised_duplicate_sources"].items
    )
    assert normalised == [["a", "b"], ["c", "d"]]
    near = [sorted(s["id"] for s in i["sentences"]) for i in found["near_duplicate_sources"].items]
    assert near == [["e", "f"]]


def random_shingle_sets() -> list[set[str]]:
    # Two blocks' worth (MINHASH_BLOCK), shingles repeated across sentences (hashed once) and
    # sentences of both shingle sizes.
    rng = random.Random(7)
    alphabet = "他每天早上六点起床去跑步完全不同的一句话在这里出现我们你是了"
    texts = ["他每天早上六点起床去跑步。", "完全不同的一句话在这里出现。"] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(6, 40)))
        for _ in range(checks.MINHASH_BLOCK + 50)
    ]
    return [shingled for t in texts if (shingled := checks.shingles(checks.normalise(t)))]


def test_vectorised_minhash_equals_datasketch() -> None:
    from datasketch import MinHash

    sets = random_shingle_sets()
    ours = checks._minhashes(sets)
    for shingle_set, lean in zip(sets, ours, strict=True):
        theirs = MinHash(
            num_perm=checks.MINHASH_PERMUTATIONS, seed=checks.MINHASH_SEED, scheme="legacy"
        )
        theirs.update_batch([s.encode("utf-8") for s in sorted(shingle_set)])
        assert list(lean.hashvalues) == list(theirs.hashvalues)


def test_shingle_memo_stays_under_its_bound_and_the_minhashes_are_unchanged() -> None:
    sets = random_shingle_sets()
    unbounded = checks.ShingleHashes(limit=10**9)
    expected = [list(m.hashvalues) for m in checks._minhashes(sets, memo=unbounded)]
    assert unbounded.emptied == 0 and unbounded.largest > 5000
    bounded = checks.ShingleHashes(limit=300)
    ours = [list(m.hashvalues) for m in checks._minhashes(sets, memo=bounded)]
    assert bounded.largest <= 300 and len(bounded) <= 300
    assert bounded.emptied > 10  # emptied many times, mid-block included
    assert ours == expected


def test_near_duplicate_findings_are_the_same_with_a_tiny_shingle_memo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(11)
    base = ["他每天早上六点起床，然后去公园跑步锻炼身体。", "我们在北京上了三年大学，非常开心。"]
    texts = base + [b[:-1] + rng.choice("了吧呢啊") + "。" for b in base for _ in range(3)]
    texts += ["".join(rng.choice("完全不同的一句话在这里出现我们你是") for _ in range(30))]
    rows = [checks.ReleaseRow(i, f"s{i}", t, "train", ("x",)) for i, t in enumerate(texts)]
    others = [checks.OtherText("file other", "1", base[0] + "吗")]

    def findings() -> list[dict[str, object]]:
        return [f.as_dict() for f in checks.release_findings(rows, others)]

    expected = findings()
    assert {f["check"]: f["count"] for f in expected}["near_duplicate_sources"] > 0
    assert {f["check"]: f["count"] for f in expected}["overlap_near"] == 1
    monkeypatch.setattr(checks, "MINHASH_MEMO_SHINGLES", 5)
    assert findings() == expected


def test_mersenne_reduction_equals_the_modulo() -> None:
    import numpy as np

    prime = checks.MERSENNE_PRIME
    crafted = [0, 1, prime - 1, prime, prime + 1, 2 * prime - 1, 2 * prime, 2 * prime + 7]
    crafted += [1 << 61, (1 << 62) - 1, (1 << 64) - 1, (1 << 64) - 2, 7 * prime + 6]
    rng = random.Random(3)
    values = crafted + [rng.getrandbits(64) for _ in range(5000)]
    ours = checks._mod_mersenne(np.array(values, dtype=np.uint64))
    assert [int(v) for v in ours] == [v % prime for v in values]


def test_label_form_drops_exactly_spaces_and_punctuation_but_the_hyphen() -> None:
    def by_character(text: str) -> str:
        return "".join(
            ch
            for ch in unicodedata.normalize("NFKC", text).casefold()
            if ch == "-" or not (ch.isspace() or unicodedata.category(ch).startswith("P"))
        )

    rng = random.Random(5)
    pool = "没有错误。，！？、“”《》-— \u3000\t\u00a0Error free!-NONE-ＡＢ（）ß…·"
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 30))) for _ in range(2000)]
    texts += [chr(code) for code in range(0x3100)]
    assert [checks._label_form(t) for t in texts] == [by_character(t) for t in texts]


def test_published_folder_round_trips_and_validates(tmp_path: Path) -> None:
    admin = make_user()
    version = release_with_defects()
    services.update_metadata(
        version=version,
        user=admin,
        data={
            "description": "Learner sentences with two references of two styles.",
            "license": "CC-BY-4.0",
            "upstream_licenses": [
                {
                    "name": "MuCGEC",
                    "license": "Apache-2.0",
                    "url": "https://github.com/HillZhang1999/MuCGEC",
                }
            ],
            "citation": "@misc{learners2026, title={Learners}}",
            "reference_styles": {"1": "minimal", "2": "fluency"},
            "homepage": "https://example.org/learners",
        },
    )
    out = tmp_path / "learners-v1"
    result = services.publish_release(version=version, out=out, user=admin)
    assert result["splits"] == {"train": 5, "dev": 3}
    tables = formats.read_parquet_folder(out)
    by_id = {record["id"]: record for split in tables.values() for record in split}
    for row in ROWS:
        record = by_id[row["id"]]
        assert record["source"] == row["source"]
        # A marker is published as the source it stands for (judgement says which).
        plain = [row["source"] if r == "没有错误" else r for r in row["references"]]
        assert record["references"] == plain
        assert record["judgement"] == ("error_free" if plain == [row["source"]] else "annotatable")
        assert record["split"] == row["split"]
        assert record["reference_styles"] == ["minimal", "fluency"][: len(row["references"])]
    # t5's one reference deletes 了 before 。: one edit at the source's character offsets.
    [t5_edits] = by_id["t5"]["edits"]
    assert [(e["start"], e["end"], e["correction"]) for e in t5_edits] == [(15, 16, "")]
    assert by_id["d3"]["edits"] == [[]]
    # The checksum list covers every file, and sha256sum agrees with it.
    check = subprocess.run(
        ["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=out, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-4.0" in card and "| sentences | 8 |" in card
    assert "MuCGEC: Apache-2.0" in card and "[TO WRITE]" in card
    assert (out / "figures" / "reference_counts.svg").read_text().startswith("<svg")
    for name in ("learners-v1.m2", "learners-v1.txt", "learners-v1.jsonl", "learners-v1.zip"):
        assert (out / "formats" / name).is_file()


def test_reading_the_release_once_or_per_file_publishes_the_same_bytes(
    tmp_path: Path, settings
) -> None:
    """Below GEC_PUBLISH_READ_ONCE_SENTENCES the rows are read once for every file; above
    it each file streams them: the folders are byte-identical but for the publishing time."""
    version = release_with_defects()
    once, streamed = tmp_path / "once", tmp_path / "streamed"
    services.publish_release(version=version, out=once)
    settings.GEC_PUBLISH_READ_ONCE_SENTENCES = 0
    services.publish_release(version=version, out=streamed)
    files = sorted(p.relative_to(once) for p in once.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(streamed) for p in streamed.rglob("*") if p.is_file())
    # report.json is the release report each publish stores (its time, and on PostgreSQL the
    # order of its items, vary): not written from the rows this test is about.
    volatile = {Path("croissant.json"), Path("SHA256SUMS"), Path("README.md"), Path("report.json")}
    for name in files:
        if name.suffix == ".zip":  # its entries carry the time they were written
            with zipfile.ZipFile(once / name) as a, zipfile.ZipFile(streamed / name) as b:
                assert a.namelist() == b.namelist(), name
                assert all(a.read(member) == b.read(member) for member in a.namelist()), name
        elif name not in volatile:
            assert (once / name).read_bytes() == (streamed / name).read_bytes(), name
    card = (once / "README.md").read_text(encoding="utf-8")
    assert card == (streamed / "README.md").read_text(encoding="utf-8")


def test_croissant_validates_with_mlcroissant(tmp_path: Path) -> None:
    mlc = pytest.importorskip(
        "mlcroissant", reason="mlcroissant (requirements-dev.txt) validates Croissant"
    )
    version = release_with_defects()
    services.update_metadata(
        version=version,
        user=None,
        data={"license": "CC-BY-4.0", "homepage": "https://example.org/x", "citation": "@misc{x}"},
    )
    out = tmp_path / "folder"
    services.publish_release(version=version, out=out)
    document = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    dataset = mlc.Dataset(jsonld=out / "croissant.json")
    assert not dataset.metadata.issues.errors and not dataset.metadata.issues.warnings
    ids: list[str] = []
    for split in ("dev", "train"):
        for record in dataset.records(split):
            value = record[f"{split}/id"]
            ids.append(value.decode() if isinstance(value, bytes) else str(value))
    assert sorted(ids) == sorted(str(row["id"]) for row in ROWS)


def test_blocking_checks_refuse_and_nothing_is_left(tmp_path: Path) -> None:
    version = release_with_defects()
    services.update_metadata(
        version=version, user=None, data={"blocking_checks": ["duplicate_sources"]}
    )
    out = tmp_path / "blocked"
    with pytest.raises(Conflict, match="same source text twice in a split"):
        services.publish_release(version=version, out=out)
    assert not out.exists()
    services.publish_release(version=version, out=out, allow_blocked=True)
    assert (out / "README.md").exists()


def test_metadata_is_checked_field_by_field() -> None:
    version = release_with_defects()
    with pytest.raises(ServiceError, match="not an SPDX identifier") as error:
        services.update_metadata(version=version, user=None, data={"license": "CC BY 4.0"})
    assert error.value.field == "license"
    with pytest.raises(ServiceError, match="style 'nice'"):
        services.update_metadata(
            version=version, user=None, data={"reference_styles": {"1": "nice"}}
        )
    with pytest.raises(ServiceError, match="blocking checks must be"):
        services.update_metadata(version=version, user=None, data={"blocking_checks": ["nope"]})
    with pytest.raises(ServiceError, match="description has 20001 characters"):
        services.update_metadata(version=version, user=None, data={"description": "x" * 20001})


def test_publish_release_command_writes_the_folder(tmp_path: Path) -> None:
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    version = release_with_defects()
    out, err = StringIO(), StringIO()
    call_command(
        "publish_release", version.label, "-o", str(tmp_path / "pub"), stdout=out, stderr=err
    )
    files = out.getvalue().split()
    assert {
        "README.md",
        "croissant.json",
        "report.json",
        "SHA256SUMS",
        "data/train.parquet",
        "data/dev.parquet",
    } <= set(files)
    assert "train 5" in err.getvalue()
    with pytest.raises(CommandError, match="exists and is not an empty folder"):
        call_command("publish_release", version.label, "-o", str(tmp_path / "pub"))
    with pytest.raises(CommandError, match="DATASET@vN"):
        call_command("publish_release", "learners", "-o", str(tmp_path / "x"))
    with pytest.raises(CommandError, match="has no release v7"):
        call_command("publish_release", "learners@v7", "-o", str(tmp_path / "x"))
