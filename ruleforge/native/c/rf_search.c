/* The search agent of ruleforge/search.py (MCTSAgent, `mcts:N`) run whole in C: one call per
 * decision, choosing exactly what the Python search chooses.
 *
 * Hand-written; included by rf_module.c. The Python is the specification, step by step:
 * determinize (ruleforge/determinize.py: the hidden zones' unknown components dealt again per kind,
 * in id order then shuffled, a fresh generator for the chance to come, the legal actions listed
 * again), the first tries at the root (the standing each action gives, a random tie-break, the
 * order and the progressive bias), then `budget` iterations of select / expand / play out /
 * back up on one tree, and the most visited root action. Every draw comes from the agent's
 * xoshiro256** stream as chance.Stream draws it (docs/random.md), and every floating-point
 * operation is Python's, in Python's order: the same libm gives the same bits (no fused
 * multiply-adds: see rf_explore).
 *
 * A trap that Python would meet as a rules error (a GameError) inside an iteration skips that
 * iteration, its changes to the tree kept, as Python's `except GameError: continue` keeps them.
 * Anything else C cannot do exactly (another trap, a ranking key holding none or a number past
 * 2**53, a decision left with no legal action) gives up the whole decision: the caller runs the
 * Python search from the same stream. */
#include <math.h>
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

enum { RF_SEARCH_SKIP = 1, RF_SEARCH_GIVE_UP = 2 };
#define RF_EXACT_INT ((int64_t)1 << 53)  /* keys beyond it: Python's int -> float may differ from C's */

typedef struct {
    int64_t parent;   /* the node it hangs from (-1: the root) */
    int32_t action;   /* the catalogue id it is reached by */
    int32_t player;   /* who took that action (-1: the root) */
    int64_t visits, avail;
    double reward;    /* `player`'s total reward */
} RfNode;

typedef struct {
    /* the agent */
    int32_t me;
    int64_t budget, horizon, guide;
    double bias, temper, exploration, score_part;
    uint64_t rng[4];
    int strict;  /* in the first tries: every failure gives up (Python's errors there are not caught) */
    /* the seat's view */
    const int32_t *kind;
    uint8_t shut[NZ];
    int32_t hidden[NZ], nhidden;
    /* the tree: nodes in the order made; children found by (parent, action) in an open table */
    RfNode *nodes;
    int64_t nnodes, ncap, *path;
    uint64_t *hkeys;
    int64_t *hvals;
    uint64_t hmask;
    /* the root */
    int32_t nroot, *root_ids, *pool, *sorted, *distinct;
    int64_t *order, *keys;
    double *prior, *ties;
    int guided;
    int64_t start[NPLAYERS * NRANK];
    /* states: the position, and four to play in */
    State *root, *st[4];
    jmp_buf env;
} RfSearch;

/* --- a copy of a state: the fixed part, then each list up to its length (all that is read) ---- */
static void rf_state_copy(State *dst, const State *src) {
    memcpy(dst, src, offsetof(State, z));
    for (int32_t i = 0; i < NZ; i++) memcpy(dst->z[i], src->z[i], (size_t)src->zn[i] * sizeof(int32_t));
    for (int32_t k = 0; k < NLISTS; k++) {
        int64_t n = src->listn[k];
        if (n > 0) memcpy(dst->lists[k], src->lists[k], (size_t)(n < LISTCAP ? n : LISTCAP) * sizeof(int64_t));
    }
    for (int32_t i = 0; i < NV; i++) {
        int64_t n = src->v[i];
        if (VLIST_SLOT[i] >= 0 && n > 0)
            memcpy(dst->vl[VLIST_SLOT[i]], src->vl[VLIST_SLOT[i]], (size_t)(n < LISTCAP ? n : LISTCAP) * sizeof(int64_t));
    }
    memcpy(dst->legal, src->legal, (size_t)src->nlegal * sizeof(int32_t));
}

/* --- failures ----------------------------------------------------------------------------------- */
/* the traps Python meets as a GameError: a rule's run-time error, the limits on skips and decisions */
static int rf_rules_error(int code) {
    return code == RF_TRAP_NONE || code == RF_TRAP_INDEX || code == RF_TRAP_DIVIDE || code == RF_TRAP_EMPTY ||
           code == RF_TRAP_ABSENT || code == RF_TRAP_SKIPS || code == RF_TRAP_DECISIONS;
}

static void rf_search_fail(RfSearch *S, int code) __attribute__((noreturn));
static void rf_search_fail(RfSearch *S, int code) {
    longjmp(S->env, (!S->strict && rf_rules_error(code)) ? RF_SEARCH_SKIP : RF_SEARCH_GIVE_UP);
}

static void rf_give_up(RfSearch *S) __attribute__((noreturn));
static void rf_give_up(RfSearch *S) { longjmp(S->env, RF_SEARCH_GIVE_UP); }

/* the rules' own functions, their traps caught: 0, or the trap's code */
static int rf_guarded_standing(State *st, int64_t player, int64_t *key) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int code = 0;
    rf_trap_to = &here;
    if (setjmp(here)) code = st->err ? st->err : RF_TRAP_UNREACHABLE;
    else rf_standing(st, player, key);
    rf_trap_to = saved;
    return code;
}

static int rf_guarded_ranks(State *st, int64_t *keys) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int code = 0;
    rf_trap_to = &here;
    if (setjmp(here)) code = st->err ? st->err : RF_TRAP_UNREACHABLE;
    else for (int p = 0; p < NPLAYERS; p++) rf_rank(st, p, keys + p * NRANK);
    rf_trap_to = saved;
    return code;
}

static int rf_guarded_relist(State *st) {
    jmp_buf here;
    jmp_buf *saved = rf_trap_to;
    int code = 0;
    rf_trap_to = &here;
    if (setjmp(here)) code = st->err ? st->err : RF_TRAP_UNREACHABLE;
    else rf_relist(st);
    rf_trap_to = saved;
    return code;
}

/* take the k-th legal action (Game._apply_unchecked) */
static void rf_search_take(RfSearch *S, State *st, int32_t k) {
    if (rf_take(st, k) < 0) rf_search_fail(S, st->err ? st->err : RF_TRAP_UNREACHABLE);
}

/* the player deciding, a seat (else C does not follow) */
static int32_t rf_search_mover(RfSearch *S, const State *st) {
    if (st->chooser < 0 || st->chooser >= NPLAYERS) rf_give_up(S);
    return (int32_t)st->chooser;
}

/* --- keys: tuples of ints, compared as Python compares them ------------------------------------ */
static void rf_exact_key(RfSearch *S, const int64_t *key) {
    for (int i = 0; i < NRANK; i++)
        if (key[i] == RF_NONE || key[i] >= RF_EXACT_INT || key[i] <= -RF_EXACT_INT) rf_give_up(S);
}

static int rf_cmp(const int64_t *a, const int64_t *b) {
    for (int i = 0; i < NRANK; i++)
        if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
    return 0;
}

/* Standing.of: the player's ranking key with its final scorings' points added now */
static void rf_search_standing(RfSearch *S, State *st, int64_t player, int64_t *key) {
    int code = rf_guarded_standing(st, player, key);
    if (code) rf_search_fail(S, code);
    rf_exact_key(S, key);
}

/* --- random draws: chance.Stream ---------------------------------------------------------------- */
static double rf_unit(uint64_t *rng) { return (double)(rf_next(rng) >> 11) * 0x1.0p-53; }

/* --- the tree's table: (parent, action) -> child; (-2, action) -> the action's place at the root */
static uint64_t rf_tree_key(int64_t parent, int32_t action) {
    return ((uint64_t)(parent + 3) << 32) | (uint32_t)action;  /* never 0, the empty slot */
}

static int64_t rf_tree_get(const RfSearch *S, int64_t parent, int32_t action) {
    uint64_t key = rf_tree_key(parent, action);
    uint64_t at = (key * 0x9E3779B97F4A7C15ull) >> 20 & S->hmask;
    while (S->hkeys[at]) {
        if (S->hkeys[at] == key) return S->hvals[at];
        at = (at + 1) & S->hmask;
    }
    return -1;
}

static void rf_tree_put(RfSearch *S, int64_t parent, int32_t action, int64_t value) {
    uint64_t key = rf_tree_key(parent, action);
    uint64_t at = (key * 0x9E3779B97F4A7C15ull) >> 20 & S->hmask;
    while (S->hkeys[at] && S->hkeys[at] != key) at = (at + 1) & S->hmask;
    S->hkeys[at] = key;
    S->hvals[at] = value;
}

static int64_t rf_new_node(RfSearch *S, int64_t parent, int32_t action, int32_t player) {
    if (S->nnodes >= S->ncap) rf_give_up(S);  /* never: one node an iteration */
    int64_t k = S->nnodes++;
    RfNode *node = &S->nodes[k];
    node->parent = parent;
    node->action = action;
    node->player = player;
    node->visits = 0;
    node->avail = 0;
    node->reward = 0.0;
    rf_tree_put(S, parent, action, k);
    return k;
}

/* --- determinize.determinize ------------------------------------------------------------------- */
static void rf_determinize(RfSearch *S, const State *src, State *out) {
    int32_t zs[NC], is[NC], cs[NC], done[NC], comps[NC], places[NC];
    int32_t n = 0;
    rf_state_copy(out, src);
    /* the hidden components whose place the seat does not know, in the hidden zones' order */
    for (int32_t h = 0; h < S->nhidden; h++) {
        int32_t zi = S->hidden[h];
        for (int32_t i = 0; i < src->zn[zi]; i++) {
            int32_t comp = src->z[zi][i];
            int32_t at = src->w[comp], came = src->f[comp];
            int known = (RF_SEEN_KEPT && (src->seen[RF_SEEN_KEPT ? S->me : 0][RF_SEEN_KEPT ? comp : 0][at >> 6] >> (at & 63)) & 1)
                        || (came >= 0 && !S->shut[came]);
            if (known) continue;
            zs[n] = zi;
            is[n] = i;
            cs[n] = comp;
            done[n] = 0;
            n++;
        }
    }
    /* per kind, in the order the kinds are first met: its components in id order, shuffled,
     * dealt to its places */
    for (int32_t j = 0; j < n; j++) {
        if (done[j]) continue;
        int32_t kind = S->kind[cs[j]], m = 0;
        for (int32_t x = j; x < n; x++) {
            if (done[x] || S->kind[cs[x]] != kind) continue;
            done[x] = 1;
            places[m] = x;
            int32_t comp = cs[x], y = m++;
            while (y > 0 && comps[y - 1] > comp) { comps[y] = comps[y - 1]; y--; }
            comps[y] = comp;
        }
        for (int32_t i = m - 1; i > 0; i--) {
            int32_t r = (int32_t)rf_below(S->rng, (uint64_t)i + 1);
            int32_t t = comps[i]; comps[i] = comps[r]; comps[r] = t;
        }
        for (int32_t y = 0; y < m; y++) {
            int32_t x = places[y];
            out->z[zs[x]][is[x]] = comps[y];
            out->w[comps[y]] = zs[x];
        }
    }
    rf_seed(out->rng, rf_next(S->rng));  /* chance.reseeded(st.rng, getrandbits(64)) */
    if (n) {
        int code = rf_guarded_relist(out);
        if (code) rf_search_fail(S, code);
    }
    if (!out->over && out->nlegal <= 0) rf_give_up(S);  /* Python's max() of nothing: not a rules error */
}

/* --- playouts ------------------------------------------------------------------------------------ */
/* MCTSAgent._estimate */
static void rf_estimate(RfSearch *S, const int64_t *marks, double *out) {
    int64_t sum = 0;
    for (int p = 0; p < NPLAYERS; p++) sum += marks[p * NRANK] < 0 ? -marks[p * NRANK] : marks[p * NRANK];
    double scale = S->temper * (double)sum / (double)NPLAYERS;
    if (!(scale > 1.0)) scale = 1.0;
    for (int p = 0; p < NPLAYERS; p++) {
        const int64_t *mine = marks + p * NRANK, *rival = NULL;
        for (int q = 0; q < NPLAYERS; q++)
            if (q != p && (rival == NULL || rf_cmp(marks + q * NRANK, rival) > 0)) rival = marks + q * NRANK;
        double lead = 0.0;
        if (rival != NULL) {
            lead = (double)(mine[0] - rival[0]);
            if (lead == 0 && rf_cmp(mine, rival) != 0) lead = rf_cmp(mine, rival) > 0 ? 0.5 : -0.5;
        }
        out[p] = 1 / (1 + exp(-lead / scale));
    }
}

/* search.rewards: the win share as Game.winners decides, and a little for the first expression */
static void rf_rewards(RfSearch *S, State *st, double *out) {
    int64_t keys[NPLAYERS * NRANK];
    int code = rf_guarded_ranks(st, keys);
    if (code) rf_search_fail(S, code);
    int best = 0, winners = 0;
    for (int p = 0; p < NPLAYERS; p++) rf_exact_key(S, keys + p * NRANK);
    for (int p = 1; p < NPLAYERS; p++)
        if (rf_cmp(keys + p * NRANK, keys + best * NRANK) > 0) best = p;
    for (int p = 0; p < NPLAYERS; p++) winners += rf_cmp(keys + p * NRANK, keys + best * NRANK) == 0;
    int64_t lo = keys[0], hi = keys[0];
    for (int p = 0; p < NPLAYERS; p++) {
        out[p] = rf_cmp(keys + p * NRANK, keys + best * NRANK) == 0 ? (1 - S->score_part) / (double)winners : 0.0;
        if (keys[p * NRANK] < lo) lo = keys[p * NRANK];
        if (keys[p * NRANK] > hi) hi = keys[p * NRANK];
    }
    if (hi > lo)
        for (int p = 0; p < NPLAYERS; p++)
            out[p] += S->score_part * (double)(keys[p * NRANK] - lo) / (double)(hi - lo);
}

/* MCTSAgent._playout from the state st[*cur] (the other states are free to use) */
static void rf_playout(RfSearch *S, int *cur, double *out) {
    int64_t steps = S->horizon < 0 ? -1 : S->horizon * NPLAYERS;
    int64_t k = S->guided ? S->guide : 1;
    int64_t marks[NPLAYERS * NRANK], key[NRANK], best_key[NRANK];
    State *g = S->st[*cur];
    while (!g->over) {
        if (steps == 0) {
            for (int p = 0; p < NPLAYERS; p++) rf_search_standing(S, g, p, marks + p * NRANK);
            if (memcmp(marks, S->start, sizeof marks) != 0) { rf_estimate(S, marks, out); return; }
            steps = NPLAYERS;
        }
        int32_t n = g->nlegal;
        if (k <= 1 || n == 1) {
            rf_search_take(S, g, (int32_t)rf_below(S->rng, (uint64_t)n));
        } else {
            int32_t mover = rf_search_mover(S, g);
            int64_t m = k < n ? k : n;
            int32_t *pool = S->pool;
            for (int32_t i = 0; i < n; i++) pool[i] = i;
            int best = -1;
            for (int64_t i = 0; i < m; i++) {  /* chance.Stream.sample, whole before any trial: a partial Fisher-Yates */
                int64_t j = i + (int64_t)rf_below(S->rng, (uint64_t)(n - i));
                int32_t t = pool[i]; pool[i] = pool[j]; pool[j] = t;
            }
            for (int64_t i = 0; i < m; i++) {
                int trial = 0;
                while (trial == *cur || trial == best) trial++;
                rf_state_copy(S->st[trial], g);
                rf_search_take(S, S->st[trial], pool[i]);
                rf_search_standing(S, S->st[trial], mover, key);
                if (best < 0 || rf_cmp(key, best_key) > 0) {
                    best = trial;
                    memcpy(best_key, key, sizeof key);
                }
            }
            *cur = best;
            g = S->st[best];
        }
        steps -= 1;
    }
    rf_rewards(S, g, out);
}

/* --- the tree ------------------------------------------------------------------------------------ */
/* _uct: inf unvisited; the product kept apart from the sum, as Python rounds it */
static double rf_explore(const RfSearch *S, const RfNode *node) {
    if (node->visits == 0) return INFINITY;
    volatile double spread = S->exploration * sqrt(log((double)(node->avail > 1 ? node->avail : 1)) / (double)node->visits);
    return node->reward / (double)node->visits + spread;
}

static int64_t rf_root_place(const RfSearch *S, int32_t action) { return rf_tree_get(S, -2, action); }

/* MCTSAgent._iterate on a fresh determinization */
static void rf_iterate(RfSearch *S) {
    int cur = 0;
    State *g = S->st[0];
    rf_determinize(S, S->root, g);
    int64_t node = 0, npath = 0;
    S->path[npath++] = 0;
    int32_t *untried = S->pool;
    while (!g->over) {
        int32_t n = g->nlegal, nu = 0;
        for (int32_t i = 0; i < n; i++) {
            int64_t child = rf_tree_get(S, node, g->legal[i]);
            if (child < 0) untried[nu++] = i;
            else S->nodes[child].avail += 1;
        }
        int32_t mover = rf_search_mover(S, g);
        if (nu) {
            int32_t pick = untried[0];
            if (node == 0) {  /* the first tries' order (an action they did not see: 0), first lowest */
                int64_t place = rf_root_place(S, g->legal[pick]), low = place < 0 ? 0 : S->order[place];
                for (int32_t u = 1; u < nu; u++) {
                    place = rf_root_place(S, g->legal[untried[u]]);
                    int64_t o = place < 0 ? 0 : S->order[place];
                    if (o < low) { low = o; pick = untried[u]; }
                }
            } else {
                pick = untried[rf_below(S->rng, (uint64_t)nu)];
            }
            int64_t child = rf_new_node(S, node, g->legal[pick], mover);
            S->nodes[child].avail = 1;
            rf_search_take(S, g, pick);
            S->path[npath++] = child;
            break;
        }
        int32_t pick = -1;
        double most = 0.0;
        for (int32_t i = 0; i < n; i++) {
            const RfNode *child = &S->nodes[rf_tree_get(S, node, g->legal[i])];
            double value = rf_explore(S, child);
            if (node == 0 && S->bias != 0.0) {
                int64_t place = rf_root_place(S, g->legal[i]);
                value = value + S->bias * (place < 0 ? 0.0 : S->prior[place]) / (double)(child->visits + 1);
            }
            if (pick < 0 || value > most) { pick = i; most = value; }
        }
        node = rf_tree_get(S, node, g->legal[pick]);
        rf_search_take(S, g, pick);
        S->path[npath++] = node;
    }
    double result[NPLAYERS];
    rf_playout(S, &cur, result);
    for (int64_t i = 1; i < npath; i++) {
        RfNode *visited = &S->nodes[S->path[i]];
        visited->visits += 1;
        if (visited->player >= 0) visited->reward += result[visited->player];
    }
}

/* MCTSAgent._first_tries: each root action's standing on one determinization, a random
 * tie-break; the order they are first tried in and the progressive bias */
static void rf_first_tries(RfSearch *S) {
    int32_t n = S->nroot, *sorted = S->sorted, *distinct = S->distinct;
    int64_t *keys = S->keys;
    double *ties = S->ties;
    State *base = S->st[0], *trial = S->st[1];
    rf_determinize(S, S->root, base);
    for (int32_t a = 0; a < n; a++) {
        rf_state_copy(trial, base);
        for (int32_t i = 0; i < trial->nlegal; i++)
            if (trial->legal[i] == S->root_ids[a]) { rf_search_take(S, trial, i); break; }
        rf_search_standing(S, trial, S->me, keys + a * NRANK);
        ties[a] = rf_unit(S->rng);
    }
    /* sorted by (key, -tie), reverse: best key first, then the lower tie; stable */
    for (int32_t a = 0; a < n; a++) {
        int32_t y = a;
        while (y > 0) {
            int32_t b = sorted[y - 1];
            int c = rf_cmp(keys + a * NRANK, keys + b * NRANK);
            if (!(c > 0 || (c == 0 && ties[a] < ties[b]))) break;
            sorted[y] = b;
            y--;
        }
        sorted[y] = a;
    }
    int64_t low = keys[0], high = keys[0];
    int32_t nd = 0;
    for (int32_t r = 0; r < n; r++) {
        int32_t a = sorted[r];
        S->order[a] = r;
        if (keys[a * NRANK] < low) low = keys[a * NRANK];
        if (keys[a * NRANK] > high) high = keys[a * NRANK];
        /* the distinct keys, ascending (the list is descending: each new one goes first) */
        if (nd == 0 || rf_cmp(keys + a * NRANK, keys + distinct[0] * NRANK) != 0) {
            memmove(distinct + 1, distinct, (size_t)nd * sizeof(int32_t));
            distinct[0] = a;
            nd++;
        }
    }
    int64_t span = high - low;
    for (int32_t a = 0; a < n; a++) {
        if (span) {
            S->prior[a] = (double)(keys[a * NRANK] - low) / (double)span;
        } else if (nd > 1) {
            int32_t i = 0;
            while (rf_cmp(keys + distinct[i] * NRANK, keys + a * NRANK) != 0) i++;
            S->prior[a] = (double)i / (double)(nd - 1);
        } else {
            S->prior[a] = 1.0;
        }
    }
    S->guided = nd > 1;
}

/* the whole decision: the chosen legal action's place, or -1 when the Python search must run */
static int32_t rf_search_run(RfSearch *S) {
    volatile int64_t it;
    int32_t n = S->nroot;
    S->strict = 1;
    if (setjmp(S->env)) return -1;
    rf_first_tries(S);
    rf_state_copy(S->st[0], S->root);
    for (int p = 0; p < NPLAYERS; p++) rf_search_standing(S, S->st[0], p, S->start + p * NRANK);
    S->strict = 0;
    for (it = 0; it < S->budget; it++) {
        switch (setjmp(S->env)) {
            case 0: rf_iterate(S); break;
            case RF_SEARCH_GIVE_UP: return -1;
            default: break;  /* RF_SEARCH_SKIP: a rules error in this iteration */
        }
    }
    int32_t best = -1;
    int64_t best_visits = 0;
    double best_mean = 0.0;
    for (int32_t a = 0; a < n; a++) {
        int64_t child = rf_tree_get(S, 0, S->root_ids[a]);
        int64_t visits = child < 0 ? -1 : S->nodes[child].visits;
        double mean = child < 0 ? 0.0 : S->nodes[child].reward / (double)(visits > 1 ? visits : 1);
        if (best < 0 || visits > best_visits || (visits == best_visits && mean > best_mean)) {
            best = a;
            best_visits = visits;
            best_mean = mean;
        }
    }
    if (rf_tree_get(S, 0, S->root_ids[best]) < 0) best = (int32_t)rf_below(S->rng, (uint64_t)n);
    return best;
}

/* search(state, me, budget, horizon, guide, bias, temper, exploration, score_part, words, kinds,
 * hidden) -> (place of the chosen legal action, the stream's words after, the root's children as
 * (action id, player, visits, reward, avail) in the order made), or None: the Python search must
 * run. `horizon` -1 is none; `kinds` each component's kind and `hidden` the zones hidden from
 * `me`, as native-endian int32s. */
static PyObject *rf_py_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 12) { PyErr_SetString(PyExc_TypeError, "search() takes 12 arguments"); return NULL; }
    State *position = rf_state_of(args[0]);
    if (position == NULL) return NULL;
    RfSearch S;
    memset(&S, 0, offsetof(RfSearch, env));
    long long me = PyLong_AsLongLong(args[1]), budget = PyLong_AsLongLong(args[2]);
    long long horizon = PyLong_AsLongLong(args[3]), guide = PyLong_AsLongLong(args[4]);
    S.bias = PyFloat_AsDouble(args[5]);
    S.temper = PyFloat_AsDouble(args[6]);
    S.exploration = PyFloat_AsDouble(args[7]);
    S.score_part = PyFloat_AsDouble(args[8]);
    if (PyErr_Occurred()) return NULL;
    if (!PyTuple_Check(args[9]) || PyTuple_GET_SIZE(args[9]) != 4 || !PyBytes_Check(args[10]) || !PyBytes_Check(args[11])) {
        PyErr_SetString(PyExc_TypeError, "search(): words as a 4-tuple, kinds and hidden as bytes");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        S.rng[i] = (uint64_t)PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args[9], i));
        if (PyErr_Occurred()) return NULL;
    }
    if (me < 0 || me >= NPLAYERS || budget < 0 || budget > ((int64_t)1 << 40) || horizon < -1 || horizon > ((int64_t)1 << 40)
        || guide < -((int64_t)1 << 40) || guide > ((int64_t)1 << 40)
        || PyBytes_GET_SIZE(args[10]) != (Py_ssize_t)(NC * sizeof(int32_t))
        || PyBytes_GET_SIZE(args[11]) % (Py_ssize_t)sizeof(int32_t) != 0
        || PyBytes_GET_SIZE(args[11]) > (Py_ssize_t)(NZ * sizeof(int32_t))) {
        PyErr_SetString(PyExc_ValueError, "search(): an argument out of range");
        return NULL;
    }
    if (position->err || position->over || position->nlegal <= 0 || position->chooser != me) Py_RETURN_NONE;
    S.me = (int32_t)me;
    S.budget = budget;
    S.horizon = horizon;
    S.guide = guide;
    S.kind = (const int32_t *)PyBytes_AS_STRING(args[10]);
    S.nhidden = (int32_t)(PyBytes_GET_SIZE(args[11]) / (Py_ssize_t)sizeof(int32_t));
    memcpy(S.hidden, PyBytes_AS_STRING(args[11]), (size_t)S.nhidden * sizeof(int32_t));
    for (int32_t h = 0; h < S.nhidden; h++) {
        if (S.hidden[h] < 0 || S.hidden[h] >= NZ) { PyErr_SetString(PyExc_ValueError, "search(): no such zone"); return NULL; }
        S.shut[S.hidden[h]] = 1;
    }
    S.nroot = position->nlegal;
    S.ncap = budget + 2;
    uint64_t slots = 64;
    while (slots < 2 * (uint64_t)(S.ncap + S.nroot)) slots *= 2;
    S.hmask = slots - 1;
    S.nodes = PyMem_Malloc(sizeof(RfNode) * (size_t)S.ncap);
    S.path = PyMem_Malloc(sizeof(int64_t) * (size_t)(S.ncap + 1));
    S.hkeys = PyMem_Calloc((size_t)slots, sizeof(uint64_t));
    S.hvals = PyMem_Malloc(sizeof(int64_t) * (size_t)slots);
    S.root_ids = PyMem_Malloc(sizeof(int32_t) * (size_t)S.nroot);
    S.pool = PyMem_Malloc(sizeof(int32_t) * MAXLEGAL);
    S.order = PyMem_Malloc(sizeof(int64_t) * (size_t)S.nroot);
    S.prior = PyMem_Malloc(sizeof(double) * (size_t)S.nroot);
    S.keys = PyMem_Malloc(sizeof(int64_t) * NRANK * (size_t)S.nroot);
    S.ties = PyMem_Malloc(sizeof(double) * (size_t)S.nroot);
    S.sorted = PyMem_Malloc(sizeof(int32_t) * (size_t)S.nroot);
    S.distinct = PyMem_Malloc(sizeof(int32_t) * (size_t)S.nroot);
    S.root = PyMem_Malloc(sizeof(State));
    for (int i = 0; i < 4; i++) S.st[i] = PyMem_Malloc(sizeof(State));
    PyObject *out = NULL;
    int ready = S.nodes && S.path && S.hkeys && S.hvals && S.root_ids && S.pool && S.order && S.prior && S.root && S.keys && S.ties
                && S.sorted && S.distinct;
    for (int i = 0; i < 4; i++) ready = ready && S.st[i] != NULL;
    if (!ready) {
        PyErr_NoMemory();
    } else {
        rf_state_copy(S.root, position);
        for (int32_t a = 0; a < S.nroot; a++) {
            S.root_ids[a] = position->legal[a];
            if (rf_root_place(&S, position->legal[a]) < 0) rf_tree_put(&S, -2, position->legal[a], a);
        }
        rf_new_node(&S, -1, -1, -1);  /* the root */
        S.nodes[0].player = -1;
        jmp_buf *saved = rf_trap_to;
        int32_t chosen = rf_search_run(&S);
        rf_trap_to = saved;
        if (chosen < 0) {
            out = Py_None;
            Py_INCREF(out);
        } else {
            PyObject *children = PyList_New(0);
            for (int64_t k = 1; children != NULL && k < S.nnodes; k++) {
                const RfNode *node = &S.nodes[k];
                if (node->parent != 0) continue;
                PyObject *row = Py_BuildValue("(iiLdL)", node->action, node->player, (long long)node->visits,
                                              node->reward, (long long)node->avail);
                if (row == NULL || PyList_Append(children, row) < 0) Py_CLEAR(children);
                Py_XDECREF(row);
            }
            if (children != NULL)
                out = Py_BuildValue("(i(KKKK)N)", chosen, (unsigned long long)S.rng[0], (unsigned long long)S.rng[1],
                                    (unsigned long long)S.rng[2], (unsigned long long)S.rng[3], children);
        }
    }
    PyMem_Free(S.nodes); PyMem_Free(S.path); PyMem_Free(S.hkeys); PyMem_Free(S.hvals); PyMem_Free(S.root_ids);
    PyMem_Free(S.pool); PyMem_Free(S.order); PyMem_Free(S.prior); PyMem_Free(S.root);
    PyMem_Free(S.keys); PyMem_Free(S.ties); PyMem_Free(S.sorted); PyMem_Free(S.distinct);
    for (int i = 0; i < 4; i++) PyMem_Free(S.st[i]);
    return out;
}

static PyObject *rf_py_search_ready(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    return PyBool_FromLong(RF_SEARCH_READY && NRANK >= 1);
}
