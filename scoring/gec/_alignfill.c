/*
 * Optional compiled DP fill for scoring/gec/align.py (ChERRANT's weighted Damerau-Levenshtein).
 *
 * Why: the banded fill was ~2/3 of the extractor's CPU time in pure Python (issue #5: a first
 * M2 export of 100,000 x 3 references). This file is a line-for-line port of align._fill: the
 * same band layout, the same order of floating-point additions and comparisons (IEEE doubles,
 * as Python floats; no -ffast-math), the same transposition filter, so the tables it returns
 * are bit-identical to the Python ones (tests/scoring/test_align_native.py compares them on
 * real data). align.py falls back to the Python fill when this module is not built.
 *
 * Substitution costs stay defined in Python (align.substitution_costs); they are memoised here,
 * in a PairCosts hash table keyed by (source token id << 32 | target token id). fill() returns
 * the list of keys it is missing; the caller computes them, adds them and calls fill() again.
 *
 * Built by scoring/gec/build_native.py (make install runs it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY_KEY UINT64_MAX

/* ------------------------------------------------------------------ PairCosts hash table */

typedef struct {
    PyObject_HEAD
    uint64_t *keys;
    double *values;
    Py_ssize_t capacity; /* a power of two */
    int shift;           /* 64 - log2(capacity) */
    Py_ssize_t size;
} PairCosts;

static inline Py_ssize_t slot_of(const PairCosts *self, uint64_t key) {
    return (Py_ssize_t)((key * 0x9E3779B97F4A7C15ULL) >> self->shift);
}

static int pc_allocate(PairCosts *self, Py_ssize_t capacity) {
    int bits = 0;
    while (((Py_ssize_t)1 << bits) < capacity) bits++;
    capacity = (Py_ssize_t)1 << bits;
    uint64_t *keys = PyMem_Malloc(sizeof(uint64_t) * (size_t)capacity);
    double *values = PyMem_Malloc(sizeof(double) * (size_t)capacity);
    if (keys == NULL || values == NULL) {
        PyMem_Free(keys);
        PyMem_Free(values);
        PyErr_NoMemory();
        return -1;
    }
    memset(keys, 0xFF, sizeof(uint64_t) * (size_t)capacity);
    self->keys = keys;
    self->values = values;
    self->capacity = capacity;
    self->shift = 64 - bits;
    self->size = 0;
    return 0;
}

static inline int pc_lookup(const PairCosts *self, uint64_t key, double *value) {
    Py_ssize_t mask = self->capacity - 1;
    for (Py_ssize_t at = slot_of(self, key);; at = (at + 1) & mask) {
        uint64_t found = self->keys[at];
        if (found == key) {
            *value = self->values[at];
            return 1;
        }
        if (found == EMPTY_KEY) return 0;
    }
}

static void pc_put_unchecked(PairCosts *self, uint64_t key, double value) {
    Py_ssize_t mask = self->capacity - 1;
    for (Py_ssize_t at = slot_of(self, key);; at = (at + 1) & mask) {
        if (self->keys[at] == key) {
            self->values[at] = value;
            return;
        }
        if (self->keys[at] == EMPTY_KEY) {
            self->keys[at] = key;
            self->values[at] = value;
            self->size++;
            return;
        }
    }
}

static int pc_put(PairCosts *self, uint64_t key, double value) {
    if ((self->size + 1) * 2 > self->capacity) { /* keep the load factor under 1/2 */
        uint64_t *old_keys = self->keys;
        double *old_values = self->values;
        Py_ssize_t old_capacity = self->capacity;
        if (pc_allocate(self, old_capacity * 2) < 0) {
            self->keys = old_keys;
            self->values = old_values;
            return -1;
        }
        for (Py_ssize_t i = 0; i < old_capacity; i++)
            if (old_keys[i] != EMPTY_KEY) pc_put_unchecked(self, old_keys[i], old_values[i]);
        PyMem_Free(old_keys);
        PyMem_Free(old_values);
    }
    pc_put_unchecked(self, key, value);
    return 0;
}

static PyObject *pc_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PairCosts *self = (PairCosts *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (pc_allocate(self, 1 << 12) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void pc_dealloc(PairCosts *self) {
    PyMem_Free(self->keys);
    PyMem_Free(self->values);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int key_from(PyObject *item, uint64_t *key) {
    unsigned long long value = PyLong_AsUnsignedLongLong(item);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (value == EMPTY_KEY) {
        PyErr_SetString(PyExc_ValueError, "reserved key");
        return -1;
    }
    *key = (uint64_t)value;
    return 0;
}

static PyObject *pc_add(PairCosts *self, PyObject *args) {
    PyObject *keys_arg, *values_arg;
    if (!PyArg_ParseTuple(args, "OO:add", &keys_arg, &values_arg)) return NULL;
    PyObject *keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL) return NULL;
    PyObject *values = PySequence_Fast(values_arg, "values must be a sequence");
    if (values == NULL) {
        Py_DECREF(keys);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(keys);
    if (count != PySequence_Fast_GET_SIZE(values)) {
        PyErr_SetString(PyExc_ValueError, "keys and values differ in length");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        uint64_t key;
        if (key_from(PySequence_Fast_GET_ITEM(keys, i), &key) < 0) goto fail;
        double value = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(values, i));
        if (value == -1.0 && PyErr_Occurred()) goto fail;
        if (pc_put(self, key, value) < 0) goto fail;
    }
    Py_DECREF(keys);
    Py_DECREF(values);
    Py_RETURN_NONE;
fail:
    Py_DECREF(keys);
    Py_DECREF(values);
    return NULL;
}

static PyObject *pc_get(PairCosts *self, PyObject *arg) {
    uint64_t key;
    double value;
    if (key_from(arg, &key) < 0) return NULL;
    if (pc_lookup(self, key, &value)) return PyFloat_FromDouble(value);
    Py_RETURN_NONE;
}

static Py_ssize_t pc_len(PairCosts *self) { return self->size; }

static PyMethodDef pc_methods[] = {
    {"add", (PyCFunction)pc_add, METH_VARARGS, "add(keys, values): memoise substitution costs"},
    {"get", (PyCFunction)pc_get, METH_O, "get(key) -> float or None"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods pc_as_sequence = {.sq_length = (lenfunc)pc_len};

static PyTypeObject PairCostsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scoring.gec._alignfill.PairCosts",
    .tp_doc = "Substitution costs keyed by (source id << 32 | target id).",
    .tp_basicsize = sizeof(PairCosts),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = pc_new,
    .tp_dealloc = (destructor)pc_dealloc,
    .tp_methods = pc_methods,
    .tp_as_sequence = &pc_as_sequence,
};

/* ------------------------------------------------------------------------------ the fill */

static int read_ids(PyObject *arg, uint32_t **out, Py_ssize_t *length) {
    PyObject *seq = PySequence_Fast(arg, "token ids must be a sequence");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint32_t *ids = PyMem_Malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (ids == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long value = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((value == (unsigned long)-1 && PyErr_Occurred()) || value >= UINT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "token id too large");
            PyMem_Free(ids);
            Py_DECREF(seq);
            return -1;
        }
        ids[i] = (uint32_t)value;
    }
    Py_DECREF(seq);
    *out = ids;
    *length = n;
    return 0;
}

/* Local ids 0..V-1 for the tokens of one pair, so that the transposition multiset check can use
 * a plain counts array. A small open-addressing table over the global ids. */
static int local_ids(const uint32_t *src, Py_ssize_t n, const uint32_t *tgt, Py_ssize_t m,
                     int *src_local, int *tgt_local, int *distinct) {
    Py_ssize_t capacity = 16;
    while (capacity < 2 * (n + m)) capacity *= 2;
    uint32_t *table_keys = PyMem_Malloc(sizeof(uint32_t) * (size_t)capacity);
    int *table_values = PyMem_Malloc(sizeof(int) * (size_t)capacity);
    if (table_keys == NULL || table_values == NULL) {
        PyMem_Free(table_keys);
        PyMem_Free(table_values);
        PyErr_NoMemory();
        return -1;
    }
    memset(table_keys, 0xFF, sizeof(uint32_t) * (size_t)capacity);
    int next = 0;
    for (int side = 0; side < 2; side++) {
        const uint32_t *ids = side ? tgt : src;
        int *out = side ? tgt_local : src_local;
        Py_ssize_t count = side ? m : n;
        for (Py_ssize_t i = 0; i < count; i++) {
            Py_ssize_t at = (Py_ssize_t)((ids[i] * 2654435761u) & (uint32_t)(capacity - 1));
            while (table_keys[at] != UINT32_MAX && table_keys[at] != ids[i])
                at = (at + 1) & (capacity - 1);
            if (table_keys[at] == UINT32_MAX) {
                table_keys[at] = ids[i];
                table_values[at] = next++;
            }
            out[i] = table_values[at];
        }
    }
    PyMem_Free(table_keys);
    PyMem_Free(table_values);
    *distinct = next;
    return 0;
}

/* Smallest k in 1..limit with multiset(src[i-k..i]) == multiset(tgt[j-k..j]); 0 if none.
 * `balance` is all zeros on entry and on exit. Mirrors align._transposition. */
static int transposition(const int *src, const int *tgt, Py_ssize_t i, Py_ssize_t j, int limit,
                         int *balance) {
    int nonzero = 0, found = 0, k;
    for (k = 0; k <= limit; k++) {
        int token = src[i - k];
        int old = balance[token];
        balance[token] = old + 1;
        if (old == 0) nonzero++;
        else if (old + 1 == 0) nonzero--;
        token = tgt[j - k];
        old = balance[token];
        balance[token] = old - 1;
        if (old == 0) nonzero++;
        else if (old - 1 == 0) nonzero--;
        if (nonzero == 0 && k) {
            found = k;
            break;
        }
    }
    int last = k <= limit ? k : limit;
    for (int back = 0; back <= last; back++) {
        balance[src[i - back]] = 0;
        balance[tgt[j - back]] = 0;
    }
    return found;
}

static PyObject *fill(PyObject *module, PyObject *args) {
    PyObject *costs_arg, *src_arg, *tgt_arg;
    Py_ssize_t low, high;
    if (!PyArg_ParseTuple(args, "O!OOnn:fill", &PairCostsType, &costs_arg, &src_arg, &tgt_arg,
                          &low, &high))
        return NULL;
    PairCosts *costs = (PairCosts *)costs_arg;
    uint32_t *src = NULL, *tgt = NULL;
    int *src_l = NULL, *tgt_l = NULL, *balance = NULL, *last_in_src = NULL;
    double *sub = NULL;
    PyObject *missing = NULL, *cost_obj = NULL, *run_obj = NULL, *result = NULL;
    Py_ssize_t n, m;
    if (read_ids(src_arg, &src, &n) < 0) goto done;
    if (read_ids(tgt_arg, &tgt, &m) < 0) goto done;
    if (high < low || n > INT32_MAX || m > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "bad band or sizes");
        goto done;
    }
    const Py_ssize_t width = high - low + 1, stride = width + 2, offset = high + 1;
    const Py_ssize_t rows = n + 1;

    /* Pass 1: the substitution cost of every non-matching band cell, or the missing keys. */
    sub = PyMem_Malloc(sizeof(double) * (size_t)(rows * stride));
    if (sub == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t a = i + 1;
        Py_ssize_t j_from = a - high - 1 > 0 ? a - high - 1 : 0;
        Py_ssize_t j_to = a - low < m ? a - low : m;
        Py_ssize_t q = j_from - i + offset;
        uint64_t row_key = (uint64_t)src[i] << 32;
        for (Py_ssize_t j = j_from; j < j_to; j++, q++) {
            if (src[i] == tgt[j]) continue;
            uint64_t key = row_key | tgt[j];
            if (!pc_lookup(costs, key, &sub[a * stride + q])) {
                if (missing == NULL && (missing = PyList_New(0)) == NULL) goto done;
                PyObject *item = PyLong_FromUnsignedLongLong(key);
                if (item == NULL || PyList_Append(missing, item) < 0) {
                    Py_XDECREF(item);
                    goto done;
                }
                Py_DECREF(item);
            }
        }
    }
    if (missing != NULL) {
        result = missing;
        missing = NULL;
        goto done;
    }

    /* Pass 2: the fill, exactly as align._fill. */
    src_l = PyMem_Malloc(sizeof(int) * (size_t)(n + 1));
    tgt_l = PyMem_Malloc(sizeof(int) * (size_t)(m + 1));
    if (src_l == NULL || tgt_l == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int distinct;
    if (local_ids(src, n, tgt, m, src_l, tgt_l, &distinct) < 0) goto done;
    balance = PyMem_Calloc((size_t)distinct + 1, sizeof(int));
    last_in_src = PyMem_Malloc(sizeof(int) * ((size_t)distinct + 1));
    if (balance == NULL || last_in_src == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int v = 0; v < distinct; v++) last_in_src[v] = -1;

    cost_obj = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(double) * rows * stride);
    run_obj = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * rows * stride);
    if (cost_obj == NULL || run_obj == NULL) goto done;
    double *cost = (double *)PyByteArray_AS_STRING(cost_obj);
    int32_t *run = (int32_t *)PyByteArray_AS_STRING(run_obj);
    for (Py_ssize_t x = 0; x < rows * stride; x++) cost[x] = INFINITY;
    memset(run, 0, sizeof(int32_t) * (size_t)(rows * stride));

    cost[offset] = 0.0;
    for (Py_ssize_t a = 1; a <= (n < high ? n : high); a++)
        cost[a * stride + offset - a] = cost[(a - 1) * stride + offset - a + 1] + 1;
    for (Py_ssize_t b = 1; b <= (m < -low ? m : -low); b++)
        cost[offset + b] = cost[offset + b - 1] + 1;

    for (Py_ssize_t i = 0; i < n; i++) {
        const int s_i = src_l[i];
        const Py_ssize_t a = i + 1;
        const Py_ssize_t j_from = a - high - 1 > 0 ? a - high - 1 : 0;
        const Py_ssize_t j_to = a - low < m ? a - low : m;
        double *prev_cost = cost + i * stride, *cur_cost = cost + a * stride;
        const int32_t *prev_run = run + i * stride;
        int32_t *cur_run = run + a * stride;
        const double *sub_row = sub + a * stride;
        /* t_last: the latest target position < j holding the token s_i (-1 if none). */
        Py_ssize_t t_last = -1;
        for (Py_ssize_t back = j_from - 1; back >= 0; back--)
            if (tgt_l[back] == s_i) {
                t_last = back;
                break;
            }
        Py_ssize_t q = j_from - i + offset;
        for (Py_ssize_t j = j_from; j < j_to; j++, q++) {
            if (j > j_from && tgt_l[j - 1] == s_i) t_last = j - 1;
            const double diag = prev_cost[q];
            const int t_j = tgt_l[j];
            if (s_i == t_j) {
                cur_cost[q] = diag;
                cur_run[q] = 0;
                continue;
            }
            double value = diag + sub_row[q];
            double other = prev_cost[q + 1] + 1;
            if (other < value) value = other;
            other = cur_cost[q - 1] + 1;
            if (other < value) value = other;
            const int32_t limit = prev_run[q];
            if (limit) {
                if (t_last >= 0) {
                    const Py_ssize_t s_last = last_in_src[t_j];
                    if (s_last >= 0 && j - t_last <= limit && i - s_last <= limit) {
                        int k = transposition(src_l, tgt_l, i, j, limit, balance);
                        if (k) {
                            other = cost[(i - k) * stride + q] + k;
                            if (other < value) value = other;
                        }
                    }
                }
                cur_run[q] = value != diag ? limit + 1 : 0;
            } else {
                cur_run[q] = value != diag ? 1 : 0;
            }
            cur_cost[q] = value;
        }
        last_in_src[s_i] = (int)i;
    }
    result = PyTuple_Pack(2, cost_obj, run_obj);

done:
    PyMem_Free(src);
    PyMem_Free(tgt);
    PyMem_Free(src_l);
    PyMem_Free(tgt_l);
    PyMem_Free(balance);
    PyMem_Free(last_in_src);
    PyMem_Free(sub);
    Py_XDECREF(missing);
    Py_XDECREF(cost_obj);
    Py_XDECREF(run_obj);
    return result;
}

static PyMethodDef module_methods[] = {
    {"fill", fill, METH_VARARGS,
     "fill(costs, src_ids, tgt_ids, low, high) -> (cost bytearray of doubles, run bytearray of "
     "int32), rows of high - low + 3 slots; or the list of missing substitution-cost keys"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "scoring.gec._alignfill",
    "Compiled banded DP fill for scoring.gec.align (bit-identical to the Python fill).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__alignfill(void) {
    if (PyType_Ready(&PairCostsType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    Py_INCREF(&PairCostsType);
    if (PyModule_AddObject(module, "PairCosts", (PyObject *)&PairCostsType) < 0) {
        Py_DECREF(&PairCostsType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
