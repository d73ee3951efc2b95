/* rankwise's C kernels: the one-pass reader of plain TREC text (parse_text), the row hashes of packed keys
 * (mix_rows: data/idkeys.py's mix) and the hashes repeated within a query (repeated_in_segments: the duplicate
 * check of data/duplicates.py). Each has a numpy twin that gives the same result, used where this extension
 * was not built (setup.py: optional); tests compare the two.
 *
 * One pass over TREC text (a run's "qid Q0 docid rank score tag" lines, a qrels' "qid iter docid rel"), straight
 * from a file's mapped pages.
 *
 * It writes what rankwise's collections are built from, and nothing else: the query id of every run of lines
 * of one query (a file lists each query's lines together: a 64 MB block of a run holds about 20k of them) and
 * the run each line is in, each doc id packed into big-endian uint64 words (data/idkeys.py's keys), the scores
 * or grades as doubles and a run's ranks as integers. pyarrow's CSV reader, the path it replaces for plain
 * text, tokenises every field into string columns that are then interned and packed again; this pass does
 * both at once, without the GIL.
 *
 * It accepts only lines it can read exactly as pyarrow does, and hands anything else back (the function
 * returns None): a byte outside printable ASCII (a tab, CR, NUL, a byte-order mark, non-ASCII text), a comment,
 * an empty field (a doubled or trailing space), a line of another number of fields, a doc id longer than 32
 * bytes, a rank or a value outside the plain forms below, text without a line of data. The caller then reads the
 * text as before (pyarrow, then the strict parser that names the line), so the numbers and the errors are the
 * same whichever reads it.
 *
 * Scores are read exactly (the double nearest the decimal, ties to even, as pyarrow's and Python's readers
 * give): a decimal of at most 19 significant digits w and exponent e is w * 10^e, computed by one rounded
 * floating-point operation when w <= 2^53 and |e| <= 22 (both operands are exact doubles: Clinger's fast path),
 * otherwise in 128-bit integers with the remainder kept for the rounding, for -26 <= e <= 19 (Python's repr of
 * a double has 17 digits at most: down to about 1e-9 then). Anything else is handed back.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The words of a key are loaded and byte-swapped, and the first byte of a mask found by its lowest bit: a
 * little-endian machine's order. Elsewhere the build stops here, and the package installs without the extension
 * (setup.py: optional), taking the numpy and pyarrow paths. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rankwise's C kernels assume a little-endian machine (and GCC or Clang)"
#endif

#define MAX_WORDS 4 /* idkeys.MAX_WORDS: doc ids of up to 32 bytes */
#define MAX_NUMBER 64 /* bytes of a score or grade read here (Python's repr of a double has at most 24) */

typedef unsigned __int128 u128;

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int bitlen128(u128 x) {
    uint64_t hi = (uint64_t)(x >> 64);
    if (hi) return 128 - __builtin_clzll(hi);
    uint64_t lo = (uint64_t)x;
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* The double nearest q * 2^scale + (a fraction below q's last place, nonzero when sticky), ties to even. */
static double round_to_double(u128 q, int sticky, int scale) {
    int len = bitlen128(q);
    if (len <= 53) {
        /* only reached with sticky == 0: the callers keep at least 64 bits of quotient when dividing */
        return ldexp((double)(uint64_t)q, scale);
    }
    int drop = len - 53;
    uint64_t mant = (uint64_t)(q >> drop);
    u128 rest = q & (((u128)1 << drop) - 1);
    u128 half = (u128)1 << (drop - 1);
    if (rest > half || (rest == half && (sticky || (mant & 1)))) mant += 1; /* 2^53 is exact too */
    return ldexp((double)mant, scale + drop);
}

/* w * 10^e exactly rounded; 0 when the pair is outside what is handled here (the caller hands the block back). */
static int decimal_to_double(uint64_t w, int e, double *out) {
    if (w == 0) {
        *out = 0.0;
        return 1;
    }
    if (w <= ((uint64_t)1 << 53) && e >= -22 && e <= 22) {
        *out = e >= 0 ? (double)w * POW10[e] : (double)w / POW10[-e];
        return 1;
    }
    if (e >= 0) {
        if (e > 19) return 0;
        u128 p = (u128)w;
        for (int i = 0; i < e; i++) p *= 10; /* w < 2^64, 10^19 < 2^64: fits */
        *out = round_to_double(p, 0, 0);
        return 1;
    }
    if (e < -26) return 0;
    /* w / 10^k = (w / 5^k) * 2^-k: divide w, shifted to keep at least 64 bits of quotient, by 5^k (< 2^61) */
    int k = -e;
    uint64_t d = 1;
    for (int i = 0; i < k; i++) d *= 5;
    int bw = 64 - __builtin_clzll(w), bd = 64 - __builtin_clzll(d);
    int s = 66 + bd - bw; /* w << s has 66 + bd <= 127 bits; the quotient at least 65 */
    u128 n = (u128)w << s;
    u128 q = n / d;
    int sticky = (n % d) != 0;
    *out = round_to_double(q, sticky, -s - k);
    return 1;
}

/* A score or grade: -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? with at most 19 significant digits and a small exponent. */
static int parse_score(const char *p, const char *end, double *out) {
    if (end - p > MAX_NUMBER) return 0; /* (bounds the counts below) */
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    uint64_t w = 0;
    int sig = 0, e = 0, digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (w || *p != '0') {
            if (++sig > 19) return 0;
            w = w * 10 + (uint64_t)(*p - '0');
        }
        p++;
        digits++;
    }
    if (!digits) return 0;
    if (p < end && *p == '.') {
        p++;
        int frac = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (w || *p != '0') {
                if (++sig > 19) return 0;
                w = w * 10 + (uint64_t)(*p - '0');
            }
            e--;
            p++;
            frac++;
        }
        if (!frac) return 0;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        int x = 0, xd = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (++xd > 4) return 0;
            x = x * 10 + (*p - '0');
            p++;
        }
        if (!xd) return 0;
        e += eneg ? -x : x;
    }
    if (p != end) return 0;
    double v;
    if (!decimal_to_double(w, e, &v)) return 0;
    *out = neg ? -v : v;
    return 1;
}

/* A rank: -?[0-9]{1,18} (pyarrow's int64; anything else is handed back). */
static int parse_rank(const char *p, const char *end, int64_t *out) {
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p == end || end - p > 18) return 0;
    int64_t x = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return 0;
        x = x * 10 + (*p - '0');
    }
    *out = neg ? -x : x;
    return 1;
}

/* A growable buffer of the C heap (the query ids: a few per cent of the text). */
typedef struct {
    char *data;
    size_t len, cap;
} grow_buf;

static int grow_append(grow_buf *g, const void *src, size_t n) {
    if (g->len + n > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap < g->len + n) cap *= 2;
        char *data = realloc(g->data, cap);
        if (!data) return 0;
        g->data = data;
        g->cap = cap;
    }
    memcpy(g->data + g->len, src, n);
    g->len += n;
    return 1;
}

enum { HAND_BACK = 0, DONE = 1, FULL = 2, NO_MEMORY = -1 };

typedef struct {
    /* the text, and its layout: fields a line; which holds the value; which the rank (-1: none). The query
     * is field 0, the doc field 2 (TREC's runs and qrels alike). */
    const char *buf, *end;
    int fields, value_field, rank_field;
    /* out: rows up to cap_rows; keys of nw words a row, with room for cap_words words */
    uint64_t *keys;
    double *values;
    int64_t *ranks, *runs;
    Py_ssize_t cap_rows, cap_words;
    grow_buf qids;  /* the query id of every run of lines, one after the other */
    grow_buf qends; /* int32 end offsets of those ids in qids, after a first 0 */
    /* where the parse stands (it stops when the room is full, and goes on once there is more) */
    const char *p, *prev_q;
    Py_ssize_t prev_qlen, rows, n_runs;
    int nw, want_nw; /* words a key now; words the key that stopped the parse needs */
} text_parse;

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Where the field starting at p ends: at the first byte that is not printable ASCII (a space ends it, a line
 * break ends the last field; any other byte makes the caller hand the text back). Eight bytes at a time: a
 * byte below '!' sets its high bit in (x - 0x21..) & ~x, one above '~' in (x + 0x01..) | x; the lowest set
 * high bit is the first such byte (what a borrow or a carry flags comes after it). */
static inline const char *field_end(const char *p, const char *end) {
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t stop = (((x - 0x21 * ONES) & ~x) | (x + ONES) | x) & HIGHS;
        if (stop) return p + (__builtin_ctzll(stop) >> 3); /* (little-endian: the first byte is the lowest) */
        p += 8;
    }
    while (p < end && (unsigned char)(*p - 0x21) < 0x5e) p++; /* '!' .. '~' */
    return p;
}

/* The first bytes of an id: a big-endian word of its bytes at..at+8, NUL-padded past its end. */
static inline uint64_t id_word(const char *id, Py_ssize_t len, Py_ssize_t at, const char *end) {
    Py_ssize_t n = len - at;
    if (n <= 0) return 0;
    uint64_t word = 0;
    if (end - (id + at) >= 8) {
        memcpy(&word, id + at, 8);
    } else {
        memcpy(&word, id + at, (size_t)(n < 8 ? n : 8));
    }
    word = __builtin_bswap64(word);
    return n >= 8 ? word : word & ~(~0ULL >> (8 * n)); /* (keep the id's n bytes) */
}

/* The doc id's bytes, NUL-padded, as nw big-endian words. */
static inline void pack_key(const char *id, Py_ssize_t len, const char *end, int nw, uint64_t *key) {
    for (int w = 0; w < nw; w++) key[w] = id_word(id, len, 8 * w, end);
}

/* Whether the two ids (of equal length) are the same bytes. */
static inline int same_id(const char *a, const char *b, Py_ssize_t len) {
    for (; len >= 8; a += 8, b += 8, len -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
    }
    for (; len > 0; a++, b++, len--)
        if (*a != *b) return 0;
    return 1;
}

/* The keys of rows [0, rows) laid out again at nw_new words a row (more than nw_old), last row first. Text's
 * doc ids are mostly of one width; this runs once for each wider one. */
static void widen_keys(uint64_t *keys, Py_ssize_t rows, int nw_old, int nw_new) {
    for (Py_ssize_t r = rows - 1; r >= 0; r--) {
        for (int w = nw_new - 1; w >= nw_old; w--) keys[r * nw_new + w] = 0;
        for (int w = nw_old - 1; w >= 0; w--) keys[r * nw_new + w] = keys[r * nw_old + w];
    }
}

#define MAX_FIELDS 6

#if defined(__SSE2__)
#include <emmintrin.h>
#define SPLIT_BYTES 64

/* The fields of the line at p from bit masks of its bytes, 16 at a time (the byte-by-byte split below costs a
 * branch a byte; this, a few a line): 1 with f, fe and *next (past the line break) set; 0 when the line holds
 * something else than `fields` plain fields, one space between (hand the text back); -1 when the split below
 * decides (no line break in the next SPLIT_BYTES bytes, or fewer than that left in the text). */
static inline int split_line(const char *p, const char *end, int fields, const char **f, const char **fe,
                             const char **next) {
    if (end - p < SPLIT_BYTES) return -1;
    const __m128i space = _mm_set1_epi8(' '), brk = _mm_set1_epi8('\n');
    const __m128i below = _mm_set1_epi8(0x21 - 1), above = _mm_set1_epi8(0x7f);
    uint64_t spaces = 0, plain = 0, breaks = 0;
    for (int k = 0; k < SPLIT_BYTES && !breaks; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + k));
        /* (signed compares: bytes from 0x80 are negative, so neither above 0x20 nor plain) */
        __m128i printable = _mm_and_si128(_mm_cmpgt_epi8(x, below), _mm_cmplt_epi8(x, above));
        spaces |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, space)) << k;
        breaks |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, brk)) << k;
        plain |= (uint64_t)(uint16_t)_mm_movemask_epi8(printable) << k;
    }
    if (!breaks) return -1;
    int len = __builtin_ctzll(breaks); /* (>= 1: an empty line never comes here) */
    uint64_t line = (1ULL << len) - 1;
    spaces &= line;
    if (((plain | spaces) & line) != line) return 0;                   /* a byte neither plain nor a space */
    if ((spaces & 1) || (spaces & (spaces << 1)) || (spaces >> (len - 1))) return 0; /* an empty field */
    f[0] = p;
    for (int i = 0; i < fields - 1; i++) {
        if (!spaces) return 0; /* too few fields */
        int at = __builtin_ctzll(spaces);
        fe[i] = p + at;
        f[i + 1] = p + at + 1;
        spaces &= spaces - 1;
    }
    if (spaces) return 0; /* too many */
    fe[fields - 1] = p + len;
    *next = p + len + 1;
    return 1;
}
#endif

static int parse_lines(text_parse *t) {
    const char *p = t->p, *end = t->end;
    while (p < end) {
        if (*p == '\n') { /* an empty line: pyarrow skips it too */
            p++;
            continue;
        }
        if (*p == '#') return HAND_BACK; /* a comment line */
        if (t->rows == t->cap_rows) break;
        const char *line = p, *f[MAX_FIELDS], *fe[MAX_FIELDS], *next = NULL;
        int split = -1;
#if defined(__SSE2__)
        split = split_line(p, end, t->fields, f, fe, &next);
        if (split == 0) return HAND_BACK;
#endif
        if (split == 1) {
            p = next;
        } else {
            for (int i = 0; i < t->fields; i++) {
                f[i] = p;
                p = fe[i] = field_end(p, end);
                if (p == f[i]) return HAND_BACK; /* an empty field, or a byte that is not plain text */
                if (i < t->fields - 1) {
                    if (p == end || *p != ' ') return HAND_BACK;
                    p++;
                } else if (p < end) {
                    if (*p != '\n') return HAND_BACK; /* a field too many, a trailing space, another byte */
                    p++;
                }
            }
        }
        Py_ssize_t dlen = fe[2] - f[2];
        if (dlen > 8 * MAX_WORDS) return HAND_BACK;
        int need = (int)((dlen + 7) / 8), nw = need > t->nw ? need : t->nw;
        if ((t->rows + 1) * nw > t->cap_words) { /* (room for this row's key, as wide as it must be, first) */
            t->want_nw = nw;
            p = line;
            break;
        }
        if (nw > t->nw) {
            widen_keys(t->keys, t->rows, t->nw, nw);
            t->nw = nw;
        }
        Py_ssize_t row = t->rows;
        if (t->rank_field >= 0 && !parse_rank(f[t->rank_field], fe[t->rank_field], &t->ranks[row]))
            return HAND_BACK;
        if (!parse_score(f[t->value_field], fe[t->value_field], &t->values[row])) return HAND_BACK;
        pack_key(f[2], dlen, end, t->nw, t->keys + row * t->nw);
        /* the query: a new run of lines when it differs from the line before */
        Py_ssize_t qlen = fe[0] - f[0];
        if (!t->prev_q || qlen != t->prev_qlen || !same_id(t->prev_q, f[0], qlen)) {
            if (!grow_append(&t->qids, f[0], (size_t)qlen)) return NO_MEMORY;
            if (t->qids.len > INT32_MAX) return HAND_BACK;
            int32_t q_end = (int32_t)t->qids.len;
            if (!grow_append(&t->qends, &q_end, sizeof q_end)) return NO_MEMORY;
            t->n_runs++;
            t->prev_q = f[0];
            t->prev_qlen = qlen;
        }
        t->runs[row] = t->n_runs - 1;
        t->rows = row + 1;
    }
    t->p = p;
    return p < end ? FULL : DONE;
}

/* A bytearray of n bytes, or resized to n bytes; 0 on failure (an exception set). */
static int sized(PyObject **ba, Py_ssize_t n) {
    if (*ba == NULL) return (*ba = PyByteArray_FromStringAndSize(NULL, n)) != NULL;
    return PyByteArray_Resize(*ba, n) == 0;
}

static PyObject *parse_text(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer view;
    int fields, value_field, rank_field;
    if (!PyArg_ParseTuple(args, "y*iii", &view, &fields, &value_field, &rank_field)) return NULL;
    if (fields < 3 || fields > MAX_FIELDS || value_field < 1 || value_field >= fields || rank_field < -1 ||
        rank_field >= fields ||
        value_field == 2 || rank_field == 2 || rank_field == 0 || rank_field == value_field) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "parse_text: fields 3..6; value and rank fields other than 0 and 2");
        return NULL;
    }
    text_parse t = {0};
    t.buf = t.p = view.buf;
    t.end = t.buf + view.len;
    t.fields = fields;
    t.value_field = value_field;
    t.rank_field = rank_field;
    /* room for the rows the first line's length says the text holds, and a tenth more, with keys as wide as its
     * doc id's; the parse stops for more room when that was too little (counting the lines, or measuring every
     * id, first would cost a pass over the text) */
    const char *line = t.buf;
    while (line < t.end && *line == '\n') line++;
    const char *nl = memchr(line, '\n', (size_t)(t.end - line));
    const char *first_end = nl ? nl : t.end, *id = line;
    for (int spaces = 0; id < first_end && spaces < 2; id++) spaces += *id == ' ';
    const char *id_end = memchr(id, ' ', (size_t)(first_end - id));
    Py_ssize_t first_id = id_end ? id_end - id : 8;
    t.nw = t.want_nw = first_id > 8 && first_id <= 8 * MAX_WORDS ? (int)((first_id + 7) / 8) : 1;
    Py_ssize_t cap = view.len / (first_end - line + 1);
    cap += cap / 10 + 64;
    PyObject *keys = NULL, *values = NULL, *ranks = NULL, *runs = NULL, *result = NULL;
    int status = FULL;
    int32_t zero = 0;
    if (!grow_append(&t.qends, &zero, sizeof zero)) {
        PyErr_NoMemory();
        goto done;
    }
    while (status == FULL) {
        Py_ssize_t cap_words = cap * (t.want_nw > t.nw ? t.want_nw : t.nw);
        if (!sized(&keys, cap_words * 8) || !sized(&values, cap * 8) || !sized(&runs, cap * 8) ||
            (rank_field >= 0 && !sized(&ranks, cap * 8)))
            goto done;
        t.keys = (uint64_t *)PyByteArray_AS_STRING(keys);
        t.values = (double *)PyByteArray_AS_STRING(values);
        t.runs = (int64_t *)PyByteArray_AS_STRING(runs);
        t.ranks = ranks ? (int64_t *)PyByteArray_AS_STRING(ranks) : NULL;
        t.cap_rows = cap;
        t.cap_words = cap_words;
        Py_BEGIN_ALLOW_THREADS
        status = parse_lines(&t);
        Py_END_ALLOW_THREADS
        if (status == FULL && t.rows == cap) cap += cap / 2; /* (else a wider key wants more words a row) */
    }
    if (status == NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == HAND_BACK || t.rows == 0) {
        result = Py_NewRef(Py_None);
    } else if (sized(&keys, t.rows * t.nw * 8) && sized(&values, t.rows * 8) && sized(&runs, t.rows * 8) &&
               (ranks == NULL || sized(&ranks, t.rows * 8))) {
        result = Py_BuildValue("(OnOOOy#y#)", keys, (Py_ssize_t)t.nw, values, ranks ? ranks : Py_None, runs,
                               t.qids.data ? t.qids.data : "", (Py_ssize_t)t.qids.len, t.qends.data,
                               (Py_ssize_t)t.qends.len);
    }
done:
    free(t.qids.data);
    free(t.qends.data);
    Py_XDECREF(keys);
    Py_XDECREF(values);
    Py_XDECREF(ranks);
    Py_XDECREF(runs);
    PyBuffer_Release(&view);
    return result;
}

/* ---- row hashes: idkeys.mix ------------------------------------------------------------------------------ */

static const uint64_t WORD_MUL[4] = {0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL,
                                     0xD6E8FEB86659FD93ULL};
#define FIN_MUL 0xFF51AFD7ED558CCDULL

/* A buffer argument that may be None: 0 on failure (an exception set). */
static int optional_buffer(PyObject *obj, Py_buffer *view) {
    if (obj == Py_None) {
        view->obj = NULL;
        view->buf = NULL;
        view->len = 0;
        return 1;
    }
    return PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) == 0;
}

static void release(Py_buffer *view) {
    if (view->obj) PyBuffer_Release(view);
}

static PyObject *mix_rows(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer keys, out, salts = {0}, codes = {0};
    Py_ssize_t words;
    PyObject *salts_obj, *codes_obj, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*nOOw*", &keys, &words, &salts_obj, &codes_obj, &out)) return NULL;
    Py_ssize_t n = out.len / 8, n_salts = 0;
    int bad = 0;
    if (!optional_buffer(salts_obj, &salts) || !optional_buffer(codes_obj, &codes)) goto done;
    n_salts = salts.len / 8;
    if (words < 1 || keys.len % 8 || keys.len / 8 % words || keys.len / 8 / words != n ||
        (salts.obj && !codes.obj && n_salts != n) ||
        (codes.obj && codes.len != n * 8) || (codes.obj && !salts.obj)) {
        PyErr_SetString(PyExc_ValueError, "mix_rows: keys of n x words uint64, out of n, salts of n (or a table "
                                          "with codes of n)");
        goto done;
    }
    const uint64_t *k = keys.buf, *salt = salts.buf;
    const int64_t *code = codes.buf;
    uint64_t *h = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n; r++) {
        uint64_t acc = 0;
        for (Py_ssize_t w = 0; w < words; w++) { /* each word scrambled (0 stays 0), then summed */
            uint64_t x = k[r * words + w] * WORD_MUL[w % 4];
            acc += x ^ (x >> 29);
        }
        if (salt) {
            acc ^= acc >> 31;
            acc *= FIN_MUL;
            if (code) {
                int64_t c = code[r];
                if (c < 0 || c >= n_salts) {
                    bad = 1;
                    break;
                }
                acc += salt[c];
            } else {
                acc += salt[r];
            }
        }
        acc ^= acc >> 33;
        acc *= FIN_MUL;
        h[r] = acc ^ (acc >> 33);
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_IndexError, "mix_rows: a code outside the salts");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    release(&salts);
    release(&codes);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&out);
    return result;
}

/* ---- hashes repeated within a query: duplicates._repeated_hashes --------------------------------------------- */

/* Every hash that occurs twice among the rows of one query (rows of a query together: codes never fall), as
 * uint64 bytes (a value repeated three times is there twice); None when the codes fall somewhere (the caller
 * then sorts them all). An open-addressing table per query, its slots told fresh by a stamp instead of cleared. */
static PyObject *repeated_in_segments(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer hashes, codes;
    if (!PyArg_ParseTuple(args, "y*y*", &hashes, &codes)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = hashes.len / 8;
    if (codes.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "repeated_in_segments: one code per hash");
        goto done;
    }
    const uint64_t *h = hashes.buf;
    const int64_t *code = codes.buf;
    uint64_t *vals = NULL;
    uint32_t *stamps = NULL;
    size_t cap = 0;
    uint32_t stamp = 0;
    grow_buf found = {NULL, 0, 0};
    int status = DONE;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t a = 0; a < n && status == DONE;) {
        Py_ssize_t b = a + 1;
        while (b < n && code[b] == code[a]) b++;
        if (b < n && code[b] < code[a]) {
            status = HAND_BACK;
            break;
        }
        if (b - a > 1) {
            size_t size = 16;
            while (size < 2 * (size_t)(b - a)) size *= 2;
            if (size > cap) {
                free(vals);
                free(stamps);
                vals = malloc(size * sizeof *vals);
                stamps = calloc(size, sizeof *stamps);
                cap = size;
                stamp = 0;
                if (!vals || !stamps) {
                    status = NO_MEMORY;
                    break;
                }
            }
            if (++stamp == 0) { /* (stamps wrapped: clear them once) */
                memset(stamps, 0, cap * sizeof *stamps);
                stamp = 1;
            }
            size_t mask = size - 1;
            for (Py_ssize_t r = a; r < b; r++) {
                size_t at = (size_t)(h[r] ^ (h[r] >> 32)) & mask;
                while (stamps[at] == stamp && vals[at] != h[r]) at = (at + 1) & mask;
                if (stamps[at] == stamp) { /* seen before in this query */
                    if (!grow_append(&found, &h[r], sizeof h[r])) {
                        status = NO_MEMORY;
                        break;
                    }
                } else {
                    stamps[at] = stamp;
                    vals[at] = h[r];
                }
            }
        }
        a = b;
    }
    Py_END_ALLOW_THREADS
    free(vals);
    free(stamps);
    if (status == NO_MEMORY)
        PyErr_NoMemory();
    else if (status == HAND_BACK)
        result = Py_NewRef(Py_None);
    else
        result = PyBytes_FromStringAndSize(found.data ? found.data : "", (Py_ssize_t)found.len);
    free(found.data);
done:
    PyBuffer_Release(&hashes);
    PyBuffer_Release(&codes);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_text", parse_text, METH_VARARGS,
     "parse_text(text, fields, value_field, rank_field) -> (keys, words, values, ranks, runs, query_ids,\n"
     "query_ends) or None.\n\n"
     "Plain TREC text of `fields` space-separated fields a line read in one pass (see io/trec_native.py);\n"
     "None when it needs the general readers. rank_field -1: no rank column (ranks is None then)."},
    {"mix_rows", mix_rows, METH_VARARGS,
     "mix_rows(keys, words, salts, codes, out) -> None: idkeys.mix's hash of each row of keys into out."},
    {"repeated_in_segments", repeated_in_segments, METH_VARARGS,
     "repeated_in_segments(hashes, codes) -> bytes of uint64 or None: the hashes repeated within a query."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
