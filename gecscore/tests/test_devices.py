"""The one device rule (gecscore.devices.resolve_device) every model-based metric uses: the
BERTScore weights, SOME, IMPARA, Scribendi and the local LLM judge."""

from __future__ import annotations

import pytest

from gecscore.devices import resolve_device
from gecscore.errors import OptionError, Unavailable

torch = pytest.importorskip("torch")


def test_auto_is_a_gpu_when_torch_sees_one_else_the_cpu() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device(None) == resolve_device("auto") == expected
    assert resolve_device("cpu") == "cpu"
    assert torch.device(resolve_device("auto")).type == expected


@pytest.mark.parametrize("spelling", ["tpu", "CPU", " cpu", "cuda:", "cuda:x", "cuda:-1", ""])
def test_other_spellings_are_an_option_error_naming_the_choices(spelling: str) -> None:
    with pytest.raises(OptionError, match=f"unknown device {spelling!r}: use auto, cpu, cuda"):
        resolve_device(spelling)


def test_a_gpu_asked_for_is_checked() -> None:
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if not gpus:
        for spelling in ("cuda", "cuda:0"):
            with pytest.raises(Unavailable, match="sees no CUDA GPU"):
                resolve_device(spelling)
        return
    assert resolve_device("cuda") == "cuda" and resolve_device("cuda:0") == "cuda:0"
    with pytest.raises(Unavailable, match=f"torch sees {gpus} GPU"):
        resolve_device(f"cuda:{gpus}")


def test_every_model_based_metric_uses_the_one_rule() -> None:
    """No second resolve_device: the metrics' modules use gecscore.devices'."""
    import gecscore.reffree.impara
    import gecscore.reffree.models
    import gecscore.reffree.scribendi
    import gecscore.reffree.some
    import gecscore.weights.bertscore
    import gecscore.weights.device

    for module in (gecscore.reffree.impara, gecscore.reffree.scribendi, gecscore.reffree.some):
        assert module.resolve_device is resolve_device
    assert gecscore.weights.bertscore.resolve_device is resolve_device
    assert not hasattr(gecscore.reffree.models, "resolve_device")
    assert not hasattr(gecscore.weights.device, "resolve_device")
