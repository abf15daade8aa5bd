/* The native engine's runtime: the C counterpart of ruleforge/runtime.py for lowered games.
 *
 * Hand-written, never generated, and it holds no text of any rules file. A lowered game defines
 * its sizes before including it: NZ zones, ZCAP (the most components a zone can hold: every
 * component), NC components, NV variables, NPROP changeable properties (at least 1), NB score
 * breakdown slots, NLOC flow locals, MAXLEGAL legal actions at a decision, NPLAYERS, NRANK the
 * length of a ranking key, NONE_SLOT the component index the tables read for none; RF_SEEN_P,
 * RF_SEEN_C, RF_SEEN_W the size of what players saw (each 1 when RF_SEEN_KEPT is 0).
 *
 * Every value of the rules is an int64_t; none is INT64_MIN (RF_NONE). Every operation Python
 * would refuse (arithmetic on none, an index out of range, a pop from an empty zone, an overflow
 * Python's unbounded ints would not meet) is checked and traps: the game stops where it is and
 * the caller hands it to the reference engine, which replays it and reports the rule as today.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>  /* first, as Python asks */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RF_NONE INT64_MIN
#define RF_UNSET (INT64_MIN + 1)  /* a lifted part of a rule not worked out yet */
#define RF_OUT_OF_RANGE(r) ((r) <= RF_UNSET)  /* the two values above are no number's */

enum { RF_OK = 0, RF_TRAP_NONE = 1, RF_TRAP_INDEX = 2, RF_TRAP_OVERFLOW = 3, RF_TRAP_DIVIDE = 4,
       RF_TRAP_EMPTY = 5, RF_TRAP_ENDLESS = 6, RF_TRAP_LEGAL_FULL = 7, RF_TRAP_ABSENT = 8,
       RF_TRAP_CAPACITY = 9, RF_TRAP_UNREACHABLE = 10, RF_TRAP_SKIPS = 11, RF_TRAP_DECISIONS = 12,
       RF_TRAP_DEPTH = 13 };  /* DEPTH: an action's effect that takes itself, deeper than lowered */

typedef struct {
    /* what a new game sets: rf_init zeroes everything before `z` */
    int32_t zn[NZ];           /* zone lengths */
    int32_t w[NC];            /* the zone each component is in */
    int32_t f[NC];            /* the zone it came from on its last move (-1: none, or shuffled) */
    int64_t v[NV];            /* variables */
    int64_t p[NPROP][NC];     /* changeable properties */
    int64_t b[NB];            /* score breakdown, flat per player and item */
    int64_t loc[NLOC];        /* the flow's locals, which live across decisions */
    int64_t listn[NLISTS];    /* the lengths of the flow's lists */
    int64_t fired[NFIRED + 1];  /* each trigger's firings this game (a program that counts them) */
    int64_t used_stamp[NACTIONS_DECLARED], used_turn[NACTIONS_DECLARED];  /* uses this turn (the turn stamped) */
    int64_t used_game[NACTIONS_DECLARED][NPLAYERS];  /* uses by each player this game */
    uint64_t seen[RF_SEEN_P][RF_SEEN_C][RF_SEEN_W];  /* per player and component, a bit per zone it was
                                 * shown in by a `reveal` (kept only for the search: RF_SEEN_KEPT) */
    uint64_t rng[4];          /* xoshiro256** (docs/random.md) */
    int64_t turn, steps, skips, chooser, pc;  /* chooser: RF_NONE for nobody */
    int32_t over, resume, err, nlegal, action;
    /* read only up to their lengths, so never zeroed */
    int32_t z[NZ][ZCAP];      /* zone contents, bottom first */
    int64_t lists[NLISTS][LISTCAP];  /* the flow's lists, which live across decisions */
    int64_t vl[NVLIST][LISTCAP];  /* the items of the variables that hold lists (v: their lengths) */
    int32_t legal[MAXLEGAL];  /* the legal actions at the decision, as ids of the action catalogue */
} State;

/* --- traps ---------------------------------------------------------------------------------- */
static jmp_buf *rf_trap_to;  /* set by every entry point (calls hold the GIL: one at a time) */

static void rf_trap(State *st, int code) __attribute__((noreturn));
static void rf_trap(State *st, int code) {
    st->err = code;
    longjmp(*rf_trap_to, 1);
}

/* a trap where an expression needs a value */
static inline int64_t rf_trap_value(State *st, int code) {
    rf_trap(st, code);
}

/* --- checked arithmetic, as Python's ints and its None would have it ------------------------- */
static inline int64_t rf_num(State *st, int64_t a) {
    if (a == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    return a;
}

static inline int64_t rf_add(State *st, int64_t a, int64_t b) {
    int64_t r;
    if (a == RF_NONE || b == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (__builtin_add_overflow(a, b, &r) || RF_OUT_OF_RANGE(r)) rf_trap(st, RF_TRAP_OVERFLOW);
    return r;
}

static inline int64_t rf_sub(State *st, int64_t a, int64_t b) {
    int64_t r;
    if (a == RF_NONE || b == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (__builtin_sub_overflow(a, b, &r) || RF_OUT_OF_RANGE(r)) rf_trap(st, RF_TRAP_OVERFLOW);
    return r;
}

static inline int64_t rf_mul(State *st, int64_t a, int64_t b) {
    int64_t r;
    if (a == RF_NONE || b == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (__builtin_mul_overflow(a, b, &r) || RF_OUT_OF_RANGE(r)) rf_trap(st, RF_TRAP_OVERFLOW);
    return r;
}

static inline int64_t rf_neg(State *st, int64_t a) {
    if (a == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    return -a;  /* -(INT64_MIN + 1) fits */
}

/* Python's //: rounds toward minus infinity */
static inline int64_t rf_floordiv(State *st, int64_t a, int64_t b) {
    if (a == RF_NONE || b == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (b == 0) rf_trap(st, RF_TRAP_DIVIDE);
    if (b == -1) return rf_neg(st, a);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

/* Python's %: the sign of the divisor */
static inline int64_t rf_mod(State *st, int64_t a, int64_t b) {
    if (a == RF_NONE || b == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (b == 0) rf_trap(st, RF_TRAP_DIVIDE);
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

/* an order comparison: Python refuses None there */
static inline int64_t rf_ord(State *st, int64_t a) {
    if (a == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    return a;
}

/* Python's truth of a scalar: 0, False, None and the empty text are false (RF_EMPTY_TEXT is the
 * empty text's id, or none's when the program has no empty text) */
static inline int rf_truth(int64_t a) { return a != 0 && a != RF_NONE && a != RF_EMPTY_TEXT; }

/* a constant dict keyed by numbers (none's entry last): Python's KeyError for a key it lacks */
static inline int64_t rf_dict_get(State *st, const int64_t *pairs, int64_t key, int64_t low, int64_t span) {
    int64_t at = key == RF_NONE ? span : key - low;
    if (key != RF_NONE && (key < low || key >= low + span)) rf_trap(st, RF_TRAP_INDEX);
    if (!pairs[2 * at]) rf_trap(st, RF_TRAP_INDEX);
    return pairs[2 * at + 1];
}

/* a list index as Python takes it: negative from the end, out of range an error */
static inline int64_t rf_at(State *st, int64_t i, int64_t n) {
    if (i == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (i < 0) i += n;
    if (i < 0 || i >= n) rf_trap(st, RF_TRAP_INDEX);
    return i;
}

/* a list's next item, within a capacity of its own */
static inline void rf_push_to(State *st, int64_t *items, int64_t *n, int64_t cap, int64_t value) {
    if (*n >= cap) rf_trap(st, RF_TRAP_CAPACITY);
    items[(*n)++] = value;
}

/* a list's next item, within its capacity */
static inline void rf_push(State *st, int64_t *items, int64_t *n, int64_t value) {
    if (*n >= LISTCAP) rf_trap(st, RF_TRAP_CAPACITY);
    items[(*n)++] = value;
}

/* a list's items copied (a scoring's items, a key) */
static inline void rf_copy(int64_t *dst, const int64_t *src, int64_t n) {
    if (n > 0 && dst != src) memmove(dst, src, (size_t)n * sizeof(int64_t));
}

/* the length of a list that may be none: going through none is Python's TypeError */
static inline int64_t rf_listlen(State *st, int64_t n) {
    if (n == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    return n;
}

/* two keys of n values compared as Python compares tuples: whether a > b (the first unequal
 * place decides; none there is Python's TypeError) */
static inline int rf_key_greater(State *st, const int64_t *a, const int64_t *b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (a[i] != b[i]) return rf_ord(st, a[i]) > rf_ord(st, b[i]);
    return 0;
}

/* --- variables that hold lists: v[i] is the length (none: RF_NONE), vl[slot[i]] the items ---- */
static inline int64_t rf_vlist_slot(State *st, int64_t i, const int64_t *slot) {
    i = rf_at(st, i, NV);
    if (slot[i] < 0) rf_trap(st, RF_TRAP_UNREACHABLE);  /* a variable of one value read as a list */
    return slot[i];
}

/* a variable of one value (a list read as one value hands the game over) */
static inline int64_t rf_vscalar(State *st, int64_t i, const int64_t *slot) {
    i = rf_at(st, i, NV);
    if (slot[i] >= 0) rf_trap(st, RF_TRAP_UNREACHABLE);
    return i;
}

static inline void rf_vlist_check(State *st, int64_t i, const int64_t *slot, int64_t is_list) {
    if (is_list) rf_vlist_slot(st, i, slot); else rf_vscalar(st, i, slot);
}

/* the variable's items copied into `items`: its length, none for none */
static inline int64_t rf_vlist_get(State *st, int64_t i, const int64_t *slot, int64_t *items) {
    int64_t s = rf_vlist_slot(st, i, slot);
    int64_t n = st->v[i < 0 ? i + NV : i];
    if (n != RF_NONE) rf_copy(items, st->vl[s], n);
    return n;
}

/* the variable set to a list of n items (none: n is RF_NONE) */
static inline void rf_vlist_set(State *st, int64_t i, const int64_t *slot, const int64_t *items, int64_t n) {
    int64_t s = rf_vlist_slot(st, i, slot);
    if (n != RF_NONE) {
        if (n > LISTCAP) rf_trap(st, RF_TRAP_CAPACITY);
        rf_copy(st->vl[s], items, n);
    }
    st->v[i < 0 ? i + NV : i] = n;
}

/* whether a list holds a value */
static inline int rf_has(const int64_t *items, int64_t n, int64_t value) {
    for (int64_t i = 0; i < n; i++)
        if (items[i] == value) return 1;
    return 0;
}

/* how many distinct values a list holds (`len({...})`) */
static inline int64_t rf_distinct(const int64_t *items, int64_t n) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t j = 0;
        while (j < i && items[j] != items[i]) j++;
        count += j == i;
    }
    return count;
}

/* --- zones ---------------------------------------------------------------------------------- */
static inline int64_t rf_zone(State *st, int64_t i) { return rf_at(st, i, NZ); }

static inline int64_t rf_comp(State *st, int64_t c) { return rf_at(st, c, NC); }

static inline int64_t rf_len(State *st, int64_t zi) { return st->zn[zi]; }

/* `(Z[i] or NOIDX)[-1]`: the top component, or the slot the tables read for none */
static inline int64_t rf_top_or_slot(State *st, int64_t zi) {
    int32_t n = st->zn[zi];
    return n ? st->z[zi][n - 1] : NONE_SLOT;
}

/* `(Z[i] or NOIDX)[0]`: the bottom component, or the slot the tables read for none */
static inline int64_t rf_bottom_or_slot(State *st, int64_t zi) {
    return st->zn[zi] ? st->z[zi][0] : NONE_SLOT;
}

/* `Z[i][k]` */
static inline int64_t rf_item(State *st, int64_t zi, int64_t k) {
    return st->z[zi][rf_at(st, k, st->zn[zi])];
}

static inline int64_t rf_pop(State *st, int64_t zi) {
    if (st->zn[zi] == 0) rf_trap(st, RF_TRAP_EMPTY);
    return st->z[zi][--st->zn[zi]];
}

static inline void rf_append(State *st, int64_t zi, int64_t c) {
    if (st->zn[zi] >= ZCAP) rf_trap(st, RF_TRAP_CAPACITY);
    st->z[zi][st->zn[zi]++] = (int32_t)c;
}

static inline void rf_insert_bottom(State *st, int64_t zi, int64_t c) {
    int32_t n = st->zn[zi];
    if (n >= ZCAP) rf_trap(st, RF_TRAP_CAPACITY);
    memmove(st->z[zi] + 1, st->z[zi], (size_t)n * sizeof(int32_t));
    st->z[zi][0] = (int32_t)c;
    st->zn[zi] = n + 1;
}

/* list.remove: the first occurrence; absent is Python's ValueError */
static inline void rf_remove(State *st, int64_t zi, int64_t c) {
    int32_t *z = st->z[zi];
    int32_t n = st->zn[zi];
    for (int32_t i = 0; i < n; i++) {
        if (z[i] == c) {
            memmove(z + i, z + i + 1, (size_t)(n - i - 1) * sizeof(int32_t));
            st->zn[zi] = n - 1;
            return;
        }
    }
    rf_trap(st, RF_TRAP_ABSENT);
}

/* runtime.move */
static inline void rf_move(State *st, int64_t c, int64_t dst, int bottom) {
    int64_t src = st->w[c];
    st->f[c] = (int32_t)src;
    rf_remove(st, src, c);
    if (bottom) rf_insert_bottom(st, dst, c); else rf_append(st, dst, c);
    st->w[c] = (int32_t)dst;
}

/* runtime.move_all */
static inline void rf_move_all(State *st, int64_t src, int64_t dst, int bottom) {
    if (src == dst) return;
    int32_t n = st->zn[src];
    if (!n) return;
    if (st->zn[dst] + n > ZCAP) rf_trap(st, RF_TRAP_CAPACITY);
    int32_t *s = st->z[src];
    for (int32_t i = 0; i < n; i++) { st->w[s[i]] = (int32_t)dst; st->f[s[i]] = (int32_t)src; }
    if (bottom) {
        memmove(st->z[dst] + n, st->z[dst], (size_t)st->zn[dst] * sizeof(int32_t));
        memcpy(st->z[dst], s, (size_t)n * sizeof(int32_t));
    } else {
        memcpy(st->z[dst] + st->zn[dst], s, (size_t)n * sizeof(int32_t));
    }
    st->zn[dst] += n;
    st->zn[src] = 0;
}

/* runtime.move_top */
static inline void rf_move_top(State *st, int64_t n, int64_t src, int64_t dst, int bottom) {
    n = rf_num(st, n);
    if (n > st->zn[src]) n = st->zn[src];
    for (int64_t k = 0; k < n; k++) {
        int64_t c = rf_pop(st, src);
        st->w[c] = (int32_t)dst;
        st->f[c] = (int32_t)src;
        if (bottom) rf_insert_bottom(st, dst, c); else rf_append(st, dst, c);
    }
}

/* runtime.deal */
static inline void rf_deal(State *st, int64_t n, int64_t src, int64_t base, int64_t players) {
    n = rf_num(st, n);
    for (int64_t k = 0; k < n; k++)
        for (int64_t p = 0; p < players; p++) {
            if (!st->zn[src]) return;
            int64_t c = rf_pop(st, src);
            int64_t dst = rf_zone(st, base + p);
            st->w[c] = (int32_t)dst;
            st->f[c] = (int32_t)src;
            rf_append(st, dst, c);
        }
}

/* runtime.swap_zones: each zone's components in the other, each marked as come from it */
static inline void rf_swap_zones(State *st, int64_t a, int64_t b) {
    int32_t tmp[ZCAP];
    int32_t na = st->zn[a], nb = st->zn[b];
    memcpy(tmp, st->z[a], (size_t)na * sizeof(int32_t));
    memcpy(st->z[a], st->z[b], (size_t)nb * sizeof(int32_t));
    memcpy(st->z[b], tmp, (size_t)na * sizeof(int32_t));
    st->zn[a] = nb;
    st->zn[b] = na;
    for (int32_t i = 0; i < nb; i++) { st->w[st->z[a][i]] = (int32_t)a; st->f[st->z[a][i]] = (int32_t)b; }
    for (int32_t i = 0; i < na; i++) { st->w[st->z[b][i]] = (int32_t)b; st->f[st->z[b][i]] = (int32_t)a; }
}

/* runtime.reveal_zone: the zone's components marked as seen there by the player (State.seen; a
 * zone numbered from the end, as Python may index it, is recorded under -1: determinize reads
 * none of those) */
static inline void rf_reveal_zone(State *st, int64_t zi, int64_t player) {
    player = rf_at(st, player, NPLAYERS);
    int64_t at = rf_zone(st, zi);
    if (!RF_SEEN_KEPT || zi < 0) return;
    for (int32_t i = 0; i < st->zn[at]; i++) {
        int32_t comp = st->z[at][i];
        st->seen[player][comp][at >> 6] |= (uint64_t)1 << (at & 63);
    }
}

/* the place of a component in its zone (list.index: absent is Python's ValueError) */
static inline int32_t rf_index_in(State *st, int64_t zi, int64_t comp) {
    for (int32_t i = 0; i < st->zn[zi]; i++)
        if (st->z[zi][i] == comp) return i;
    rf_trap(st, RF_TRAP_ABSENT);
}

/* runtime.swap_components: each takes the other's place */
static inline void rf_swap_components(State *st, int64_t a, int64_t b) {
    a = rf_comp(st, a);
    b = rf_comp(st, b);
    int64_t za = st->w[a], zb = st->w[b];
    int32_t ia = rf_index_in(st, za, a), ib = rf_index_in(st, zb, b);
    st->z[za][ia] = (int32_t)b;
    st->z[zb][ib] = (int32_t)a;
    st->w[a] = (int32_t)zb;
    st->w[b] = (int32_t)za;
    st->f[a] = (int32_t)za;
    st->f[b] = (int32_t)zb;
}

/* runtime.sort_zone: the zone reordered by its components' keys (one each, in zone order),
 * smallest at the bottom, equal keys in their old order, a key of none first */
static inline void rf_sort_zone(State *st, int64_t zi, int64_t *keys, int64_t n) {
    int32_t *z = st->z[zi];
    if (n != st->zn[zi]) rf_trap(st, RF_TRAP_UNREACHABLE);
    for (int64_t i = 1; i < n; i++) {  /* insertion sort: stable, and zones are short */
        int64_t key = keys[i];
        int32_t comp = z[i];
        int64_t j = i - 1;
        while (j >= 0 && (keys[j] != RF_NONE && (key == RF_NONE || keys[j] > key))) {
            keys[j + 1] = keys[j];
            z[j + 1] = z[j];
            j--;
        }
        keys[j + 1] = key;
        z[j + 1] = comp;
    }
}

/* runtime.sorted_by_key: items reordered by their keys as sort_zone orders a zone */
static inline void rf_sort_pairs(int64_t *keys, int64_t *items, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        int64_t key = keys[i], item = items[i], j = i - 1;
        while (j >= 0 && (keys[j] != RF_NONE && (key == RF_NONE || keys[j] > key))) {
            keys[j + 1] = keys[j];
            items[j + 1] = items[j];
            j--;
        }
        keys[j + 1] = key;
        items[j + 1] = item;
    }
}

/* runtime.groups (for cells): each item's group, numbered in the order of the groups' first
 * items; cells orthogonally adjacent (adj_at/adj: each zone's neighbours) or shared are joined.
 * The number of groups. */
static int32_t rf_find(int32_t *parent, int32_t i) {
    while (parent[i] != i) { parent[i] = parent[parent[i]]; i = parent[i]; }
    return i;
}

static inline int64_t rf_groups(State *st, const int64_t *cells, int64_t n, const int64_t *adj_at,
                                const int64_t *adj, int64_t *gid) {
    int32_t parent[LISTCAP], first_at[NZ], label[LISTCAP];
    for (int32_t z = 0; z < NZ; z++) first_at[z] = -1;
    for (int32_t i = 0; i < n; i++) {
        int64_t cell = rf_zone(st, cells[i]);
        parent[i] = i;
        if (first_at[cell] >= 0) parent[rf_find(parent, i)] = rf_find(parent, first_at[cell]);
        else first_at[cell] = i;
    }
    for (int32_t i = 0; i < n; i++) {
        int64_t cell = cells[i] < 0 ? cells[i] + NZ : cells[i];
        if (first_at[cell] != i) continue;
        for (int64_t k = adj_at[cell]; k < adj_at[cell + 1]; k++) {
            int64_t near = adj[k];
            if (near == RF_NONE || near < 0 || near >= NZ || first_at[near] < 0) continue;
            int32_t a = rf_find(parent, i), b = rf_find(parent, first_at[near]);
            if (a != b) parent[a] = b;
        }
    }
    int32_t groups = 0;
    for (int32_t i = 0; i < n; i++) label[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t root = rf_find(parent, i);
        if (label[root] < 0) label[root] = groups++;
        gid[i] = label[root];
    }
    return groups;
}

/* geometry.extent: the lowest and highest position (row or column) of a grid's occupied cells;
 * none for an empty grid */
static inline void rf_extent(State *st, int64_t first, int64_t size, const int64_t *position, int64_t n,
                             int64_t *low, int64_t *high) {
    *low = RF_NONE;
    *high = RF_NONE;
    for (int64_t cell = first; cell < first + size; cell++) {
        if (!st->zn[rf_zone(st, cell)]) continue;
        int64_t at = rf_ord(st, position[rf_at(st, cell, n)]);
        if (*low == RF_NONE || at < *low) *low = at;
        if (*high == RF_NONE || at > *high) *high = at;
    }
}

/* geometry.span_with: rows (or columns) between the outermost occupied cells, counting `extra` */
static inline int64_t rf_span_with(State *st, int64_t low, int64_t high, int64_t extra, int64_t first,
                                   int64_t size, const int64_t *position, int64_t n) {
    int in_grid = extra != RF_NONE && first <= extra && extra < first + size;
    if (low == RF_NONE) return in_grid ? 1 : 0;
    if (in_grid) {
        int64_t at = rf_ord(st, position[rf_at(st, extra, n)]);
        if (at < low) low = at;
        else if (at > high) high = at;
    }
    return high - low + 1;
}

/* runtime.cell_at: a grid's cell by 1-based row and column, none outside */
static inline int64_t rf_cell_at(State *st, int64_t first, int64_t row, int64_t column, int64_t rows,
                                 int64_t columns) {
    if (row == RF_NONE || column == RF_NONE) rf_trap(st, RF_TRAP_NONE);
    if (1 <= row && row <= rows && 1 <= column && column <= columns)
        return first + (row - 1) * columns + (column - 1);
    return RF_NONE;
}

/* --- chance: xoshiro256** seeded by splitmix64 (docs/random.md) ------------------------------- */
static inline uint64_t rf_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void rf_seed(uint64_t *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng[i] = rf_splitmix(&seed);
}

static inline uint64_t rf_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rf_next(uint64_t *s) {
    uint64_t result = rf_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rf_rotl(s[3], 45);
    return result;
}

/* Lemire's unbiased bounded draw in [0, n), 1 <= n < 2**63 */
static inline uint64_t rf_below(uint64_t *s, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)rf_next(s) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (unsigned __int128)rf_next(s) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* runtime.rand_choice's index: below(n) of a list of n items, none of nothing */
static inline int64_t rf_draw_index(State *st, int64_t n) {
    if (n <= 0) rf_trap(st, RF_TRAP_EMPTY);
    return (int64_t)rf_below(st->rng, (uint64_t)n);
}

/* runtime.shuffle: Fisher-Yates from the top */
static inline void rf_shuffle(State *st, int64_t zi) {
    int32_t *z = st->z[zi];
    for (int32_t i = st->zn[zi] - 1; i > 0; i--) {
        int32_t j = (int32_t)rf_below(st->rng, (uint64_t)i + 1);
        int32_t t = z[i]; z[i] = z[j]; z[j] = t;
    }
    for (int32_t i = 0; i < st->zn[zi]; i++) st->f[z[i]] = -1;
}

/* an argument's place in a table of ready-made actions (none, where listed, the last place):
 * Python's KeyError outside it */
static inline int64_t rf_key(State *st, int64_t value, int64_t low, int64_t span, int64_t with_none) {
    if (value == RF_NONE) {
        if (!with_none) rf_trap(st, RF_TRAP_INDEX);
        return span - 1;
    }
    if (value < low || value - low >= span - with_none) rf_trap(st, RF_TRAP_INDEX);
    return value - low;
}

/* a ready-made action's id; -1 (none listed for these arguments) is Python's KeyError */
static inline int64_t rf_listed(State *st, int64_t id) {
    if (id < 0) rf_trap(st, RF_TRAP_INDEX);
    return id;
}

/* --- decisions ------------------------------------------------------------------------------ */
static inline void rf_legal_add(State *st, int64_t id) {
    if (st->nlegal >= MAXLEGAL) rf_trap(st, RF_TRAP_LEGAL_FULL);
    st->legal[st->nlegal++] = (int32_t)id;
}

/* a decision that offers nothing is skipped; `skips_in_a_row` of them stop the game (the
 * reference engine's replay names it) */
static inline void rf_skip(State *st) {
    if (++st->skips >= RF_SKIPS_LIMIT) rf_trap(st, RF_TRAP_SKIPS);
}

/* --- geometry.longest_paths ------------------------------------------------------------------- */
/* The runs of segments with the most segments, as networkx answers (ruleforge/geometry.py):
 * a segment is a node; two segments on neighbouring cells are linked when both touch the side
 * they share; each run (a connected component) of the largest size, ordered by its smallest
 * node, is walked depth first (neighbours in the order their links were made, as networkx keeps
 * them) from its smallest node of degree < 2 (else its smallest node), its cells without repeats.
 *
 * `enc` holds the items as [cell, segments, (sides, side...)...]... with sides 0-3 (north, east,
 * south, west) or -1 for none. The paths go into `cells`, each from starts[k], lens[k] long; the
 * number of paths is returned. The work is bounded by the caps below: past them, a trap (the
 * reference engine then answers). */
#define RF_PATH_NODES 512
#define RF_PATH_KEYS 2048
#define RF_PATH_LINKS 4096

static int64_t rf_longest_paths(State *st, const int64_t *enc, int64_t n_enc, const int64_t *near,
                                int64_t *cells, int64_t *starts, int64_t *lens) {
    static int32_t key_at[NZ * 4], key_cell[RF_PATH_KEYS], key_side[RF_PATH_KEYS], key_n[RF_PATH_KEYS],
        key_first[RF_PATH_KEYS + 1], ent_key[RF_PATH_LINKS], ent_node[RF_PATH_LINKS], by_key[RF_PATH_LINKS],
        node_item[RF_PATH_NODES], head[RF_PATH_NODES], tail[RF_PATH_NODES], deg[RF_PATH_NODES],
        comp[RF_PATH_NODES], size[RF_PATH_NODES], first[RF_PATH_NODES], stack[RF_PATH_NODES],
        cursor[RF_PATH_NODES], link_to[2 * RF_PATH_LINKS], link_next[2 * RF_PATH_LINKS];
    static int64_t item_cell[RF_PATH_NODES];
    int32_t n_nodes = 0, n_keys = 0, n_ent = 0, n_links = 0, n_items = 0;
    for (int32_t k = 0; k < NZ * 4; k++) key_at[k] = -1;
    /* 1. the nodes, and the (cell, side) keys in the order they are first met */
    int64_t pos = 0;
    while (pos < n_enc) {
        int64_t cell = enc[pos++];
        if (n_items >= RF_PATH_NODES || pos >= n_enc) rf_trap(st, RF_TRAP_CAPACITY);
        item_cell[n_items] = cell;
        int64_t segs = enc[pos++];
        for (int64_t s = 0; s < segs; s++) {
            if (n_nodes >= RF_PATH_NODES || pos >= n_enc) rf_trap(st, RF_TRAP_CAPACITY);
            node_item[n_nodes] = n_items;
            head[n_nodes] = tail[n_nodes] = -1;
            deg[n_nodes] = 0;
            int64_t sides = enc[pos++];
            for (int64_t t = 0; t < sides; t++) {
                if (pos >= n_enc) rf_trap(st, RF_TRAP_UNREACHABLE);
                int64_t side = enc[pos++];
                if (side < 0) continue;
                if (cell < 0 || cell >= NZ) rf_trap(st, RF_TRAP_INDEX);
                int32_t *k = &key_at[cell * 4 + side];
                if (*k < 0) {
                    if (n_keys >= RF_PATH_KEYS) rf_trap(st, RF_TRAP_CAPACITY);
                    key_cell[n_keys] = (int32_t)cell;
                    key_side[n_keys] = (int32_t)side;
                    key_n[n_keys] = 0;
                    *k = n_keys++;
                }
                if (n_ent >= RF_PATH_LINKS) rf_trap(st, RF_TRAP_CAPACITY);
                ent_key[n_ent] = *k;
                ent_node[n_ent++] = n_nodes;
                key_n[*k]++;
            }
            n_nodes++;
        }
        n_items++;
    }
    /* each key's nodes in the order they were added */
    key_first[0] = 0;
    for (int32_t k = 0; k < n_keys; k++) key_first[k + 1] = key_first[k] + key_n[k];
    for (int32_t k = 0; k < n_keys; k++) key_n[k] = 0;
    for (int32_t e = 0; e < n_ent; e++) by_key[key_first[ent_key[e]] + key_n[ent_key[e]]++] = ent_node[e];
    /* 2. the links, made key by key as geometry._longest makes them (a link made again keeps its place) */
    for (int32_t k = 0; k < n_keys; k++) {
        int64_t cell = key_cell[k], side = key_side[k];
        if (!near[cell * 5 + 4]) continue;  /* not a grid's cell: nothing beyond */
        int64_t beyond = near[cell * 5 + side];
        if (beyond == RF_NONE) continue;
        if (beyond < 0 || beyond >= NZ) rf_trap(st, RF_TRAP_INDEX);
        int32_t other_key = key_at[beyond * 4 + (side + 2) % 4];
        if (other_key < 0) continue;
        for (int32_t a = key_first[other_key]; a < key_first[other_key + 1]; a++) {
            int32_t v = by_key[a];
            for (int32_t b = key_first[k]; b < key_first[k + 1]; b++) {
                int32_t u = by_key[b];
                if (u == v) rf_trap(st, RF_TRAP_UNREACHABLE);  /* a loop: never made by a grid */
                int32_t l = head[u];
                while (l >= 0 && link_to[l] != v) l = link_next[l];
                if (l >= 0) continue;
                if (n_links + 2 > 2 * RF_PATH_LINKS) rf_trap(st, RF_TRAP_CAPACITY);
                int32_t ends[2][2] = {{u, v}, {v, u}};
                for (int32_t h = 0; h < 2; h++) {
                    int32_t from = ends[h][0];
                    link_to[n_links] = ends[h][1];
                    link_next[n_links] = -1;
                    if (tail[from] >= 0) link_next[tail[from]] = n_links; else head[from] = n_links;
                    tail[from] = n_links++;
                    deg[from]++;
                }
            }
        }
    }
    /* 3. the runs, numbered by their smallest node, and the largest size */
    int32_t n_comp = 0, most = 0;
    for (int32_t n = 0; n < n_nodes; n++) comp[n] = -1;
    for (int32_t n = 0; n < n_nodes; n++) {
        if (comp[n] >= 0) continue;
        int32_t top = 0;
        comp[n] = n_comp;
        stack[top++] = n;
        size[n_comp] = 0;
        first[n_comp] = n;
        while (top) {
            int32_t x = stack[--top];
            size[n_comp]++;
            for (int32_t l = head[x]; l >= 0; l = link_next[l])
                if (comp[link_to[l]] < 0) { comp[link_to[l]] = n_comp; stack[top++] = link_to[l]; }
        }
        if (size[n_comp] > most) most = size[n_comp];
        n_comp++;
    }
    /* 4. each largest run walked depth first from a loose end */
    int64_t n_paths = 0, n_cells = 0;
    for (int32_t r = 0; r < n_comp; r++) {
        if (size[r] != most) continue;
        int32_t start = -1;
        for (int32_t n = first[r]; n < n_nodes && start < 0; n++)
            if (comp[n] == r && deg[n] < 2) start = n;
        if (start < 0) start = first[r];
        if (n_paths >= LISTCAP) rf_trap(st, RF_TRAP_CAPACITY);
        starts[n_paths] = n_cells;
        int32_t top = 0;
        for (int32_t n = first[r]; n < n_nodes; n++) if (comp[n] == r) cursor[n] = -2;  /* not yet seen */
        stack[top++] = start;
        cursor[start] = head[start];
        int32_t x = start;
        for (;;) {
            /* x is seen: its cell, unless the path has it */
            int64_t cell = item_cell[node_item[x]];
            int found = 0;
            for (int64_t i = starts[n_paths]; i < n_cells && !found; i++) found = cells[i] == cell;
            if (!found) {
                if (n_cells >= LISTCAP) rf_trap(st, RF_TRAP_CAPACITY);
                cells[n_cells++] = cell;
            }
            x = -1;
            while (top && x < 0) {
                int32_t y = stack[top - 1];
                while (cursor[y] >= 0 && cursor[link_to[cursor[y]]] != -2) cursor[y] = link_next[cursor[y]];
                if (cursor[y] < 0) { top--; continue; }
                x = link_to[cursor[y]];
                cursor[y] = link_next[cursor[y]];
                cursor[x] = head[x];
                stack[top++] = x;
            }
            if (x < 0) break;
        }
        lens[n_paths] = n_cells - starts[n_paths];
        n_paths++;
    }
    return n_paths;
}
