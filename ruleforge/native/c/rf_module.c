/* The native engine's glue: a lowered game as a CPython extension module.
 *
 * Hand-written, included last by every lowered game (after its tables, its functions and its
 * `rf_flow`). A game's state is a bytearray of sizeof(State) bytes that Python holds: a copy of a
 * game is a copy of its bytes. Every entry point checks the buffer's size and every index it is
 * given; a trap inside the rules (rf_trap) comes back here through longjmp, the state left as it
 * stood, its `err` set, and Python hands the game to the reference engine.
 *
 * The build names the module with -DRF_MODULE=<name>, so its init function is PyInit_<name>. */
#define RF_CAT(a, b) a##b
#define RF_XCAT(a, b) RF_CAT(a, b)
#define RF_STR(a) #a
#define RF_XSTR(a) RF_STR(a)

/* --- the engine, on a State ------------------------------------------------------------------- */
static void rf_init(State *st, uint64_t seed) {
    memset(st, 0, offsetof(State, z));  /* zones, lists and the legal list are read up to their lengths */
    for (int32_t c = 0; c < NC; c++) {
        int32_t zi = INIT_W[c];
        st->z[zi][st->zn[zi]++] = c;
        st->w[c] = zi;
        st->f[c] = -1;
    }
    for (int32_t i = 0; i < NV; i++) st->v[i] = INIT_V[i];
    for (int32_t k = 0; k < NPROP; k++)
        for (int32_t c = 0; c < NC; c++) st->p[k][c] = INIT_P[k];
    st->chooser = RF_NONE;
    st->action = -1;
    rf_seed(st->rng, seed);
}

/* run the rules to the next decision: its number of legal actions, 0 once over, -1 on a trap */
static int32_t rf_run(State *st) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int32_t n;
    rf_trap_to = &here;
    if (setjmp(here)) n = -1;
    else n = rf_flow(st);
    rf_trap_to = saved;
    return n;
}

static int32_t rf_new(State *st, uint64_t seed) {
    rf_init(st, seed);
    return rf_run(st);
}

/* take the k-th legal action (0 <= k < nlegal) and run on */
static int32_t rf_take(State *st, int32_t k) {
    if (st->err) return -1;
    if (st->over) return 0;
    if (st->steps >= RF_DECISIONS_LIMIT) { st->err = RF_TRAP_DECISIONS; return -1; }
    st->action = st->legal[k];
    st->steps += 1;
    int64_t aid = rf_act_aid(st->action);  /* engine.record_action: the uses counted against limits */
    if (LIMIT_TURN[aid]) {
        if (st->used_stamp[aid] != st->turn) { st->used_stamp[aid] = st->turn; st->used_turn[aid] = 0; }
        st->used_turn[aid] += LIMIT_TURN[aid];
    }
    if (LIMIT_GAME[aid] && st->chooser >= 0 && st->chooser < NPLAYERS) st->used_game[aid][st->chooser] += LIMIT_GAME[aid];
    st->skips = 0;
    return rf_run(st);
}

static int32_t rf_ranked(State *st, int64_t *keys) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int32_t ok = 1;
    rf_trap_to = &here;
    if (setjmp(here)) ok = 0;
    else for (int p = 0; p < NPLAYERS; p++) rf_rank(st, p, keys + p * NRANK);
    rf_trap_to = saved;
    return ok;
}

/* ranking keys compared as Python compares tuples of ints */
static int rf_key_cmp(const int64_t *a, const int64_t *b) {
    for (int i = 0; i < NRANK; i++)
        if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
    return 0;
}

/* a player's total: the sum of the variables scorings add to */
static int64_t rf_total(State *st, int p) {
    int64_t total = 0;
    for (int i = 0; i < NSCORE_BASES; i++) total += st->v[SCORE_BASES[i] + p];
    return total;
}

/* every measure of the rules at the end of a game: 0 after a trap, or a measure of none (the
 * reference engine then makes that game's record) */
static int32_t rf_measured(State *st, int64_t *out) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int32_t ok = 1;
    rf_trap_to = &here;
    if (setjmp(here)) ok = 0;
    else rf_measure_all(st, out);
    rf_trap_to = saved;
    for (int m = 0; ok && m < NMEASURES; m++) ok = out[m] != RF_NONE;
    return ok;
}

/* --- Python's side ---------------------------------------------------------------------------- */
static State *rf_state_of(PyObject *buf) {
    if (!PyByteArray_Check(buf) || PyByteArray_GET_SIZE(buf) != (Py_ssize_t)sizeof(State)) {
        PyErr_SetString(PyExc_TypeError, "not a native game's state");
        return NULL;
    }
    return (State *)PyByteArray_AS_STRING(buf);
}

static PyObject *rf_catalogue = NULL;  /* the program's Actions by id (bind), handed out as they are */

/* the legal actions of a state as Python reads them: a list of the catalogue's Actions (an id it
 * does not hold, an action numbered by its arguments, as its int); [] once over; None after a trap */
static PyObject *rf_legal_list(State *st, int32_t n) {
    if (n < 0 || st->err) Py_RETURN_NONE;
    if (st->over) n = 0;
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    Py_ssize_t known = rf_catalogue == NULL ? 0 : PyTuple_GET_SIZE(rf_catalogue);
    for (int32_t i = 0; i < n; i++) {
        int32_t id = st->legal[i];
        PyObject *item;
        if (id >= 0 && id < known) {
            item = PyTuple_GET_ITEM(rf_catalogue, id);
            Py_INCREF(item);
        } else {
            item = PyLong_FromLong(id);
            if (item == NULL) { Py_DECREF(out); return NULL; }
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static PyObject *rf_py_bind(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyTuple_Check(arg)) { PyErr_SetString(PyExc_TypeError, "bind(catalogue tuple)"); return NULL; }
    Py_INCREF(arg);
    Py_XSETREF(rf_catalogue, arg);
    Py_RETURN_NONE;
}

/* start(seed) -> (state, legal): a new game run to its first decision */
static PyObject *rf_py_start(PyObject *self, PyObject *arg) {
    (void)self;
    uint64_t seed = (uint64_t)PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(State));
    if (buf == NULL) return NULL;
    State *st = (State *)PyByteArray_AS_STRING(buf);
    PyObject *legal = rf_legal_list(st, rf_new(st, seed));
    if (legal == NULL) { Py_DECREF(buf); return NULL; }
    return Py_BuildValue("(NN)", buf, legal);
}

/* step(state, k) -> legal: take the k-th legal action, run on, the next legal actions */
static PyObject *rf_py_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyByteArray_CheckExact(args[0]) || PyByteArray_GET_SIZE(args[0]) != (Py_ssize_t)sizeof(State)) {
        PyErr_SetString(PyExc_TypeError, "step(state, index)");
        return NULL;
    }
    State *st = (State *)PyByteArray_AS_STRING(args[0]);
    long k = PyLong_AsLong(args[1]);
    if (k == -1 && PyErr_Occurred()) return NULL;
    if (k < 0 || k >= st->nlegal || st->over || st->err) {
        PyErr_SetString(PyExc_IndexError, "no such legal action");
        return NULL;
    }
    return rf_legal_list(st, rf_take(st, (int32_t)k));
}

/* chooser(state) -> the player deciding, or -1 */
static PyObject *rf_py_chooser(PyObject *self, PyObject *arg) {
    (void)self;
    State *st = rf_state_of(arg);
    if (st == NULL) return NULL;
    return PyLong_FromLongLong(st->over || st->chooser == RF_NONE ? -1 : (long long)st->chooser);
}




/* (chooser or -1, over, err, steps, turn, nlegal) */
static PyObject *rf_py_status(PyObject *self, PyObject *arg) {
    (void)self;
    State *st = rf_state_of(arg);
    if (st == NULL) return NULL;
    return Py_BuildValue("(LiiLLi)", (long long)(st->chooser == RF_NONE ? -1 : st->chooser), st->over, st->err,
                         (long long)st->steps, (long long)st->turn, st->nlegal);
}

static PyObject *rf_int_list(const int64_t *values, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(values[i]));
    return out;
}

static PyObject *rf_int32_list(const int32_t *values, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(values[i]));
    return out;
}

/* the whole state as lists: (zones, w, f, v, p, b, rng) */
static PyObject *rf_py_read(PyObject *self, PyObject *arg) {
    (void)self;
    State *st = rf_state_of(arg);
    if (st == NULL) return NULL;
    PyObject *zones = PyList_New(NZ), *props = PyList_New(NPROP);
    if (zones == NULL || props == NULL) { Py_XDECREF(zones); Py_XDECREF(props); return NULL; }
    for (int32_t i = 0; i < NZ; i++) PyList_SET_ITEM(zones, i, rf_int32_list(st->z[i], st->zn[i]));
    for (int32_t k = 0; k < NPROP; k++) PyList_SET_ITEM(props, k, rf_int_list(st->p[k], NC));
    PyObject *rng = Py_BuildValue("(KKKK)", (unsigned long long)st->rng[0], (unsigned long long)st->rng[1],
                                  (unsigned long long)st->rng[2], (unsigned long long)st->rng[3]);
    PyObject *v = rf_int_list(st->v, NV);
    for (int32_t i = 0; v != NULL && i < NV; i++) {  /* a variable that holds a list: its items */
        if (VLIST_SLOT[i] < 0 || st->v[i] == RF_NONE) continue;
        PyObject *items = rf_int_list(st->vl[VLIST_SLOT[i]], st->v[i]);
        if (items == NULL) { Py_CLEAR(v); break; }
        PyList_SetItem(v, i, items);
    }
    return Py_BuildValue("(NNNNNNN)", zones, rf_int32_list(st->w, NC), rf_int32_list(st->f, NC),
                         v, props, rf_int_list(st->b, NB), rng);
}

/* each player's ranking key, a tuple of tuples; None after a trap */
static PyObject *rf_py_ranks(PyObject *self, PyObject *arg) {
    (void)self;
    State *st = rf_state_of(arg);
    if (st == NULL) return NULL;
    int64_t keys[NPLAYERS * NRANK];
    if (!rf_ranked(st, keys)) Py_RETURN_NONE;
    PyObject *out = PyTuple_New(NPLAYERS);
    if (out == NULL) return NULL;
    for (int p = 0; p < NPLAYERS; p++) {
        PyObject *key = PyTuple_New(NRANK);
        if (key == NULL) { Py_DECREF(out); return NULL; }
        for (int i = 0; i < NRANK; i++) PyTuple_SET_ITEM(key, i, PyLong_FromLongLong(keys[p * NRANK + i]));
        PyTuple_SET_ITEM(out, p, key);
    }
    return out;
}

/* playouts(games, first_seed, agent_seed, record): random playouts played whole in C. The game
 * seeds are first_seed, first_seed + 1, ...; the choices come from one xoshiro256** stream seeded
 * with agent_seed, each a below(n) over the legal actions. Returns (games, decisions, traps,
 * score sums per player, wins per player (a tie counts for each winner), an empty list). */
static PyObject *rf_py_playouts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) { PyErr_SetString(PyExc_TypeError, "playouts(games, first_seed, agent_seed)"); return NULL; }
    long long games = PyLong_AsLongLong(args[0]);
    if (games == -1 && PyErr_Occurred()) return NULL;
    if (games < 0) { PyErr_SetString(PyExc_ValueError, "a number of games below 0"); return NULL; }
    uint64_t first = (uint64_t)PyLong_AsUnsignedLongLongMask(args[1]);
    if (PyErr_Occurred()) return NULL;
    uint64_t agent = (uint64_t)PyLong_AsUnsignedLongLongMask(args[2]);
    if (PyErr_Occurred()) return NULL;
    State *st = PyMem_Malloc(sizeof(State));
    if (st == NULL) return PyErr_NoMemory();
    uint64_t choices[4];
    rf_seed(choices, agent);
    int64_t decisions = 0, traps = 0, sums[NPLAYERS] = {0}, wins[NPLAYERS] = {0};
    int64_t keys[NPLAYERS * NRANK];
    PyObject *trapped = PyList_New(0);
    if (trapped == NULL) { PyMem_Free(st); return NULL; }
    for (long long g = 0; g < games; g++) {
        int32_t n = rf_new(st, first + (uint64_t)g);
        while (n > 0) {
            n = rf_take(st, (int32_t)rf_below(choices, (uint64_t)n));
            decisions++;
        }
        if (n < 0 || !rf_ranked(st, keys)) { traps++; continue; }
        int best = 0;
        for (int p = 1; p < NPLAYERS; p++)
            if (rf_key_cmp(keys + p * NRANK, keys + best * NRANK) > 0) best = p;
        for (int p = 0; p < NPLAYERS; p++) {
            sums[p] += rf_total(st, p);
            if (rf_key_cmp(keys + p * NRANK, keys + best * NRANK) == 0) wins[p]++;
        }
    }
    PyMem_Free(st);
    PyObject *s = rf_int_list(sums, NPLAYERS), *w = rf_int_list(wins, NPLAYERS);
    return Py_BuildValue("(LLLNNN)", (long long)games, (long long)decisions, (long long)traps, s, w, trapped);
}


#include "rf_simulate.c"
#include "rf_search.c"

/* --- move counts (ruleforge/perft.py) ----------------------------------------------------------- */
enum { RF_WALK_OK = 0, RF_WALK_EXCEEDED = 1, RF_WALK_TRAPPED = 2 };

/* perft's `_tally`: add each level's legal actions to found[level], each one a position spent of
 * *left, depth first in the legal lists' order (so a walk passes its budget where Python's does) */
static int rf_walk(State *stack, int level, int depth, int64_t *found, int64_t *left) {
    State *st = &stack[level];
    if (st->err) return RF_WALK_TRAPPED;
    int32_t n = st->over ? 0 : st->nlegal;
    *left -= n;
    if (*left < 0) return RF_WALK_EXCEEDED;
    found[level] += n;
    if (level + 1 == depth) return RF_WALK_OK;
    for (int32_t k = 0; k < n; k++) {
        memcpy(&stack[level + 1], st, sizeof(State));
        if (rf_take(&stack[level + 1], k) < 0) return RF_WALK_TRAPPED;
        int done = rf_walk(stack, level + 1, depth, found, left);
        if (done != RF_WALK_OK) return done;
    }
    return RF_WALK_OK;
}

/* counts(state, depth, left) -> (counts per depth, positions left, "ok" | "exceeded" | "trapped") */
static PyObject *rf_py_counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) { PyErr_SetString(PyExc_TypeError, "counts(state, depth, left)"); return NULL; }
    State *st = rf_state_of(args[0]);
    if (st == NULL) return NULL;
    long depth = PyLong_AsLong(args[1]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    long long left = PyLong_AsLongLong(args[2]);
    if (left == -1 && PyErr_Occurred()) return NULL;
    if (depth < 1 || depth > 64) { PyErr_SetString(PyExc_ValueError, "a depth from 1 to 64"); return NULL; }
    State *stack = PyMem_Malloc(sizeof(State) * (size_t)depth);
    int64_t *found = PyMem_Calloc((size_t)depth, sizeof(int64_t));
    if (stack == NULL || found == NULL) { PyMem_Free(stack); PyMem_Free(found); return PyErr_NoMemory(); }
    memcpy(&stack[0], st, sizeof(State));
    int64_t budget = left;
    int done = rf_walk(stack, 0, (int)depth, found, &budget);
    PyObject *out = Py_BuildValue("(NLs)", rf_int_list(found, depth), (long long)budget,
                                  done == RF_WALK_OK ? "ok" : done == RF_WALK_EXCEEDED ? "exceeded" : "trapped");
    PyMem_Free(stack);
    PyMem_Free(found);
    return out;
}

static PyMethodDef rf_methods[] = {
    {"bind", rf_py_bind, METH_O, "The catalogue of Actions that legal lists hand out by id."},
    {"start", rf_py_start, METH_O, "A new game from a seed: (state, its legal actions)."},
    {"step", (PyCFunction)(void (*)(void))rf_py_step, METH_FASTCALL, "Take the k-th legal action: the next legal actions."},
    {"chooser", rf_py_chooser, METH_O, "The player deciding, or -1."},
    {"status", rf_py_status, METH_O, "(chooser, over, err, steps, turn, nlegal)."},
    {"read", rf_py_read, METH_O, "The state as lists: (zones, w, f, v, p, b, rng)."},
    {"ranks", rf_py_ranks, METH_O, "Each player's ranking key."},
    {"playouts", (PyCFunction)(void (*)(void))rf_py_playouts, METH_FASTCALL, "Random playouts, whole, in C."},
    {"counts", (PyCFunction)(void (*)(void))rf_py_counts, METH_FASTCALL, "Move counts to a depth, as perft counts."},
    {"simulate", (PyCFunction)(void (*)(void))rf_py_simulate, METH_FASTCALL, "Random games counted as simulate counts them."},
    {"search", (PyCFunction)(void (*)(void))rf_py_search, METH_FASTCALL, "One decision of the search agent, searched in C."},
    {"search_ready", rf_py_search_ready, METH_NOARGS, "Whether the search can run in C for these rules."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rf_module = {
    PyModuleDef_HEAD_INIT, .m_name = RF_XSTR(RF_MODULE), .m_size = -1, .m_methods = rf_methods,
};

PyMODINIT_FUNC RF_XCAT(PyInit_, RF_MODULE)(void) {
    return PyModule_Create(&rf_module);
}
