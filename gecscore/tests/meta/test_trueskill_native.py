"""The compiled TrueSkill player (gecscore/src/gecscore/_trueskill.c) against the numpy player.

The numpy player is checked against the ``trueskill`` package match by match
(test_rankings.py::test_vectorised_update_replays_the_trueskill_package); the compiled one must
give the numpy player's numbers for the same seeded draws. The two use different exp
implementations (numpy's SIMD one, the C library's), which may differ in the last bit, so the
comparison allows 1e-12; a different selection of an opponent or a judgment in any run would
show as a difference of order 0.01.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from gecscore.meta.judgments import Comparison, pairwise, read_judgments_xml
from gecscore.meta.rankings import trueskill_ranking
from gecscore.meta.rankings.trueskill_ranking import _play

needs_compiled = pytest.mark.skipif(
    trueskill_ranking._trueskill is None and os.environ.get("GEC_REQUIRE_NATIVE") != "1",
    reason="compiled TrueSkill player not built (pip install -e ./gecscore with a C compiler)",
)


def test_the_compiled_player_is_built_where_it_is_required() -> None:
    # CI (`.ci/run`) sets GEC_REQUIRE_NATIVE=1: there the compiled path must be what is tested.
    if os.environ.get("GEC_REQUIRE_NATIVE") != "1":
        pytest.skip("GEC_REQUIRE_NATIVE is not set")
    assert trueskill_ranking._trueskill is not None


def _both(pairs: list[Comparison], matches: int) -> None:
    chunks = [(500, 11), (300, 12)]  # two generators side by side, as trueskill_mu plays them
    numpy_mu, numpy_var, _ = _play(pairs, chunks, matches=matches, compiled=False)
    native_mu, native_var, _ = _play(pairs, chunks, matches=matches, compiled=True)
    systems = {p.system_a for p in pairs} | {p.system_b for p in pairs}
    assert numpy_mu.shape == native_mu.shape == (800, len(systems))
    np.testing.assert_allclose(native_mu, numpy_mu, rtol=0, atol=1e-12)
    np.testing.assert_allclose(native_var, numpy_var, rtol=1e-12, atol=0)
    # The runs moved: the comparison is not of two untouched starting points.
    assert np.ptp(numpy_mu, axis=0).min() > 0.005


@needs_compiled
def test_compiled_player_equals_numpy_on_seeda_with_draws(seeda: Path) -> None:
    pairs = pairwise(read_judgments_xml(seeda / "data" / "judgments_edit.xml").items)
    assert sum(p.relation == "=" for p in pairs) > 1000  # the draw update runs too
    _both(pairs, matches=600)


@needs_compiled
def test_compiled_player_equals_numpy_where_some_pairs_were_never_judged(seeda: Path) -> None:
    pairs = pairwise(read_judgments_xml(seeda / "data" / "judgments_sent.xml").items)
    systems = sorted({p.system_a for p in pairs} | {p.system_b for p in pairs})
    never = {systems[0], systems[1]}
    kept = [p for p in pairs if {p.system_a, p.system_b} != never]
    assert len(kept) < len(pairs)
    _both(kept, matches=600)


def test_asking_for_the_compiled_player_without_it_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gecscore.errors import InputError

    monkeypatch.setattr(trueskill_ranking, "_trueskill", None)
    pairs = [Comparison("1", "u", "a", "b", "<", 1, 2), Comparison("2", "u", "a", "b", "=", 1, 1)]
    with pytest.raises(InputError, match="compiled TrueSkill player"):
        _play(pairs, [(4, 1)], matches=3, compiled=True)
    mu, _, _ = _play(pairs, [(4, 1)], matches=3)  # the default falls back to numpy
    assert mu.shape == (4, 2)


@needs_compiled
def test_compiled_v_w_equals_numpy_and_the_package_fallbacks_far_out() -> None:
    # Far from 0 a cdf underflows to 0 and the package falls back (v = -x on a win, +-a on a
    # draw); the played matches above never get there.
    native = trueskill_ranking._trueskill
    assert native is not None
    t = np.array([-60.0, -40.0, -8.0, -1.5, -0.1, 0.0, 0.3, 2.0, 9.0, 41.0, 60.0] * 2)
    eps = np.full(t.shape, 0.2)
    draw = np.array([False] * 11 + [True] * 11)
    v, w = trueskill_ranking._v_w(t, eps, draw)
    for k in range(t.size):
        native_v, native_w = native.v_w(float(t[k]), float(eps[k]), bool(draw[k]))
        assert native_v == pytest.approx(v[k], rel=1e-12, abs=1e-300), (t[k], draw[k])
        assert native_w == pytest.approx(w[k], rel=1e-12, abs=1e-300), (t[k], draw[k])
    # The fallback ran: a win far behind gives v = -x exactly.
    assert v[0] == -(t[0] - eps[0])
