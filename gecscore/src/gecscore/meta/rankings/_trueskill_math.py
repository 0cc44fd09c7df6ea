"""The ``trueskill`` package's two-player math, vectorised over runs: its erfc approximation,
the normal cdf and pdf built on it, and its v and w functions (win and draw, with the
package's fallbacks where a cdf underflows). :mod:`gecscore.meta.rankings.trueskill_ranking`
plays the matches with them."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from gecscore.meta.rankings.ranking import FloatArray

_ERFC_COEFFICIENTS = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
)


def _erfc(x: FloatArray) -> FloatArray:
    """The ``trueskill`` package's default erfc (a Chebyshev fit, fractional error < 1.2e-7):
    the same approximation, so the vectorised update gives the package's numbers. Every step
    writes in place (numpy's per-call cost, not the arithmetic, dominates at 1,000 runs)."""
    z = np.abs(x)
    t = z / 2.0
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _ERFC_COEFFICIENTS[0]  # the same bits as a constant times t
    poly += _ERFC_COEFFICIENTS[1]
    for coefficient in _ERFC_COEFFICIENTS[2:]:
        poly *= t
        poly += coefficient
    poly *= t
    poly -= 1.26551223
    z *= z
    poly -= z
    np.exp(poly, out=poly)
    poly *= t
    np.subtract(2.0, poly, out=poly, where=x < 0)
    return poly


def _cdf(x: FloatArray) -> FloatArray:
    out = _erfc(x * -(1 / math.sqrt(2)))
    out *= 0.5
    return out


def _pdf(x: FloatArray) -> FloatArray:
    out: FloatArray = x * x
    out *= -0.5
    np.exp(out, out=out)
    out *= 1 / math.sqrt(2 * math.pi)
    return out


def _v_w(
    t: FloatArray, eps: FloatArray, draw: npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray]:
    """The package's v and w functions for team difference t and draw margin eps (both
    already divided by c): the win versions where not ``draw``, the draw versions where it is."""
    size = t.shape[0]
    abs_t = np.abs(t)
    x = t - eps  # win: v = pdf(x)/cdf(x) (or -x where cdf(x) == 0), w = v (v + x)
    a = eps - abs_t  # draw: v = (pdf(b) - pdf(a)) / (cdf(a) - cdf(b)), signed by t
    points = np.empty(2 * size)
    np.copyto(points[:size], x)
    np.copyto(points[:size], a, where=draw)
    b = np.subtract(-eps, abs_t, out=points[size:])
    cdf = _cdf(points)
    pdf = _pdf(points)
    cdf_1, cdf_b = cdf[:size], cdf[size:]
    pdf_1, pdf_b = pdf[:size], pdf[size:]
    denom = np.subtract(cdf_1, cdf_b, out=cdf_1, where=draw)
    if not denom.all():  # a cdf that underflowed to 0: the package's fallbacks
        return _v_w_fallback(t, x, a, b, denom, pdf_1, pdf_b, draw)
    w_draw = a * pdf_1
    w_draw -= b * pdf_b
    w_draw /= denom
    u = np.subtract(pdf_b, pdf_1, out=pdf_1, where=draw)  # v where not draw, |v| where draw
    u /= denom
    w = u + x
    np.copyto(w, u, where=draw)
    w *= u
    np.add(w, w_draw, out=w, where=draw)
    np.negative(u, out=u, where=draw & (t < 0))
    return u, w


def _v_w_fallback(
    t: FloatArray,
    x: FloatArray,
    a: FloatArray,
    b: FloatArray,
    denom: FloatArray,
    pdf_1: FloatArray,
    pdf_b: FloatArray,
    draw: npt.NDArray[np.bool_],
) -> tuple[FloatArray, FloatArray]:
    """:func:`_v_w` where some denominator is 0 (v = -x on a win, a on a draw, as the package)."""
    ok = denom != 0
    safe = np.where(ok, denom, 1.0)
    v_win = np.where(ok, pdf_1 / safe, -x)
    v_abs = np.where(ok, (pdf_b - pdf_1) / safe, a)
    v = np.where(draw, np.where(t < 0, -v_abs, v_abs), v_win)
    w = np.where(draw, v_abs * v_abs + (a * pdf_1 - b * pdf_b) / safe, v_win * (v_win + x))
    return v, w
