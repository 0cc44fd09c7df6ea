/* The optional compiled TrueSkill player (gecscore.meta.rankings.trueskill_ranking._play).
 *
 * play_block(mu, var, uniforms, counts, offsets, sides, draws, judged, n, two_beta_sq,
 *            draw_margin) plays one block of matches of every run, in place:
 *   mu, var      float64, systems x runs (C order), written
 *   uniforms     float64, steps x 2 x runs: per step, the opponent's and the judgment's draw
 *   counts       float64, n x n: judgments per pair of systems (symmetric)
 *   offsets      int64,   n x n: where a pair's judgments start in sides/draws
 *   sides        int64,   2 x m: winner and loser of each judgment
 *   draws        bool,    m
 *   judged       bool n x n, or None when every pair of systems was judged
 *
 * Runs are independent; the block is played step by step over all runs (measured a little
 * faster than run by run: a run alone is a chain of dependent divisions, square roots and
 * exps, and neighbouring runs give the CPU independent work). Every step does the numpy
 * player's operations in the same order and IEEE double precision (built with -ffp-contract=off, no fused multiply-add): the selection of the
 * system with the largest sigma, the opponent by cumulative weight, the judgment, and the
 * trueskill package's two-player update with its erfc approximation. The one difference is
 * exp: the C library's here, numpy's SIMD exp there, which may differ in the last bit; the
 * package itself uses the C library's (math.exp).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const double ERFC_COEFFICIENTS[9] = {
    0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
    -0.18628806, 0.09678418, 0.37409196, 1.00002368,
};

static double ts_erfc(double x) {
    double z = fabs(x);
    double t = z / 2.0;
    t += 1.0;
    t = 1.0 / t;
    double poly = t * ERFC_COEFFICIENTS[0];
    poly += ERFC_COEFFICIENTS[1];
    for (int i = 2; i < 9; i++) {
        poly *= t;
        poly += ERFC_COEFFICIENTS[i];
    }
    poly *= t;
    poly -= 1.26551223;
    z *= z;
    poly -= z;
    poly = exp(poly);
    poly *= t;
    if (x < 0) poly = 2.0 - poly;
    return poly;
}

static double ts_cdf(double x) { return ts_erfc(x * -(1.0 / sqrt(2.0))) * 0.5; }

static double ts_pdf(double x) {
    double out = x * x;
    out *= -0.5;
    return exp(out) * (1.0 / sqrt(2.0 * M_PI));
}

/* The package's v and w for team difference t and draw margin eps (both divided by c). */
static void ts_v_w(double t, double eps, int draw, double *v_out, double *w_out) {
    double abs_t = fabs(t);
    double x = t - eps;
    if (!draw) {  /* numpy also computes the draw terms for wins; they are not used */
        double denom = ts_cdf(x);
        double v = denom != 0 ? ts_pdf(x) / denom : -x;
        *v_out = v;
        *w_out = (v + x) * v;
        return;
    }
    double a = eps - abs_t;
    double b = (-eps) - abs_t;
    double cdf_1 = ts_cdf(a), cdf_b = ts_cdf(b);
    double pdf_1 = ts_pdf(a), pdf_b = ts_pdf(b);
    double denom = cdf_1 - cdf_b;
    double u, w_draw;
    if (denom != 0) {
        u = (pdf_b - pdf_1) / denom;
        w_draw = (a * pdf_1 - b * pdf_b) / denom;
    } else {  /* a cdf that underflowed to 0: the package's fallback */
        u = a;
        w_draw = (a * pdf_1 - b * pdf_b) / 1.0;
    }
    *w_out = u * u + w_draw;
    *v_out = t < 0 ? -u : u;
}

typedef struct {
    Py_buffer mu, var, uniforms, counts, offsets, sides, draws, judged;
    int have_judged;
} Buffers;

static void release(Buffers *b) {
    Py_buffer *all[] = {&b->mu, &b->var, &b->uniforms, &b->counts, &b->offsets, &b->sides,
                        &b->draws, &b->judged};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i]->obj != NULL) PyBuffer_Release(all[i]);
}

static int take(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t itemsize,
                const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected", name, itemsize);
        return -1;
    }
    return 0;
}

static PyObject *play_block(PyObject *self, PyObject *args) {
    PyObject *mu_o, *var_o, *uni_o, *counts_o, *offsets_o, *sides_o, *draws_o, *judged_o;
    Py_ssize_t n;
    double two_beta_sq, draw_margin;
    if (!PyArg_ParseTuple(args, "OOOOOOOOndd:play_block", &mu_o, &var_o, &uni_o, &counts_o,
                          &offsets_o, &sides_o, &draws_o, &judged_o, &n, &two_beta_sq,
                          &draw_margin))
        return NULL;
    Buffers b = {0};
    b.have_judged = judged_o != Py_None;
    if (take(mu_o, &b.mu, 1, 8, "mu") < 0 || take(var_o, &b.var, 1, 8, "var") < 0 ||
        take(uni_o, &b.uniforms, 0, 8, "uniforms") < 0 ||
        take(counts_o, &b.counts, 0, 8, "counts") < 0 ||
        take(offsets_o, &b.offsets, 0, 8, "offsets") < 0 ||
        take(sides_o, &b.sides, 0, 8, "sides") < 0 || take(draws_o, &b.draws, 0, 1, "draws") < 0 ||
        (b.have_judged && take(judged_o, &b.judged, 0, 1, "judged") < 0)) {
        release(&b);
        return NULL;
    }
    Py_ssize_t cells = b.mu.len / 8;
    Py_ssize_t runs = n > 0 ? cells / n : 0;
    Py_ssize_t m = b.draws.len;
    Py_ssize_t steps = runs > 0 ? b.uniforms.len / 8 / (2 * runs) : 0;
    if (n < 2 || runs * n != cells || b.var.len != b.mu.len || steps * 2 * runs * 8 != b.uniforms.len ||
        b.counts.len != n * n * 8 || b.offsets.len != n * n * 8 || b.sides.len != 2 * m * 8 ||
        (b.have_judged && b.judged.len != n * n)) {
        release(&b);
        PyErr_SetString(PyExc_ValueError, "play_block: array shapes do not agree");
        return NULL;
    }
    double *mu = b.mu.buf, *var = b.var.buf;
    const double *uni = b.uniforms.buf, *counts = b.counts.buf;
    const int64_t *offsets = b.offsets.buf, *sides = b.sides.buf;
    const char *draws = b.draws.buf, *judged = b.have_judged ? b.judged.buf : NULL;
    double *cumulative = malloc(sizeof(double) * (size_t)n);
    if (cumulative == NULL) {
        release(&b);
        return PyErr_NoMemory();
    }
    int bad_pick = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < steps && !bad_pick; s++) {
        for (Py_ssize_t r = 0; r < runs; r++) {
            double u_opponent = uni[(s * 2) * runs + r], u_judgment = uni[(s * 2 + 1) * runs + r];
            /* The largest sigma, ties to the largest index (TS.py sorts by (sigma, name)). */
            Py_ssize_t first = 0;
            double largest = var[r];
            for (Py_ssize_t k = 1; k < n; k++) {
                double value = var[k * runs + r];
                if (value >= largest) {
                    largest = value;
                    first = k;
                }
            }
            double mu_first = mu[first * runs + r], total = 0.0;
            for (Py_ssize_t k = 0; k < n; k++) {
                double weight = exp(-fabs(mu[k * runs + r] - mu_first));
                if (judged != NULL ? !judged[k * n + first] : k == first) weight = 0.0;
                total = k == 0 ? weight : total + weight;
                cumulative[k] = total;
            }
            double threshold = u_opponent * total;
            Py_ssize_t second = 0;
            for (Py_ssize_t k = 0; k < n; k++) second += cumulative[k] <= threshold;
            if (second > n - 1) second = n - 1;
            Py_ssize_t pair = first * n + second;
            int64_t pick = (int64_t)(u_judgment * counts[pair]) + offsets[pair];
            if (pick < 0 || pick >= m) {
                bad_pick = 1;
                break;
            }
            Py_ssize_t at_w = sides[pick] * runs + r, at_l = sides[m + pick] * runs + r;
            double mu_w = mu[at_w], mu_l = mu[at_l], var_w = var[at_w], var_l = var[at_l];
            double c2 = var_w + var_l;
            c2 += two_beta_sq;
            double c = sqrt(c2);
            double t = mu_w - mu_l;
            t /= c;
            double v, w;
            ts_v_w(t, draw_margin / c, draws[pick] != 0, &v, &w);
            mu[at_w] = (var_w / c) * v + mu_w;
            var[at_w] = (1.0 - (var_w / c2) * w) * var_w;
            mu[at_l] = -((var_l / c) * v) + mu_l;
            var[at_l] = (1.0 - (var_l / c2) * w) * var_l;
        }
    }
    Py_END_ALLOW_THREADS
    free(cumulative);
    release(&b);
    if (bad_pick) {
        PyErr_SetString(PyExc_ValueError, "play_block: a judgment index out of range");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* v_w(t, eps, draw) -> (v, w): the update's v and w for one match (for tests). */
static PyObject *v_w(PyObject *self, PyObject *args) {
    double t, eps, v, w;
    int draw;
    if (!PyArg_ParseTuple(args, "ddp:v_w", &t, &eps, &draw)) return NULL;
    ts_v_w(t, eps, draw, &v, &w);
    return Py_BuildValue("(dd)", v, w);
}

static PyMethodDef module_methods[] = {
    {"v_w", v_w, METH_VARARGS, "v and w of the two-player update for one match (for tests)."},
    {"play_block", play_block, METH_VARARGS,
     "Play a block of TrueSkill matches of every run in place (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gecscore._trueskill",
    "The optional compiled TrueSkill player of gecscore.meta.rankings.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__trueskill(void) { return PyModule_Create(&module_def); }
