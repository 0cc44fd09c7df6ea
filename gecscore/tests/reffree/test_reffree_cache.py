"""A second scoring with ``cache_dir`` is served from the on-disk cache: no model is loaded,
no request is sent, and the numbers are the same."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from gecscore import get_metric
from gecscore.reffree import models
from tests.reffree.chat_server import ChatServer
from tests.reffree.conftest import SYSTEMS


def test_some_impara_scribendi_rescoring_loads_no_model(
    regressors: dict[str, Path],
    tiny_gpt2: Path,
    pairs,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    sources, hypotheses = pairs
    cache = str(tmp_path / "cache")
    configs = {
        "some": {f"model_{k}": str(regressors[k]) for k in ("g", "f", "m")},
        "impara": {"model_qe": str(regressors["qe"]), "model_se": str(regressors["se"])},
        "scribendi": {"model": str(tiny_gpt2)},
    }
    for name, paths in configs.items():
        Metric = get_metric(name)
        started = time.perf_counter()
        first = Metric(Metric.Config(**paths, device="cpu", cache_dir=cache))
        cold = first.score_corpus(sources, hypotheses)
        cold_seconds = time.perf_counter() - started
        started = time.perf_counter()
        second = Metric(Metric.Config(**paths, device="cpu", cache_dir=cache))
        warm = second.score_corpus(sources, hypotheses)
        warm_seconds = time.perf_counter() - started
        print(f"{name}: cold {cold_seconds:.3f} s, from the cache {warm_seconds:.3f} s")
        assert not second._loaded  # no model was loaded
        assert warm.score == cold.score
        assert [s.score for s in warm.sentences] == [s.score for s in cold.sentences]
    # IMPARA keeps quality and cosine: another threshold is served from the cache too.
    IMPARA = get_metric("impara")
    other = IMPARA(
        IMPARA.Config(**configs["impara"], threshold=0.999, device="cpu", cache_dir=cache)
    )
    cached = other.score_corpus(sources, hypotheses)
    assert not other._loaded
    fresh = IMPARA(IMPARA.Config(**configs["impara"], threshold=0.999, device="cpu"))
    assert cached.score == fresh.score_corpus(sources, hypotheses).score


def test_judge_rescoring_sends_no_request(seeda: dict[str, list[str]], tmp_path: Path) -> None:
    sources = seeda["INPUT"]
    systems = [seeda[name] for name in SYSTEMS]
    Judge = get_metric("llm-s")
    with ChatServer() as server:
        config = Judge.Config(model="m", url=server.url, cache_dir=str(tmp_path))
        first = Judge(config).score_systems(sources, systems)
        sent = len(server.requests)
        second = Judge(config).score_systems(sources, systems)
        assert len(server.requests) == sent > 0
    assert second.pairwise == first.pairwise
    assert all(s.attempts == 0 for s in second.sentences)


def test_signature_texts(tmp_path: Path) -> None:
    # Folders with a config and a weights file are enough to name a model (nothing is loaded
    # before the first score); the texts are kept byte for byte (they key stored results).
    # A model is <folder>@ the first 8 hex digits of
    # sha256(b"config.json" + config bytes + b"model.safetensors" + weight bytes).
    folders = {}
    for name in ("grammer", "fluency", "meaning", "gpt2"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text("{}", encoding="utf-8")
        (folder / "model.safetensors").write_bytes(name.encode())
        folders[name] = str(folder)
    SOME = get_metric("some")
    some = SOME(
        SOME.Config(
            model_g=folders["grammer"],
            model_f=folders["fluency"],
            model_m=folders["meaning"],
            device="cpu",
        )
    )
    assert some.signature == (
        "metric=some|version=gec-metrics-0.1.1|g=grammer@5a3b7a6a|f=fluency@6b85384e"
        "|m=meaning@d52953aa|weights=0.55,0.43,0.02|max_length=128"
    )
    Scribendi = get_metric("scribendi")
    scribendi = Scribendi(Scribendi.Config(model=folders["gpt2"], device="cpu"))
    assert scribendi.signature == (
        "metric=scribendi|version=gec-metrics-0.1.1|lm=gpt2@64d1e8e0|threshold=0.8|corpus=sum"
    )
    Judge = get_metric("llm-e")
    judge = Judge(Judge.Config(model="qwen", url="http://127.0.0.1:9/v1", criteria="impact"))
    assert judge.signature == (
        "metric=llm-e|prompt=kobayashi24-gec-metrics-0.1.1|backend=http|model=qwen|seed=777"
        "|targets=5|criteria=impact"
    )


def test_model_hashes_are_kept_in_the_cache(tmp_path: Path) -> None:
    # A process scoring from a warm cache must not hash the weights again (a bert-base model is
    # ~0.4 GB); a cold one hashes while it loads; a rewritten weights file is hashed anew.
    folders = {}
    for name in ("g", "f", "m"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text("{}", encoding="utf-8")
        (folder / "model.safetensors").write_bytes(name.encode() * 7)
        folders[f"model_{name}"] = str(folder)
    SOME = get_metric("some")
    config = SOME.Config(**folders, device="cpu", cache_dir=str(tmp_path / "cache"))
    loads: list[int] = []

    def expected(content: bytes) -> str:
        return hashlib.sha256(b"config.json{}model.safetensors" + content).hexdigest()

    first = SOME(config)
    first.hash_models(first.models.values(), lambda: loads.append(1))
    assert loads == [1]  # unknown hashes: the models load meanwhile
    assert models.model_hash(tmp_path / "g") == expected(b"g" * 7)
    models._KNOWN_HASHES.clear()  # as in a new process
    second = SOME(config)
    second.hash_models(second.models.values(), lambda: loads.append(2))
    assert loads == [1]  # all three read from the cache's memo: nothing loaded
    assert all(models.hash_known(model.path) for model in second.models.values())
    (tmp_path / "g" / "model.safetensors").write_bytes(b"x" * 7)  # same size, new content
    models._KNOWN_HASHES.clear()
    third = SOME(config)
    third.hash_models(third.models.values(), lambda: loads.append(3))
    assert loads == [1, 3]
    assert models.model_hash(tmp_path / "g") == expected(b"x" * 7)
    assert models.model_hash(tmp_path / "f") == expected(b"f" * 7)
