/*
 * Optional compiled core of the package gecscore/src/gecscore/align/ (ChERRANT's weighted
 * Damerau-Levenshtein).
 *
 * Why: in pure Python the banded fill and the back-track were ~80% of the extractor's CPU time
 * (measured on a first M2 export of 100,000 x 3 references on 2 cores). This file is a
 * line-for-line port of align.table._fill, align.backtrack._cell_ops / _Grid.transposition,
 * align.backtrack._backtrack, align.backtrack._certified and align()'s band-widening loop: the
 * same band layout, the same order of floating-point additions and comparisons (IEEE doubles,
 * as Python floats; no -ffast-math), the same transposition filter, the same depth-first order
 * and path bound. Its tables and paths are identical to the Python ones
 * (gecscore/tests/char/test_align_native.py compares them on real data and on
 * transposition-heavy inputs); align/native.py falls back to the Python code when this module
 * is not built or GEC_PURE_PYTHON=1.
 *
 * Substitution costs are defined in Python (align.costs.substitution_costs); they are memoised here,
 * in a PairCosts hash table keyed by (source token id << 32 | target token id). fill() and
 * align() return the list of keys they miss; the caller computes them, adds them and calls again.
 * At char level char_costs() computes the missing costs here from per-token features that
 * Python supplies (CharFeatures), with the same arithmetic (tests hold the two equal).
 *
 * Built by the package's setup.py (an optional extension: in the wheel, or in place by pip install -e).
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
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gecscore._alignfill.PairCosts",
    .tp_doc = "Substitution costs keyed by (source id << 32 | target id).",
    .tp_basicsize = sizeof(PairCosts),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = pc_new,
    .tp_dealloc = (destructor)pc_dealloc,
    .tp_methods = pc_methods,
    .tp_as_sequence = &pc_as_sequence,
};

/* ---------------------------------------------------- CharFeatures: the char cost model */

/* The features of each token id that ChERRANT's char-level substitution cost reads
 * (align.costs.substitution_costs): Cilin class parts (interned ids, -1 without a class), punctuation,
 * all-CJK, single character, pinyin reading ids (sorted) and, for a single character, its code
 * point and the sorted code points of the one-character members of its confusion set. char_costs() computes
 * the costs the fill reported missing with the same arithmetic as the Python cost model; pairs of
 * multi-character CJK tokens (never produced by the char tokenizer) go back to Python. */

#define FLAG_PUNCT 1
#define FLAG_CJK 2
#define FLAG_SINGLE 4

typedef struct {
    int32_t *items;
    Py_ssize_t length;
} IntRun;

typedef struct {
    PyObject_HEAD
    Py_ssize_t count, capacity;
    int32_t (*semantic)[3];
    uint8_t *flags;
    uint32_t *codepoint;
    IntRun *readings;
    IntRun *confusion;
} CharFeatures;

static void cf_free_runs(CharFeatures *self) {
    for (Py_ssize_t i = 0; i < self->count; i++) {
        PyMem_Free(self->readings[i].items);
        PyMem_Free(self->confusion[i].items);
    }
}

static void cf_dealloc(CharFeatures *self) {
    cf_free_runs(self);
    PyMem_Free(self->semantic);
    PyMem_Free(self->flags);
    PyMem_Free(self->codepoint);
    PyMem_Free(self->readings);
    PyMem_Free(self->confusion);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int cf_grow(CharFeatures *self) {
    Py_ssize_t capacity = self->capacity ? self->capacity * 2 : 1024;
    void *semantic = PyMem_Realloc(self->semantic, sizeof(int32_t[3]) * (size_t)capacity);
    if (semantic == NULL) return -1;
    self->semantic = semantic;
    void *flags = PyMem_Realloc(self->flags, sizeof(uint8_t) * (size_t)capacity);
    if (flags == NULL) return -1;
    self->flags = flags;
    void *codepoint = PyMem_Realloc(self->codepoint, sizeof(uint32_t) * (size_t)capacity);
    if (codepoint == NULL) return -1;
    self->codepoint = codepoint;
    void *readings = PyMem_Realloc(self->readings, sizeof(IntRun) * (size_t)capacity);
    if (readings == NULL) return -1;
    self->readings = readings;
    void *confusion = PyMem_Realloc(self->confusion, sizeof(IntRun) * (size_t)capacity);
    if (confusion == NULL) return -1;
    self->confusion = confusion;
    self->capacity = capacity;
    return 0;
}

/* A sorted run of non-negative ints from a Python sequence (sorted here, duplicates kept). */
static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int read_run(PyObject *arg, IntRun *run) {
    PyObject *seq = PySequence_Fast(arg, "expected a sequence of ints");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int32_t *items = PyMem_Malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (items == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((value == -1 && PyErr_Occurred()) || value < 0 || value > INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "value out of range");
            PyMem_Free(items);
            Py_DECREF(seq);
            return -1;
        }
        items[i] = (int32_t)value;
    }
    Py_DECREF(seq);
    qsort(items, (size_t)n, sizeof(int32_t), cmp_int32);
    run->items = items;
    run->length = n;
    return 0;
}

/* The code points of the one-character members of a confusion set in its compact form (each
 * member preceded by a space: resources.ConfusionSets), sorted. */
static int read_confusion(PyObject *compact, IntRun *run) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(compact);
    int kind = PyUnicode_KIND(compact);
    const void *data = PyUnicode_DATA(compact);
    int32_t *items = PyMem_Malloc(sizeof(int32_t) * (size_t)(n / 2 + 1));
    if (items == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        /* a member of one character: a space, the character, then a space or the end */
        if (PyUnicode_READ(kind, data, i) == ' ' && PyUnicode_READ(kind, data, i + 1) != ' ' &&
            (i + 2 == n || PyUnicode_READ(kind, data, i + 2) == ' '))
            items[count++] = (int32_t)PyUnicode_READ(kind, data, i + 1);
    }
    qsort(items, (size_t)count, sizeof(int32_t), cmp_int32);
    run->items = items;
    run->length = count;
    return 0;
}

static PyObject *cf_append(CharFeatures *self, PyObject *args) {
    int s0, s1, s2, flags;
    unsigned int codepoint;
    PyObject *readings_arg, *confusion_arg;
    if (!PyArg_ParseTuple(args, "iiiiIOU:append", &s0, &s1, &s2, &flags, &codepoint,
                          &readings_arg, &confusion_arg))
        return NULL;
    if (self->count == self->capacity && cf_grow(self) < 0) return PyErr_NoMemory();
    IntRun readings, confusion;
    if (read_run(readings_arg, &readings) < 0) return NULL;
    if (read_confusion(confusion_arg, &confusion) < 0) {
        PyMem_Free(readings.items);
        return NULL;
    }
    Py_ssize_t at = self->count++;
    self->semantic[at][0] = s0;
    self->semantic[at][1] = s1;
    self->semantic[at][2] = s2;
    self->flags[at] = (uint8_t)flags;
    self->codepoint[at] = codepoint;
    self->readings[at] = readings;
    self->confusion[at] = confusion;
    Py_RETURN_NONE;
}

static Py_ssize_t cf_len(CharFeatures *self) { return self->count; }

static PyMethodDef cf_methods[] = {
    {"append", (PyCFunction)cf_append, METH_VARARGS,
     "append(sem0, sem1, sem2, flags, codepoint, reading_ids, compact_confusion_set): the "
     "features of the next token id"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods cf_as_sequence = {.sq_length = (lenfunc)cf_len};

static PyTypeObject CharFeaturesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gecscore._alignfill.CharFeatures",
    .tp_doc = "Per-token features of the char-level substitution cost, indexed by token id.",
    .tp_basicsize = sizeof(CharFeatures),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)cf_dealloc,
    .tp_methods = cf_methods,
    .tp_as_sequence = &cf_as_sequence,
};

static int runs_share(const IntRun *a, const IntRun *b) {
    Py_ssize_t i = 0, j = 0;
    while (i < a->length && j < b->length) {
        if (a->items[i] == b->items[j]) return 1;
        if (a->items[i] < b->items[j])
            i++;
        else
            j++;
    }
    return 0;
}

static int run_holds(const IntRun *run, int32_t value) {
    Py_ssize_t low = 0, high = run->length;
    while (low < high) {
        Py_ssize_t middle = low + (high - low) / 2;
        if (run->items[middle] < value)
            low = middle + 1;
        else
            high = middle;
    }
    return low < run->length && run->items[low] == value;
}

/* align.substitution_costs for one pair of token ids, term for term and in its order of
 * additions (semantic / 6.0 + char + pos). Returns 0 when the pair needs the Python model. */
static int char_cost(const CharFeatures *f, uint32_t a, uint32_t b, double *cost) {
    uint8_t fa = f->flags[a], fb = f->flags[b];
    double ch;
    if (!((fa & FLAG_CJK) && (fb & FLAG_CJK))) {
        ch = 0.5;
    } else if ((fa & FLAG_SINGLE) && (fb & FLAG_SINGLE)) {
        int related = runs_share(&f->readings[a], &f->readings[b]) ||
                      run_holds(&f->confusion[a], (int32_t)f->codepoint[b]) ||
                      run_holds(&f->confusion[b], (int32_t)f->codepoint[a]);
        ch = related ? 0.0 : 0.5;
    } else {
        return 0;
    }
    const int32_t *sa = f->semantic[a], *sb = f->semantic[b];
    int semantic;
    if (sa[0] < 0 || sb[0] < 0)
        semantic = 4;
    else
        semantic = 2 * (3 - ((sa[0] == sb[0]) + (sa[1] == sb[1]) + (sa[2] == sb[2])));
    double pos;
    if ((fa & FLAG_PUNCT) && (fb & FLAG_PUNCT))
        pos = 0.0;
    else if (!(fa & FLAG_PUNCT) && !(fb & FLAG_PUNCT))
        pos = 0.25;
    else
        pos = 0.499;
    *cost = (double)semantic / 6.0 + ch + pos;
    return 1;
}

/* char_costs(costs, features, keys) -> keys left for the Python cost model. */
static PyObject *char_costs(PyObject *module, PyObject *args) {
    PyObject *costs_arg, *features_arg, *keys_arg;
    if (!PyArg_ParseTuple(args, "O!O!O:char_costs", &PairCostsType, &costs_arg, &CharFeaturesType,
                          &features_arg, &keys_arg))
        return NULL;
    PairCosts *costs = (PairCosts *)costs_arg;
    CharFeatures *features = (CharFeatures *)features_arg;
    PyObject *keys = PySequence_Fast(keys_arg, "keys must be a sequence");
    if (keys == NULL) return NULL;
    PyObject *left = PyList_New(0);
    if (left == NULL) goto fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(keys, i);
        uint64_t key;
        if (key_from(item, &key) < 0) goto fail;
        uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)(key & 0xFFFFFFFFu);
        if ((Py_ssize_t)a >= features->count || (Py_ssize_t)b >= features->count) {
            PyErr_SetString(PyExc_IndexError, "token id without features");
            goto fail;
        }
        double value;
        if (char_cost(features, a, b, &value)) {
            if (pc_put(costs, key, value) < 0) goto fail;
        } else if (PyList_Append(left, item) < 0) {
            goto fail;
        }
    }
    Py_DECREF(keys);
    return left;
fail:
    Py_DECREF(keys);
    Py_XDECREF(left);
    return NULL;
}

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

/* One banded table: cell (a, b) at row a, slot b - a + offset; slots 0 and stride - 1 are INF
 * padding. sub holds the substitution cost of each non-matching band cell (same indexing). */
typedef struct {
    Py_ssize_t n, m, low, high, stride, offset;
    double *cost;
    int32_t *run;
    double *sub;
} Band;

static void band_shape(Band *band, Py_ssize_t n, Py_ssize_t m, Py_ssize_t low, Py_ssize_t high) {
    band->n = n;
    band->m = m;
    band->low = low;
    band->high = high;
    band->stride = high - low + 3;
    band->offset = high + 1;
}

static inline double band_at(const Band *band, Py_ssize_t a, Py_ssize_t b) {
    if (a < 0 || b < 0 || a > band->n) return INFINITY;
    Py_ssize_t slot = b - a + band->offset;
    if (slot < 0 || slot >= band->stride) return INFINITY;
    return band->cost[a * band->stride + slot];
}

/* Pass 1: the substitution cost of every non-matching band cell into band->sub; the keys not in
 * the memo are appended to *missing (created on first need). Returns -1 on a Python error. */
static int band_substitutions(const PairCosts *costs, const uint32_t *src, const uint32_t *tgt,
                              Band *band, PyObject **missing) {
    const Py_ssize_t stride = band->stride, offset = band->offset;
    for (Py_ssize_t i = 0; i < band->n; i++) {
        Py_ssize_t a = i + 1;
        Py_ssize_t j_from = a - band->high - 1 > 0 ? a - band->high - 1 : 0;
        Py_ssize_t j_to = a - band->low < band->m ? a - band->low : band->m;
        Py_ssize_t q = j_from - i + offset;
        uint64_t row_key = (uint64_t)src[i] << 32;
        for (Py_ssize_t j = j_from; j < j_to; j++, q++) {
            if (src[i] == tgt[j]) continue;
            uint64_t key = row_key | tgt[j];
            if (!pc_lookup(costs, key, &band->sub[a * stride + q])) {
                if (*missing == NULL && (*missing = PyList_New(0)) == NULL) return -1;
                PyObject *item = PyLong_FromUnsignedLongLong(key);
                if (item == NULL || PyList_Append(*missing, item) < 0) {
                    Py_XDECREF(item);
                    return -1;
                }
                Py_DECREF(item);
            }
        }
    }
    return 0;
}

/* Pass 2: the fill, exactly as align._fill. `balance` (zeros) and `last_in_src` have `distinct`
 * entries. */
static void band_fill(Band *band, const int *src_l, const int *tgt_l, int distinct, int *balance,
                      int *last_in_src) {
    const Py_ssize_t n = band->n, m = band->m, low = band->low, high = band->high;
    const Py_ssize_t stride = band->stride, offset = band->offset, rows = n + 1;
    double *cost = band->cost;
    int32_t *run = band->run;
    for (Py_ssize_t x = 0; x < rows * stride; x++) cost[x] = INFINITY;
    memset(run, 0, sizeof(int32_t) * (size_t)(rows * stride));
    for (int v = 0; v < distinct; v++) last_in_src[v] = -1;

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
        const double *sub_row = band->sub + a * stride;
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
}

/* Per-pair id arrays shared by fill() and align(). */
typedef struct {
    uint32_t *src, *tgt;  /* memo ids */
    int *src_l, *tgt_l;   /* local ids 0..distinct-1 */
    int distinct;
    int *balance, *last_in_src;
    Py_ssize_t n, m;
} Pair;

static void pair_free(Pair *pair) {
    PyMem_Free(pair->src);
    PyMem_Free(pair->tgt);
    PyMem_Free(pair->src_l);
    PyMem_Free(pair->tgt_l);
    PyMem_Free(pair->balance);
    PyMem_Free(pair->last_in_src);
}

static int pair_read(Pair *pair, PyObject *src_arg, PyObject *tgt_arg) {
    memset(pair, 0, sizeof(Pair));
    if (read_ids(src_arg, &pair->src, &pair->n) < 0) return -1;
    if (read_ids(tgt_arg, &pair->tgt, &pair->m) < 0) return -1;
    if (pair->n > INT32_MAX / 4 || pair->m > INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "sentence too long");
        return -1;
    }
    pair->src_l = PyMem_Malloc(sizeof(int) * (size_t)(pair->n + 1));
    pair->tgt_l = PyMem_Malloc(sizeof(int) * (size_t)(pair->m + 1));
    if (pair->src_l == NULL || pair->tgt_l == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (local_ids(pair->src, pair->n, pair->tgt, pair->m, pair->src_l, pair->tgt_l,
                  &pair->distinct) < 0)
        return -1;
    pair->balance = PyMem_Calloc((size_t)pair->distinct + 1, sizeof(int));
    pair->last_in_src = PyMem_Malloc(sizeof(int) * ((size_t)pair->distinct + 1));
    if (pair->balance == NULL || pair->last_in_src == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *fill(PyObject *module, PyObject *args) {
    PyObject *costs_arg, *src_arg, *tgt_arg;
    Py_ssize_t low, high;
    if (!PyArg_ParseTuple(args, "O!OOnn:fill", &PairCostsType, &costs_arg, &src_arg, &tgt_arg,
                          &low, &high))
        return NULL;
    Pair pair;
    Band band;
    PyObject *missing = NULL, *cost_obj = NULL, *run_obj = NULL, *result = NULL;
    band.sub = NULL;
    if (pair_read(&pair, src_arg, tgt_arg) < 0) goto done;
    if (high < low) {
        PyErr_SetString(PyExc_ValueError, "bad band");
        goto done;
    }
    band_shape(&band, pair.n, pair.m, low, high);
    const Py_ssize_t cells = (pair.n + 1) * band.stride;
    band.sub = PyMem_Malloc(sizeof(double) * (size_t)cells);
    if (band.sub == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (band_substitutions((PairCosts *)costs_arg, pair.src, pair.tgt, &band, &missing) < 0)
        goto done;
    if (missing != NULL) {
        result = missing;
        missing = NULL;
        goto done;
    }
    cost_obj = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(double) * cells);
    run_obj = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * cells);
    if (cost_obj == NULL || run_obj == NULL) goto done;
    band.cost = (double *)PyByteArray_AS_STRING(cost_obj);
    band.run = (int32_t *)PyByteArray_AS_STRING(run_obj);
    band_fill(&band, pair.src_l, pair.tgt_l, pair.distinct, pair.balance, pair.last_in_src);
    result = PyTuple_Pack(2, cost_obj, run_obj);
done:
    pair_free(&pair);
    PyMem_Free(band.sub);
    Py_XDECREF(missing);
    Py_XDECREF(cost_obj);
    Py_XDECREF(run_obj);
    return result;
}

/* ------------------------------------------------------------- back-track and certificate */

enum { OP_T = 1, OP_S = 2, OP_I = 4, OP_D = 8, OP_M = 16 };

typedef struct {
    uint8_t *ops;    /* kept operations of a visited cell (0 = not visited yet) */
    int32_t *t_step; /* the transposition's step back (k + 1) when OP_T is kept */
    int32_t *reach;  /* how far back along the diagonal its transposition search read */
    Py_ssize_t *visited;
    Py_ssize_t n_visited;
} Cells;

/* align._cell_ops for cell (a, b), stored in `cells` at its band index. */
static void cell_ops(const Band *band, const Pair *pair, Cells *cells, Py_ssize_t a, Py_ssize_t b) {
    const Py_ssize_t index = a * band->stride + (b - a + band->offset);
    cells->visited[cells->n_visited++] = index;
    cells->reach[index] = 0;
    if (a == 0) {
        cells->ops[index] = OP_I;
        return;
    }
    if (b == 0) {
        cells->ops[index] = OP_D;
        return;
    }
    const Py_ssize_t i = a - 1, j = b - 1;
    const int *src = pair->src_l, *tgt = pair->tgt_l;
    if (src[i] == tgt[j]) {
        cells->ops[index] = OP_M;
        return;
    }
    const double del_cost = band_at(band, i, b) + 1;
    const double ins_cost = band_at(band, a, j) + 1;
    const double sub_cost = band_at(band, i, j) + band->sub[index];
    Py_ssize_t last_src = -1;
    for (Py_ssize_t x = i - 1; x >= 0; x--)
        if (src[x] == tgt[j]) {
            last_src = x;
            break;
        }
    /* Grid.transposition */
    double trans_cost = INFINITY;
    int k = 0, reach;
    const Py_ssize_t slot = j - i + band->offset;
    const int32_t limit = band->run[i * band->stride + slot];
    if (!limit) {
        reach = 1;
    } else {
        Py_ssize_t t_last = -1;
        for (Py_ssize_t x = j - 1; x >= 0; x--)
            if (tgt[x] == src[i]) {
                t_last = x;
                break;
            }
        reach = limit + 1;
        if (t_last >= 0 && last_src >= 0) {
            Py_ssize_t k_min = j - t_last > i - last_src ? j - t_last : i - last_src;
            if (k_min <= limit) {
                k = transposition(src, tgt, i, j, limit, pair->balance);
                if (k) {
                    trans_cost = band->cost[(i - k) * band->stride + slot] + k;
                    reach = k;
                }
            }
        }
    }
    double value = trans_cost;
    if (sub_cost < value) value = sub_cost;
    if (ins_cost < value) value = ins_cost;
    if (del_cost < value) value = del_cost;
    uint8_t kept = 0;
    if (trans_cost == value) kept |= OP_T;
    if (sub_cost == value) kept |= OP_S;
    if (ins_cost == value) kept |= OP_I;
    if (del_cost == value) kept |= OP_D;
    cells->ops[index] = kept;
    cells->t_step[index] = k + 1;
    cells->reach[index] = reach;
}

static double outside_bound(const Band *band, Py_ssize_t d) {
    double bound = INFINITY;
    if (band->high + 1 <= band->n) {
        double x = (double)((band->high + 1) + (band->high + 1 - d));
        if (x < bound) bound = x;
    }
    if (band->low - 1 >= -band->m) {
        double x = (double)((1 - band->low) + (d - band->low + 1));
        if (x < bound) bound = x;
    }
    return bound;
}

/* The first condition of certified(), which needs no back-track (align/backtrack.py _corner_exact). */
static int corner_exact(const Band *band) {
    const Py_ssize_t n = band->n, m = band->m;
    if (band->low <= -m && band->high >= n) return 1;
    return band_at(band, n, m) < outside_bound(band, n - m);
}

static int certified(const Band *band, const Cells *cells) {
    const Py_ssize_t n = band->n, m = band->m;
    if (band->low <= -m && band->high >= n) return 1;
    if (!corner_exact(band)) return 0;
    for (Py_ssize_t v = 0; v < cells->n_visited; v++) {
        Py_ssize_t index = cells->visited[v];
        int reach = cells->reach[index];
        if (!reach) continue;
        Py_ssize_t a = index / band->stride, slot = index % band->stride;
        Py_ssize_t b = slot - band->offset + a;
        double bound = outside_bound(band, a - b);
        Py_ssize_t i = a - 1, j = b - 1;
        Py_ssize_t top = reach < i ? reach : i;
        if (j < top) top = j;
        for (Py_ssize_t k = 0; k <= top; k++)
            if (!(band_at(band, i - k, j - k) < bound)) return 0;
    }
    return 1;
}

typedef struct {
    int op;  /* OP_* */
    int step;
    Py_ssize_t a, b; /* the cell the operation ends in (its corner-side end) */
    Py_ssize_t parent;
} Node;

typedef struct {
    Py_ssize_t a, b, node;
} Frame;

static PyObject *labels[17];      /* "T", "S", "I", "D", "M" by OP_* value (T unused) */
static PyObject *t_labels[64];    /* "T2".. cached */

static PyObject *label_of(int op, int step) {
    if (op != OP_T) {
        Py_INCREF(labels[op]);
        return labels[op];
    }
    if (step < 64) {
        if (t_labels[step] == NULL && (t_labels[step] = PyUnicode_FromFormat("T%d", step)) == NULL)
            return NULL;
        Py_INCREF(t_labels[step]);
        return t_labels[step];
    }
    return PyUnicode_FromFormat("T%d", step);
}

static PyObject *op_tuple(const Node *node) {
    Py_ssize_t a = node->a, b = node->b, a0, b0;
    switch (node->op) {
        case OP_D: a0 = a - 1; b0 = b; break;
        case OP_I: a0 = a; b0 = b - 1; break;
        case OP_T: a0 = a - node->step; b0 = b - node->step; break;
        default: a0 = a - 1; b0 = b - 1; break;
    }
    PyObject *label = label_of(node->op, node->step);
    if (label == NULL) return NULL;
    return Py_BuildValue("(Nnnnn)", label, a0, a, b0, b);
}

/* Every cheapest path, depth-first from (n, m), operations in stored order (align._backtrack).
 * Returns the list of paths (or NULL on error); *truncated as in Python. */
static PyObject *backtrack(const Band *band, const Pair *pair, Cells *cells, int first_only,
                           Py_ssize_t max_paths, int *truncated) {
    PyObject *paths = PyList_New(0);
    Frame *stack = NULL;
    Node *nodes = NULL;
    Py_ssize_t stack_len = 0, stack_cap = 64, nodes_len = 0, nodes_cap = 256;
    if (paths == NULL) return NULL;
    stack = PyMem_Malloc(sizeof(Frame) * (size_t)stack_cap);
    nodes = PyMem_Malloc(sizeof(Node) * (size_t)nodes_cap);
    if (stack == NULL || nodes == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    *truncated = 0;
    stack[stack_len++] = (Frame){band->n, band->m, -1};
    while (stack_len) {
        Frame top = stack[--stack_len];
        if (top.a + top.b == 0) {
            Py_ssize_t length = 0;
            for (Py_ssize_t x = top.node; x >= 0; x = nodes[x].parent) length++;
            PyObject *path = PyList_New(length);
            if (path == NULL) goto fail;
            Py_ssize_t at = 0;
            for (Py_ssize_t x = top.node; x >= 0; x = nodes[x].parent) {
                PyObject *op = op_tuple(&nodes[x]);
                if (op == NULL) {
                    Py_DECREF(path);
                    goto fail;
                }
                PyList_SET_ITEM(path, at++, op);
            }
            int appended = PyList_Append(paths, path);
            Py_DECREF(path);
            if (appended < 0) goto fail;
            if (PyList_GET_SIZE(paths) >= max_paths) {
                *truncated = stack_len > 0;
                break;
            }
            continue;
        }
        const Py_ssize_t index = top.a * band->stride + (top.b - top.a + band->offset);
        if (!cells->ops[index]) cell_ops(band, pair, cells, top.a, top.b);
        uint8_t kept = cells->ops[index];
        /* Stored order: M | T, S, I, D. first_only keeps the first. */
        int order[5], count = 0;
        const int all[5] = {OP_M, OP_T, OP_S, OP_I, OP_D};
        for (int x = 0; x < 5; x++)
            if (kept & all[x]) order[count++] = all[x];
        if (first_only && count > 1) count = 1;
        for (int x = count - 1; x >= 0; x--) { /* reversed: the first is explored first */
            if (stack_len == stack_cap) {
                stack_cap *= 2;
                Frame *grown = PyMem_Realloc(stack, sizeof(Frame) * (size_t)stack_cap);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                stack = grown;
            }
            if (nodes_len == nodes_cap) {
                nodes_cap *= 2;
                Node *grown = PyMem_Realloc(nodes, sizeof(Node) * (size_t)nodes_cap);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                nodes = grown;
            }
            int op = order[x], step = op == OP_T ? cells->t_step[index] : 1;
            nodes[nodes_len] = (Node){op, step, top.a, top.b, top.node};
            Py_ssize_t a = top.a, b = top.b;
            if (op == OP_D) a -= 1;
            else if (op == OP_I) b -= 1;
            else {
                a -= step;
                b -= step;
            }
            stack[stack_len++] = (Frame){a, b, nodes_len};
            nodes_len++;
        }
    }
    PyMem_Free(stack);
    PyMem_Free(nodes);
    return paths;
fail:
    PyMem_Free(stack);
    PyMem_Free(nodes);
    Py_DECREF(paths);
    return NULL;
}

/* align(costs, src_ids, tgt_ids, band, first_only, max_paths, max_slots) ->
 *   (paths, truncated, cost)  on success,
 *   list of missing substitution-cost keys (compute, add, call again),
 *   int width                 when the band would exceed max_slots cells (AlignmentTooLarge). */
static PyObject *align(PyObject *module, PyObject *args) {
    PyObject *costs_arg, *src_arg, *tgt_arg;
    Py_ssize_t width, max_paths, max_slots;
    int first_only;
    if (!PyArg_ParseTuple(args, "O!OOnpnn:align", &PairCostsType, &costs_arg, &src_arg, &tgt_arg,
                          &width, &first_only, &max_paths, &max_slots))
        return NULL;
    Pair pair;
    Band band = {0};
    Cells cells = {0};
    PyObject *missing = NULL, *result = NULL, *paths = NULL;
    if (pair_read(&pair, src_arg, tgt_arg) < 0) goto done;
    const Py_ssize_t n = pair.n, m = pair.m;
    for (;;) {
        Py_ssize_t low = (n - m < 0 ? n - m : 0) - width, high = (n - m > 0 ? n - m : 0) + width;
        if (low < -m) low = -m;
        if (high > n) high = n;
        if ((n + 1) * (high - low + 3) > max_slots) {
            result = PyLong_FromSsize_t(high - low + 1);
            goto done;
        }
        PyMem_Free(band.sub);
        PyMem_Free(band.cost);
        PyMem_Free(band.run);
        PyMem_Free(cells.ops);
        PyMem_Free(cells.t_step);
        PyMem_Free(cells.reach);
        PyMem_Free(cells.visited);
        memset(&cells, 0, sizeof(cells));
        band_shape(&band, n, m, low, high);
        const Py_ssize_t count = (n + 1) * band.stride;
        band.sub = PyMem_Malloc(sizeof(double) * (size_t)count);
        band.cost = PyMem_Malloc(sizeof(double) * (size_t)count);
        band.run = PyMem_Malloc(sizeof(int32_t) * (size_t)count);
        cells.ops = PyMem_Calloc((size_t)count, 1);
        cells.t_step = PyMem_Malloc(sizeof(int32_t) * (size_t)count);
        cells.reach = PyMem_Malloc(sizeof(int32_t) * (size_t)count);
        cells.visited = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)count);
        if (!band.sub || !band.cost || !band.run || !cells.ops || !cells.t_step || !cells.reach ||
            !cells.visited) {
            PyErr_NoMemory();
            goto done;
        }
        if (band_substitutions((PairCosts *)costs_arg, pair.src, pair.tgt, &band, &missing) < 0)
            goto done;
        if (missing != NULL) {
            result = missing;
            missing = NULL;
            goto done;
        }
        band_fill(&band, pair.src_l, pair.tgt_l, pair.distinct, pair.balance, pair.last_in_src);
        int truncated;
        Py_CLEAR(paths);
        /* A band whose corner is not exact is widened without back-tracking: its paths would
         * be dropped (a long pair of unrelated sentences enumerated max_paths paths per band,
         * gigabytes, before the band outgrew max_slots). */
        if (corner_exact(&band)) {
            paths = backtrack(&band, &pair, &cells, first_only, max_paths, &truncated);
            if (paths == NULL) goto done;
            if (certified(&band, &cells)) {
                result = Py_BuildValue("(OOd)", paths, truncated ? Py_True : Py_False,
                                       band_at(&band, n, m));
                goto done;
            }
        }
        /* Every cheapest path lies on diagonals d with |d| + |n - m - d| <= cost <= the banded
         * cost; grow at least geometrically (align.align). */
        Py_ssize_t needed = (Py_ssize_t)floor((band_at(&band, n, m) - (double)(n > m ? n - m : m - n)) / 2);
        width = 2 * width > needed ? 2 * width : needed;
    }
done:
    pair_free(&pair);
    PyMem_Free(band.sub);
    PyMem_Free(band.cost);
    PyMem_Free(band.run);
    PyMem_Free(cells.ops);
    PyMem_Free(cells.t_step);
    PyMem_Free(cells.reach);
    PyMem_Free(cells.visited);
    Py_XDECREF(missing);
    Py_XDECREF(paths);
    return result;
}

static PyMethodDef module_methods[] = {
    {"align", align, METH_VARARGS,
     "align(costs, src_ids, tgt_ids, band, first_only, max_paths, max_slots) -> (paths, "
     "truncated, cost), or the list of missing substitution-cost keys, or the too-large width"},
    {"char_costs", char_costs, METH_VARARGS,
     "char_costs(costs, features, keys) -> the keys whose costs need the Python cost model; "
     "memoises the others"},
    {"fill", fill, METH_VARARGS,
     "fill(costs, src_ids, tgt_ids, low, high) -> (cost bytearray of doubles, run bytearray of "
     "int32), rows of high - low + 3 slots; or the list of missing substitution-cost keys"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gecscore._alignfill",
    "Compiled banded DP fill for gecscore.align (bit-identical to the Python fill).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__alignfill(void) {
    if (PyType_Ready(&PairCostsType) < 0 || PyType_Ready(&CharFeaturesType) < 0) return NULL;
    const char *names[] = {"M", "S", "I", "D"};
    const int ops[] = {OP_M, OP_S, OP_I, OP_D};
    for (int x = 0; x < 4; x++)
        if ((labels[ops[x]] = PyUnicode_InternFromString(names[x])) == NULL) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    Py_INCREF(&PairCostsType);
    if (PyModule_AddObject(module, "PairCosts", (PyObject *)&PairCostsType) < 0) {
        Py_DECREF(&PairCostsType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&CharFeaturesType);
    if (PyModule_AddObject(module, "CharFeatures", (PyObject *)&CharFeaturesType) < 0) {
        Py_DECREF(&CharFeaturesType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
