"""The metric registry: every name resolves, the CLI and meta-evaluation find their metrics
there, and looking a metric up imports no metric module."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from gecscore import registry
from gecscore.cli import build_parser
from gecscore.meta import compute
from gecscore.metric import Metric, MetricConfig

REPO = Path(__file__).resolve().parents[2]


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return list(actions[0].choices)


@pytest.mark.parametrize("name", list(registry.METRICS))
def test_every_metric_has_a_class_of_the_calling_convention(name: str) -> None:
    metric = registry.get(name)
    assert metric.name == name and metric.language in ("zh", "en", "any")
    cls = registry.get_metric(name)
    assert inspect.isclass(cls) and issubclass(cls, Metric) and cls.name == name
    assert issubclass(cls.Config, MetricConfig) and cls.Config.__dataclass_params__.frozen  # type: ignore[attr-defined]
    if metric.meta is not None:
        assert registry.load(metric.meta) is compute.METRICS[name]


@pytest.mark.parametrize("name", list(registry.METRICS))
def test_every_metric_class_is_found_in_gecscore_metrics_by_its_name(name: str) -> None:
    """The one layout rule: the class of registry name ``n`` (and its Config) is importable
    from ``gecscore.metrics.<n with - as _>``, and is the class ``get_metric(n)`` returns."""
    cls = registry.get_metric(name)
    module = importlib.import_module(f"gecscore.metrics.{name.replace('-', '_')}")
    assert getattr(module, cls.__name__) is cls
    assert getattr(module, cls.Config.__name__) is cls.Config
    assert registry.METRIC_CLASSES[name] == f"{module.__name__}:{cls.__name__}"


def test_gecscore_metrics_holds_one_module_per_registry_name_and_loads_none() -> None:
    import gecscore.metrics

    modules = {info.name for info in pkgutil.iter_modules(gecscore.metrics.__path__)}
    assert modules == {name.replace("-", "_") for name in registry.METRICS}
    probe = (
        "import json, sys\n"
        "import gecscore.metrics\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('gecscore'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["gecscore", "gecscore.metrics"]


def test_get_metric_knows_exactly_the_registry_metrics() -> None:
    assert registry.metric_names() == sorted(registry.METRICS) == sorted(registry.METRIC_CLASSES)


def test_metric_classes_resolve_whatever_was_imported_before() -> None:
    """A package attribute that is also a submodule's name (``gecscore.cleme.v2``) is the
    module once that submodule is imported: the registry names the defining modules."""
    probe = (
        "import importlib, pkgutil, gecscore\n"
        "for info in pkgutil.walk_packages(gecscore.__path__, 'gecscore.'):\n"
        "    if not info.name.startswith(('gecscore.weights', 'gecscore.__main__')):\n"
        "        importlib.import_module(info.name)\n"
        "from gecscore import registry\n"
        "from gecscore.metric import Metric\n"
        "print(sorted(n for n in registry.METRICS if not issubclass(registry.get_metric(n), Metric)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


@pytest.mark.parametrize("name", list(registry.METRICS))
def test_a_metrics_commands_are_registered_by_the_module_the_registry_names(name: str) -> None:
    for command in registry.get(name).commands:
        assert registry.command_modules(command) == (registry.COMMANDS[command],)
        assert command in _commands(build_parser(command))


def test_the_full_parser_lists_the_commands_in_registry_order() -> None:
    assert _commands(build_parser()) == list(registry.COMMANDS)


def test_meta_compute_offers_exactly_the_registry_metrics_with_a_meta_function() -> None:
    expected = ["cherrant", "errant", "m2", "sentm2", "gleu", "gleu-gecm", "green", "imeasure"]
    expected += ["cleme", "cleme2", "ptm2"]
    assert list(compute.METRICS) == registry.meta_metrics() == expected


def _meta_option(command: str, option: str) -> argparse.Action:
    (meta,) = [
        a for a in build_parser("meta")._actions if isinstance(a, argparse._SubParsersAction)
    ]
    (commands,) = [
        a for a in meta.choices["meta"]._actions if isinstance(a, argparse._SubParsersAction)
    ]
    parser = commands.choices[command]
    (action,) = [a for a in parser._actions if option in a.option_strings]
    return action


def test_the_meta_commands_offer_the_registry_metrics_with_a_meta_function() -> None:
    """What the person at the command line sees: ``meta seeda --metric``'s choices and
    ``meta system --compute``'s list are the registry's meta metrics, in registry order."""
    names = registry.meta_metrics()
    assert list(_meta_option("seeda", "--metric").choices or ()) == names
    assert _meta_option("seeda", "--metric").help == f"of {', '.join(names)}"
    assert _meta_option("system", "--compute").help == f"of {', '.join(names)}"


def test_unknown_metric_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown metric 'bleu' \\(known: cherrant, errant"):
        registry.get("bleu")
    with pytest.raises(ValueError, match="module:attribute"):
        registry.load("gecscore.compare")


def test_looking_metrics_up_imports_no_metric_module() -> None:
    probe = (
        "import json, sys\n"
        "from gecscore import registry\n"
        "import gecscore.cli\n"
        "registry.get('cleme'); registry.meta_metrics(); registry.command_modules('compare')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('gecscore'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    # gecscore.errors is the exception root (it imports only os).
    assert json.loads(out) == ["gecscore", "gecscore.cli", "gecscore.errors", "gecscore.registry"]


def test_the_package_exports_what_it_loads_lazily() -> None:
    import gecscore

    assert gecscore.__all__ == sorted(gecscore._EXPORTS)
    for name in gecscore.metric_names():
        cls = gecscore.get_metric(name)
        assert getattr(gecscore, cls.__name__) is cls  # every metric class at the top


def test_no_exported_name_is_also_a_module_of_the_package() -> None:
    """Once ``gecscore.X`` is imported as a module, the package attribute ``X`` is that module,
    so a name exported as ``X`` would be the module or the function depending on what ran
    first (``from gecscore import tokenize`` once handed the platform the module)."""
    import pkgutil

    import gecscore

    modules = {info.name for info in pkgutil.iter_modules(gecscore.__path__)}
    assert not sorted(modules & set(gecscore._EXPORTS))


def test_public_modules_declare_what_they_export() -> None:
    """Every module of the package that is not private names its public names in __all__,
    and every name there exists."""
    # In the core install (no extras) a module or lazy name that needs an extra's package is
    # left out here; the full install (the platform's venv) checks it.
    probe = (
        "import importlib, pkgutil, json, gecscore\n"
        "EXTRAS = {'torch', 'transformers', 'bert_score', 'spacy', 'errant'}\n"
        "def optional(error):\n"
        "    if (error.name or '').split('.')[0] not in EXTRAS: raise error\n"
        "def present(module, name):\n"
        "    try: return hasattr(module, name)\n"
        "    except ModuleNotFoundError as error: optional(error); return True\n"
        "out = {}\n"
        "for info in pkgutil.walk_packages(gecscore.__path__, 'gecscore.'):\n"
        "    if info.name.split('.')[-1].startswith('_'): continue\n"
        "    try: module = importlib.import_module(info.name)\n"
        "    except ModuleNotFoundError as error: optional(error); continue\n"
        "    names = getattr(module, '__all__', None)\n"
        "    out[info.name] = None if names is None else [n for n in names if not present(module, n)]\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert {name: missing for name, missing in found.items() if missing} == {}
    # Every public module declares what it exports (none is left without __all__).
    assert {name for name, missing in found.items() if missing is None} == set()
