/* The action catalogue of a lowered game, read by id: hand-written, included after the game's
 * tables. An id below 1 << 24 is a listed action (ACT_AID, ACT_ARGS: NARGS arguments each,
 * none for a missing one); an id from (k + 1) << 24 is an action of block k, an action with too
 * many argument values to list, numbered by its arguments (each a place in its span; none's
 * place last when none is a value), the last argument counting fastest. */
#define RF_BLOCK_BITS 24

static inline int64_t rf_act_aid(int64_t id) {
    if (id < ((int64_t)1 << RF_BLOCK_BITS)) return ACT_AID[id];
    return LAZY_AID[(id >> RF_BLOCK_BITS) - 1];
}

static inline int64_t rf_act_arg(int64_t id, int64_t k) {
    if (id < ((int64_t)1 << RF_BLOCK_BITS)) return ACT_ARGS[id * NARGS + k];
    int64_t block = (id >> RF_BLOCK_BITS) - 1;
    int64_t flat = id & (((int64_t)1 << RF_BLOCK_BITS) - 1);
    const int64_t *span = LAZY_SPAN + block * NARGS;
    for (int64_t level = LAZY_DEPTH[block] - 1; level > k; level--) flat /= span[level];
    int64_t place = flat % span[k];
    if (LAZY_NONE[block * NARGS + k] && place == span[k] - 1) return RF_NONE;
    return LAZY_LOW[block * NARGS + k] + place;
}
