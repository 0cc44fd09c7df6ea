"""Local models for the model-based metrics: where each comes from and how it is named.

Every model is a folder on disk (``config.json``, a weights file, the tokenizer files),
named by a metric's ``Config`` field or, when that is empty, by an environment variable
(:func:`model_setting`). Nothing is downloaded: ``HF_HUB_OFFLINE=1`` is set before
transformers is imported and every ``from_pretrained`` call passes ``local_files_only``.
A missing model is a :class:`ModelSettingError` that names the setting to fill.

A model enters a signature as ``<folder name>@<sha8>``, the first 8 hex digits of the
SHA-256 of its config and weights (:func:`model_id`), so two scores made with different
weights never share a signature even when the folders have the same name.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gecscore.errors import Unavailable

__all__ = [
    "EXTRA_HINT",
    "INDEX_FILES",
    "LocalModel",
    "MissingDependencyError",
    "ModelSettingError",
    "WEIGHT_FILES",
    "import_torch",
    "load_model",
    "load_tokenizer",
    "hash_key",
    "hash_known",
    "model_hash",
    "model_id",
    "model_setting",
    "remember_hash",
]


WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
INDEX_FILES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
EXTRA_HINT = "pip install 'gecscore[reffree]'"


class ModelSettingError(Unavailable, ValueError):
    """A model setting that is empty or names no usable local model folder."""


class MissingDependencyError(Unavailable, ImportError):
    """torch / transformers are not installed (the ``reffree`` extra)."""


@dataclass(frozen=True)
class LocalModel:
    """A model folder and the setting it came from."""

    path: Path
    setting: str  # e.g. "SOME model_g (--model-g, GEC_SOME_MODEL_G)"

    @property
    def id(self) -> str:
        return model_id(self.path)


def model_setting(value: str | None, *, setting: str, env: str, what: str) -> LocalModel:
    """The local model folder of a setting: ``value`` (a Config field), else ``$env``.

    ``setting`` names the Config field and command-line flag for the error message, ``what``
    says what the model is (``"SOME's grammaticality regressor"``).
    """
    text = (value or "").strip() or os.environ.get(env, "").strip()
    named = f"{setting} or ${env}"
    if not text:
        raise ModelSettingError(
            f"{what}: no model configured. Set {named} to a local folder holding config.json, "
            "the weights and the tokenizer files (models are never downloaded; see "
            "docs/metrics/reference-free.md for where to get them)."
        )
    path = Path(text).expanduser()
    if not path.is_dir():
        raise ModelSettingError(
            f"{what}: {named} = {text!r} is not a local folder (models are never downloaded: "
            "download it once, e.g. with `huggingface-cli download NAME --local-dir DIR`, "
            "and point the setting at DIR)."
        )
    if not (path / "config.json").is_file():
        raise ModelSettingError(f"{what}: {path} ({named}) has no config.json.")
    if not any((path / name).is_file() for name in WEIGHT_FILES + INDEX_FILES):
        raise ModelSettingError(
            f"{what}: {path} ({named}) has no weights file (one of {', '.join(WEIGHT_FILES)})."
        )
    return LocalModel(path.resolve(), f"{setting} / ${env}")


def _weight_files(path: Path) -> list[Path]:
    files = [path / "config.json"]
    files += [path / name for name in WEIGHT_FILES + INDEX_FILES if (path / name).is_file()]
    files += sorted(path.glob("model-*-of-*.safetensors")) + sorted(
        path.glob("pytorch_model-*-of-*.bin")
    )
    return files


def _hash_files(key: tuple[tuple[str, int, int, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, *_ in key:
        digest.update(Path(name).name.encode())
        with open(name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def hash_key(path: Path) -> tuple[tuple[str, int, int, int, int], ...]:
    """What a model's hash is memoised by: each file's name, size, mtime, ctime and inode
    (a file rewritten in place or replaced gets a new ctime or inode, so it is hashed again)."""
    stats = [(file, file.stat()) for file in _weight_files(path)]
    return tuple(
        (str(file), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) for file, st in stats
    )


def model_hash(path: Path) -> str:
    """SHA-256 of the model's config and weight files (memoised by :func:`hash_key`; a
    bert-base model is ~0.4 GB, about a second of hashing)."""
    key = hash_key(path)
    if key not in _KNOWN_HASHES:
        _KNOWN_HASHES[key] = _hash_files(key)
    return _KNOWN_HASHES[key]


def hash_known(path: Path) -> bool:
    """Whether ``model_hash(path)`` is memoised (costs no hashing)."""
    return hash_key(path) in _KNOWN_HASHES


def remember_hash(path: Path, digest: str) -> None:
    """Take a hash found in a persistent memo (the metrics' cache) as ``model_hash(path)``."""
    _KNOWN_HASHES[hash_key(path)] = digest


_KNOWN_HASHES: dict[tuple[tuple[str, int, int, int, int], ...], str] = {}


def model_id(path: Path) -> str:
    """``<folder name>@<sha8>``: how a signature names a model."""
    return f"{path.name}@{model_hash(path)[:8]}"


def import_torch() -> tuple[Any, Any]:
    """``(torch, transformers)`` with the hub switched off; a GECError naming the extra."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingDependencyError(
            f"model-based metrics need torch and transformers ({exc.name} is missing): {EXTRA_HINT}"
        ) from None
    return torch, transformers


def load_tokenizer(model: LocalModel) -> Any:
    _, transformers = import_torch()
    return transformers.AutoTokenizer.from_pretrained(str(model.path), local_files_only=True)


def load_model(model: LocalModel, kind: str, device: str) -> Any:
    """``kind``: ``sequence-classification``, ``causal-lm`` or ``base`` (AutoModel), in eval
    mode on ``device``."""
    _, transformers = import_torch()
    loader = {
        "sequence-classification": transformers.AutoModelForSequenceClassification,
        "causal-lm": transformers.AutoModelForCausalLM,
        "base": transformers.AutoModel,
    }[kind]
    try:
        loaded = loader.from_pretrained(str(model.path), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ModelSettingError(f"{model.path} ({model.setting}) cannot be loaded: {exc}") from exc
    return loaded.to(device).eval()
