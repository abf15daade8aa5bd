/* Whole games of random agents played in C, their statistics gathered in C: what `simulate`
 * counts per game (ruleforge/balance/records.py, stats.py), without a Python object per game.
 *
 * Hand-written; included by rf_module.c. Each seat draws below(n) over the legal actions from its
 * own xoshiro256** stream, seeded with rf_agent_seed(game seed, seat), as RandomAgent draws.
 * Games of seeds from 0 to 2**63 only (the caller checks): their decimal text is Python's. A
 * per-game number (a total, an item's points, a length, a measure, a margin, the mean branching)
 * is counted into a column: a small table of (value, count), since such numbers take few values.
 * A game that traps, or passes the decision limit, is not counted: its seed is handed back, and
 * Python plays it on the reference engine, which makes its record or says why it failed. */

/* --- a column: value -> count, open addressing ------------------------------------------------ */
typedef struct {
    int64_t *keys, *counts;
    int64_t size, used;  /* size a power of two; used: distinct values */
} RfColumn;

static int rf_column_grow(RfColumn *col) {
    int64_t size = col->size ? col->size * 2 : 64;
    int64_t *keys = PyMem_Calloc((size_t)size, sizeof(int64_t)), *counts = PyMem_Calloc((size_t)size, sizeof(int64_t));
    if (keys == NULL || counts == NULL) { PyMem_Free(keys); PyMem_Free(counts); return 0; }
    for (int64_t i = 0; i < col->size; i++) {
        if (!col->counts[i]) continue;
        uint64_t h = (uint64_t)col->keys[i] * 0x9E3779B97F4A7C15ull;
        int64_t at = (int64_t)(h >> 32) & (size - 1);
        while (counts[at]) at = (at + 1) & (size - 1);
        keys[at] = col->keys[i];
        counts[at] = col->counts[i];
    }
    PyMem_Free(col->keys);
    PyMem_Free(col->counts);
    col->keys = keys;
    col->counts = counts;
    col->size = size;
    return 1;
}

static int rf_column_add(RfColumn *col, int64_t value) {
    if (2 * (col->used + 1) > col->size && !rf_column_grow(col)) return 0;
    uint64_t h = (uint64_t)value * 0x9E3779B97F4A7C15ull;
    int64_t at = (int64_t)(h >> 32) & (col->size - 1);
    while (col->counts[at] && col->keys[at] != value) at = (at + 1) & (col->size - 1);
    if (!col->counts[at]) { col->keys[at] = value; col->used++; }
    col->counts[at]++;
    return 1;
}

/* a column as a list of (value, count); `as_float`: the values are doubles' bits */
static PyObject *rf_column_list(const RfColumn *col, int as_float) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int64_t i = 0; i < col->size; i++) {
        if (!col->counts[i]) continue;
        PyObject *pair;
        if (as_float) {
            double d;
            memcpy(&d, &col->keys[i], sizeof d);
            pair = Py_BuildValue("(dL)", d, (long long)col->counts[i]);
        } else {
            pair = Py_BuildValue("(LL)", (long long)col->keys[i], (long long)col->counts[i]);
        }
        if (pair == NULL || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); Py_DECREF(out); return NULL; }
        Py_DECREF(pair);
    }
    return out;
}

/* --- the agents' seeds (ruleforge/agents.py agent_seed) ---------------------------------------
 * A seat's seed: the first 8 bytes, big-endian, of the SHA-256 of `ruleforge-agent:SEED:SEAT`
 * (both in decimal). SHA-256 as FIPS 180-4 gives it, for a message of one or two blocks. */
static const uint32_t RF_SHA_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rf_rotr(uint32_t x, int k) { return (x >> k) | (x << (32 - k)); }

static void rf_sha_block(uint32_t *h, const uint8_t *block) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 |
               (uint32_t)block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rf_rotr(w[i - 15], 7) ^ rf_rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rf_rotr(w[i - 2], 17) ^ rf_rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (rf_rotr(e, 6) ^ rf_rotr(e, 11) ^ rf_rotr(e, 25)) + ((e & f) ^ (~e & g)) + RF_SHA_K[i] + w[i];
        uint32_t t2 = (rf_rotr(a, 2) ^ rf_rotr(a, 13) ^ rf_rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

/* the decimal digits of n after `at`: where they end */
static int rf_decimal(uint8_t *at, uint64_t n) {
    char digits[24];
    int k = 0;
    do { digits[k++] = (char)('0' + n % 10); n /= 10; } while (n);
    for (int i = 0; i < k; i++) at[i] = (uint8_t)digits[k - 1 - i];
    return k;
}

static uint64_t rf_agent_seed(uint64_t seed, int64_t seat) {
    static const char head[] = "ruleforge-agent:";
    uint8_t msg[128] = {0};
    int n = (int)sizeof head - 1;
    memcpy(msg, head, (size_t)n);
    n += rf_decimal(msg + n, seed);
    msg[n++] = ':';
    n += rf_decimal(msg + n, (uint64_t)seat);
    uint64_t bits = (uint64_t)n * 8;
    msg[n] = 0x80;
    int blocks = n + 9 <= 64 ? 1 : 2;
    for (int i = 0; i < 8; i++) msg[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int b = 0; b < blocks; b++) rf_sha_block(h, msg + 64 * b);
    return (uint64_t)h[0] << 32 | h[1];
}

/* --- the choices taken, by key: (seat, action id, the values its label reads) -----------------
 * Python renders each distinct key as a label once (native/choice_keys.py). A record keeps the
 * first CHOICES_PER_GAME distinct labels of a game (balance/records.py): a game of more distinct
 * keys than that (a key names one label, so it has no more labels than keys) is handed back. */
#define RF_KEYW (2 + RF_HOLES)
#define RF_GAME_CHOICES 500
#define RF_GAME_SLOTS 1024  /* a game's own table: a power of two, twice RF_GAME_CHOICES */

typedef struct {
    int64_t *keys;    /* RF_KEYW values per slot */
    int64_t *counts;  /* 0: a free slot */
    int64_t size, used;
} RfKeys;

static uint64_t rf_key_hash(const int64_t *key) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < RF_KEYW; i++) {
        h = (h ^ (uint64_t)key[i]) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h;
}

/* where `key` is in the table (size a power of two, never full), or the free slot it would take */
static int64_t rf_key_slot(const RfKeys *table, const int64_t *key) {
    int64_t at = (int64_t)(rf_key_hash(key) >> 17) & (table->size - 1);
    while (table->counts[at] && memcmp(table->keys + at * RF_KEYW, key, sizeof(int64_t) * RF_KEYW) != 0)
        at = (at + 1) & (table->size - 1);
    return at;
}

static int rf_keys_alloc(RfKeys *table, int64_t size) {
    table->keys = PyMem_Calloc((size_t)(size * RF_KEYW), sizeof(int64_t));
    table->counts = PyMem_Calloc((size_t)size, sizeof(int64_t));
    table->size = size;
    table->used = 0;
    return table->keys != NULL && table->counts != NULL;
}

static void rf_keys_free(RfKeys *table) {
    PyMem_Free(table->keys);
    PyMem_Free(table->counts);
}

/* `count` more of `key`: 1, or 0 out of memory (the table grows as a column does) */
static int rf_keys_add(RfKeys *table, const int64_t *key, int64_t count) {
    if (2 * (table->used + 1) > table->size) {
        RfKeys grown;
        if (!rf_keys_alloc(&grown, table->size * 2)) { rf_keys_free(&grown); return 0; }
        for (int64_t i = 0; i < table->size; i++) {
            if (!table->counts[i]) continue;
            int64_t at = rf_key_slot(&grown, table->keys + i * RF_KEYW);
            memcpy(grown.keys + at * RF_KEYW, table->keys + i * RF_KEYW, sizeof(int64_t) * RF_KEYW);
            grown.counts[at] = table->counts[i];
        }
        grown.used = table->used;
        rf_keys_free(table);
        *table = grown;
    }
    int64_t at = rf_key_slot(table, key);
    if (!table->counts[at]) {
        memcpy(table->keys + at * RF_KEYW, key, sizeof(int64_t) * RF_KEYW);
        table->used++;
    }
    table->counts[at] += count;
    return 1;
}

/* the table as a list of (key, count), each key a tuple */
static PyObject *rf_keys_list(const RfKeys *table) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int64_t i = 0; i < table->size; i++) {
        if (!table->counts[i]) continue;
        PyObject *key = PyTuple_New(RF_KEYW);
        if (key == NULL) { Py_DECREF(out); return NULL; }
        for (int k = 0; k < RF_KEYW; k++) {
            PyObject *v = PyLong_FromLongLong(table->keys[i * RF_KEYW + k]);
            if (v == NULL) { Py_DECREF(key); Py_DECREF(out); return NULL; }
            PyTuple_SET_ITEM(key, k, v);
        }
        PyObject *pair = Py_BuildValue("(NL)", key, (long long)table->counts[i]);
        if (pair == NULL || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); Py_DECREF(out); return NULL; }
        Py_DECREF(pair);
    }
    return out;
}

/* the key of the choice of action `id` by `me`, before it is applied (as the reference engine
 * renders its label then): 1, or 0 when working out its label's values trapped */
static int rf_choice_key(State *st, int32_t id, int64_t me, int64_t *key) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int ok = 1;
    for (int i = 0; i < RF_KEYW; i++) key[i] = 0;
    key[0] = me;
    key[1] = id;
    rf_trap_to = &here;
    if (setjmp(here)) ok = 0;
    else rf_choice_holes(st, id, me, key + 2);
    rf_trap_to = saved;
    return ok;
}

/* --- the batch -------------------------------------------------------------------------------- */
#define RF_COLUMNS (NPLAYERS + NPLAYERS * NGROUPS + 3 + NMEASURES)  /* totals, items, decisions, turns, margin, measures */
#define RF_COL_ITEMS NPLAYERS
#define RF_COL_DECISIONS (NPLAYERS + NPLAYERS * NGROUPS)
#define RF_COL_TURNS (RF_COL_DECISIONS + 1)
#define RF_COL_MARGIN (RF_COL_DECISIONS + 2)
#define RF_COL_MEASURES (RF_COL_DECISIONS + 3)

typedef struct {
    int64_t games, ties, first_won, branching_sum, all_decisions, branching_max;
    int64_t wins[NPLAYERS], shared[NPLAYERS], first[NPLAYERS];
    int64_t taken[NACTIONS_DECLARED], legal[NACTIONS_DECLARED], fired[NFIRED + 1];
    RfKeys choices;  /* the choices taken, by key */
    RfColumn columns[RF_COLUMNS];
    RfColumn branching;  /* doubles: a game's mean number of legal actions */
} RfTally;

/* play one game of random agents to its end and count it: 1, or 0 when it trapped or passed
 * the decision limit (not counted), or -1 out of memory */
static int rf_play_counted(State *st, uint64_t seed, RfTally *t, int64_t *stamp, RfKeys *game_choices,
                           int64_t *used_slots) {
    uint64_t streams[NPLAYERS][4];
    for (int p = 0; p < NPLAYERS; p++) rf_seed(streams[p], rf_agent_seed(seed, p));
    int32_t n = rf_new(st, seed);
    int64_t decisions = 0, turns = 0, last = -1, first = -1, bsum = 0, bmax = 0;
    int64_t taken[NACTIONS_DECLARED] = {0}, legal_in[NACTIONS_DECLARED] = {0};
    for (int64_t i = 0; i < game_choices->used; i++) game_choices->counts[used_slots[i]] = 0;
    game_choices->used = 0;
    int64_t key[RF_KEYW];
    while (n > 0) {
        if (decisions >= RF_DECISIONS_LIMIT) return 0;
        int64_t me = st->chooser;
        if (me < 0 || me >= NPLAYERS) return 0;
        if (first < 0) first = me;
        if (me != last) { turns++; last = me; }
        int32_t k = (int32_t)rf_below(streams[me], (uint64_t)n);
        int32_t id = st->legal[k];
        int64_t aid = rf_act_aid(id);
        bsum += n;
        if (n > bmax) bmax = n;
        taken[aid]++;
        for (int32_t i = 0; i < n; i++) {  /* each action kind legal here, once */
            int64_t a = rf_act_aid(st->legal[i]);
            if (stamp[a] != decisions + 1) { stamp[a] = decisions + 1; legal_in[a]++; }
        }
        if (!rf_choice_key(st, id, me, key)) return 0;  /* the label fails: the reference engine says how */
        int64_t slot = rf_key_slot(game_choices, key);
        if (!game_choices->counts[slot]) {
            if (game_choices->used >= RF_GAME_CHOICES) return 0;  /* more labels than a record keeps, perhaps */
            memcpy(game_choices->keys + slot * RF_KEYW, key, sizeof key);
            used_slots[game_choices->used++] = slot;
        }
        game_choices->counts[slot]++;
        decisions++;
        n = rf_take(st, k);
    }
    if (n < 0) return 0;
    for (int64_t a = 0; a < NACTIONS_DECLARED; a++) stamp[a] = 0;
    int64_t keys[NPLAYERS * NRANK], measures[NMEASURES + 1];
    if (!rf_ranked(st, keys) || !rf_measured(st, measures)) return 0;
    /* counted from here on: the game played as the reference engine would have played it */
    int best = 0, winners = 0;
    for (int p = 1; p < NPLAYERS; p++)
        if (rf_key_cmp(keys + p * NRANK, keys + best * NRANK) > 0) best = p;
    for (int p = 0; p < NPLAYERS; p++) winners += rf_key_cmp(keys + p * NRANK, keys + best * NRANK) == 0;
    t->games++;
    t->ties += winners > 1;
    for (int p = 0; p < NPLAYERS; p++) {
        int won = rf_key_cmp(keys + p * NRANK, keys + best * NRANK) == 0;
        t->wins[p] += won && winners == 1;
        t->shared[p] += won && winners > 1;
        if (!rf_column_add(&t->columns[p], rf_total(st, p))) return -1;
        int64_t groups[NGROUPS + 1] = {0};
        for (int i = 0; i < NITEMS_DECLARED; i++) groups[ITEM_GROUP[i]] += st->b[p * NITEMS_DECLARED + i];
        for (int g = 0; g < NGROUPS; g++)
            if (!rf_column_add(&t->columns[RF_COL_ITEMS + p * NGROUPS + g], groups[g])) return -1;
    }
    if (!rf_column_add(&t->columns[RF_COL_DECISIONS], decisions) || !rf_column_add(&t->columns[RF_COL_TURNS], turns))
        return -1;
    if (winners == 1 && NPLAYERS >= 2) {  /* stats.margin: the first expression of the ranking */
        int runner = best == 0 ? 1 : 0;
        for (int p = 0; p < NPLAYERS; p++)
            if (p != best && rf_key_cmp(keys + p * NRANK, keys + runner * NRANK) > 0) runner = p;
        if (!rf_column_add(&t->columns[RF_COL_MARGIN], keys[best * NRANK] - keys[runner * NRANK])) return -1;
    }
    for (int m = 0; m < NMEASURES; m++)
        if (!rf_column_add(&t->columns[RF_COL_MEASURES + m], measures[m])) return -1;
    if (decisions) {
        double mean = (double)bsum / (double)decisions;
        int64_t bits;
        memcpy(&bits, &mean, sizeof bits);
        if (!rf_column_add(&t->branching, bits)) return -1;
    }
    t->all_decisions += decisions;
    t->branching_sum += bsum;
    if (bmax > t->branching_max) t->branching_max = bmax;
    for (int64_t a = 0; a < NACTIONS_DECLARED; a++) { t->taken[a] += taken[a]; t->legal[a] += legal_in[a]; }
    for (int i = 0; i < NFIRED; i++) t->fired[i] += st->fired[i];
    for (int64_t i = 0; i < game_choices->used; i++) {
        int64_t slot = used_slots[i];
        if (!rf_keys_add(&t->choices, game_choices->keys + slot * RF_KEYW, game_choices->counts[slot])) return -1;
    }
    if (first >= 0) {
        t->first[first]++;
        t->first_won += winners == 1 && best == first;
    }
    return 1;
}

/* simulate(first_seed, games) -> (games counted, seeds not counted, wins, shared, ties, first
 * counts, first won, taken, legal, fired, choices as ((seat, id, holes...), count) pairs,
 * branching (sum, decisions, max, column), columns) */
static PyObject *rf_py_simulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) { PyErr_SetString(PyExc_TypeError, "simulate(first_seed, games)"); return NULL; }
    uint64_t first_seed = (uint64_t)PyLong_AsUnsignedLongLongMask(args[0]);
    if (PyErr_Occurred()) return NULL;
    long long games = PyLong_AsLongLong(args[1]);
    if (games == -1 && PyErr_Occurred()) return NULL;
    if (games < 0) { PyErr_SetString(PyExc_ValueError, "bad counts"); return NULL; }
    RfTally *t = PyMem_Calloc(1, sizeof(RfTally));
    State *st = PyMem_Malloc(sizeof(State));
    int64_t *stamp = PyMem_Calloc(NACTIONS_DECLARED, sizeof(int64_t));
    RfKeys game_choices = {0};
    int64_t *used_slots = PyMem_Calloc(RF_GAME_CHOICES, sizeof(int64_t));
    PyObject *left_out = PyList_New(0);
    PyObject *result = NULL;
    if (t == NULL || st == NULL || stamp == NULL || used_slots == NULL || left_out == NULL ||
        !rf_keys_alloc(&game_choices, RF_GAME_SLOTS) || !rf_keys_alloc(&t->choices, 64)) {
        PyErr_NoMemory();
        goto done;
    }
    for (long long g = 0; g < games; g++) {
        uint64_t seed = first_seed + (uint64_t)g;
        /* the GIL is held throughout: a trap returns through the module's one jump target */
        int counted = rf_play_counted(st, seed, t, stamp, &game_choices, used_slots);
        if (counted < 0) { PyErr_NoMemory(); goto done; }
        if (!counted) {
            for (int64_t a = 0; a < NACTIONS_DECLARED; a++) stamp[a] = 0;
            PyObject *s = PyLong_FromUnsignedLongLong(seed);
            if (s == NULL || PyList_Append(left_out, s) < 0) { Py_XDECREF(s); goto done; }
            Py_DECREF(s);
        }
    }
    {
        PyObject *columns = PyList_New(RF_COLUMNS);
        if (columns == NULL) goto done;
        for (int i = 0; i < RF_COLUMNS; i++) {
            PyObject *col = rf_column_list(&t->columns[i], 0);
            if (col == NULL) { Py_DECREF(columns); goto done; }
            PyList_SET_ITEM(columns, i, col);
        }
        PyObject *choices = rf_keys_list(&t->choices);
        if (choices == NULL) { Py_DECREF(columns); goto done; }
        result = Py_BuildValue("(LONNLNLNNNN(LLLN)N)", (long long)t->games, left_out,
                               rf_int_list(t->wins, NPLAYERS), rf_int_list(t->shared, NPLAYERS), (long long)t->ties,
                               rf_int_list(t->first, NPLAYERS), (long long)t->first_won,
                               rf_int_list(t->taken, NACTIONS_DECLARED), rf_int_list(t->legal, NACTIONS_DECLARED),
                               rf_int_list(t->fired, NFIRED), choices,
                               (long long)t->branching_sum, (long long)t->all_decisions, (long long)t->branching_max,
                               rf_column_list(&t->branching, 1), columns);
    }
done:
    if (t != NULL) {
        for (int i = 0; i < RF_COLUMNS; i++) { PyMem_Free(t->columns[i].keys); PyMem_Free(t->columns[i].counts); }
        PyMem_Free(t->branching.keys);
        PyMem_Free(t->branching.counts);
        rf_keys_free(&t->choices);
    }
    PyMem_Free(t);
    PyMem_Free(st);
    PyMem_Free(stamp);
    rf_keys_free(&game_choices);
    PyMem_Free(used_slots);
    Py_XDECREF(left_out);
    return result;
}
