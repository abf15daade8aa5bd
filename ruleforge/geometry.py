"""Questions about a grid's shape that generated code asks: how far the occupied cells
spread (`span_rows`, `span_columns`) and the longest paths through segments drawn on cells
(`longest_paths`, answered with networkx).

Cells are zone indexes; `near[cell]` holds the cells beyond its north, east, south and west
sides (None at an edge), worked out once when the rules are compiled.
"""

from __future__ import annotations

from collections.abc import Sequence

# The built-in enum `side`: the step (rows, columns) to the cell beyond each side.
SIDE_STEPS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
SIDE_INDEX = {side: i for i, side in enumerate(SIDE_STEPS)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east", None: None}
# Path answers remembered per program, by cells and segments; more patterns are not kept.
CACHE_SIZE = 100_000


def extent(zones: Sequence, first: int, size: int, position: Sequence) -> tuple[int, int] | None:
    """The lowest and highest row (or column, by `position`) of the occupied cells of the grid
    whose cells are `first` to `first + size - 1`; None for an empty grid. Generated code
    works it out once per decision and tries each placement against it (`span_with`)."""
    found = [position[c] for c in range(first, first + size) if zones[c]]
    return (min(found), max(found)) if found else None


def span_with(box: tuple[int, int] | None, extra: int | None, first: int, size: int, position: Sequence) -> int:
    """How many rows (or columns) lie between the outermost occupied cells of a grid whose
    extent is `box`, counting cell `extra` as occupied too (a placement tried before it is
    made; a cell of another grid counts for nothing). 0 for an empty grid."""
    if box is None:
        return 1 if extra is not None and first <= extra < first + size else 0
    low, high = box
    if extra is not None and first <= extra < first + size:
        at = position[extra]
        if at < low:
            low = at
        elif at > high:
            high = at
    return high - low + 1


def longest_paths(items: list, near: Sequence, cache: dict) -> list[list]:
    """Every connected run of segments with the most segments, each as its distinct cells in
    walking order.

    `items` pairs a cell with its segments, each a list of the sides it touches. A segment
    is a node; two segments on neighbouring cells are linked when both touch the side they
    share. The runs are ordered by their first cell in `items`.
    """
    key = tuple((cell, tuple(tuple(seg) for seg in segs or ())) for cell, segs in items)
    found = cache.get(key)
    if found is None:
        found = _longest(key, near)
        if len(cache) < CACHE_SIZE:
            cache[key] = found
    return [list(path) for path in found]


def _longest(key: tuple, near: Sequence) -> tuple:
    import networkx as nx

    graph = nx.Graph()
    ends: dict[tuple, list] = {}  # (cell, side) -> the segments touching that side of that cell
    for i, (cell, segs) in enumerate(key):
        for j, seg in enumerate(segs):
            graph.add_node((i, j))
            for side in seg:
                if side is not None:
                    ends.setdefault((cell, side), []).append((i, j))
    for (cell, side), nodes in ends.items():
        beyond = near[cell][SIDE_INDEX[side]] if near[cell] is not None else None
        for other in ends.get((beyond, OPPOSITE[side]), ()) if beyond is not None else ():
            graph.add_edges_from((node, other) for node in nodes)
    runs = [sorted(run) for run in nx.connected_components(graph)]
    if not runs:
        return ()
    most = max(map(len, runs))
    out = []
    for run in sorted(r for r in runs if len(r) == most):
        loose = [node for node in run if graph.degree(node) < 2]
        walk = nx.dfs_preorder_nodes(graph, loose[0] if loose else run[0])
        out.append(tuple(dict.fromkeys(key[i][0] for i, _j in walk)))
    return tuple(out)
