"""The one rule for choosing the torch device of a model-based metric (BERTScore weights, the
reference-free metrics, the local LLM judge).

``device`` is one of:

* ``None`` or ``"auto"``: ``"cuda"`` when torch sees a GPU, else ``"cpu"``;
* ``"cpu"``;
* ``"cuda"`` or ``"cuda:N"`` (GPU number N): an error when torch sees no GPU, or not N + 1
  of them.

Spelled exactly so (lower case, no spaces); anything else is an ``OptionError`` naming the
choices. The answer is a device string torch accepts (``tensor.to(device)``,
``torch.device(device)``). torch is imported when the function is called, not with this module.
"""

from __future__ import annotations

from gecscore.errors import OptionError, Unavailable

__all__ = ["DEVICES", "check_device_name", "resolve_device"]

# What a person chooses from (CLI --device, Config.device); "cuda:N" is also accepted.
DEVICES = ("auto", "cpu", "cuda")


def check_device_name(device: str, name: str = "device") -> None:
    """The spelling rule alone (a Config checks it when built, before torch is asked):
    ``auto``, ``cpu``, ``cuda`` or ``cuda:N``, exactly; an OptionError otherwise."""
    text = device if isinstance(device, str) else ""
    index = text.removeprefix("cuda:") if text.startswith("cuda:") else None
    if text not in DEVICES and not (index and index.isascii() and index.isdigit()):
        raise OptionError(f"unknown {name} {device!r}: use auto, cpu, cuda or cuda:N")


def resolve_device(device: str | None = None) -> str:
    """The device ``device`` names, by the rule of the module: ``"cpu"``, ``"cuda"`` or
    ``"cuda:N"``. A GPU torch does not see, or torch missing, is ``Unavailable``."""
    text = "auto" if device is None else device
    check_device_name(text)
    index = text.removeprefix("cuda:") if text.startswith("cuda:") else None
    if text == "cpu":
        return text
    try:
        import torch
    except ImportError:
        raise Unavailable(
            f"device {device!r}: torch is not installed "
            "(pip install 'gecscore[weighted]' or 'gecscore[reffree]')"
        ) from None
    available = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if text == "auto":
        return "cuda" if available else "cpu"
    if not available:
        raise Unavailable(
            f"device {device!r} asked for, but torch {torch.__version__} sees no CUDA GPU "
            "(use auto or cpu)"
        )
    if index is not None and int(index) >= available:
        raise Unavailable(f"device {device!r} asked for, but torch sees {available} GPU(s)")
    return text
