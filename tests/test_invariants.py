"""Loop-invariant parts of legal-action enumeration are computed once, lazily
(ruleforge/compiler/invariants.py): the legal actions are exactly those found without it.
The rewrites take and give code trees; the tests write them as text for people to read."""

from __future__ import annotations

import ast as pyast
import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge.compiler import invariants


def lift(cond: str, names) -> tuple[str, list]:
    new, lifted = invariants.lift_invariants(pyast.parse(cond, mode="eval").body, ["a_x"], 1, names)
    return pyast.unparse(new), lifted


def share(code: str, names) -> tuple[str, list]:
    new, boxes = invariants.share_repeated(pyast.parse(code, mode="eval").body, names)
    return pyast.unparse(new), boxes

ROOT = Path(__file__).parents[1]
GAMES = [ROOT / "tests" / "synthetic" / "trails.rules", ROOT / "games" / "naishi.rules",
         ROOT / "games" / "nakasendo.rules"]


def test_a_costly_part_reading_fewer_parameters_is_lifted() -> None:
    names = iter(["n0", "n1"])
    cond = "span_with(extent(Z, 0 + me * 49, 49, ROW), a_x, 0 + me * 49, 49, ROW) <= 4"
    new, lifted = lift(cond, names.__next__)
    assert lifted == [(0, "n0")]
    assert new == ("span_with(n0 if n0 is not UNSET else (n0 := extent(Z, 0 + me * 49, 49, ROW)), "
                   "a_x, 0 + me * 49, 49, ROW) <= 4")


def test_parts_bound_inside_the_condition_stay() -> None:
    # the comprehension's own variable is read: nothing can be computed outside it
    cond = "any((len([t for t in Z[g_y] if KIND[t] == 'Tile']) > 0 for g_y in ADJ[a_x]))"
    assert lift(cond, iter(["n0"]).__next__) == (cond, [])
    # a part reading the innermost parameter stays too
    cond = "len([t for t in Z[a_x] if KIND[t] == 'Tile' and A_big[t]]) > 0"
    assert lift(cond, iter(["n0"]).__next__) == (cond, [])


def test_a_lifted_part_is_computed_only_when_reached() -> None:
    # guarded by `len(Z[0])`, the part would fail on an empty zone if computed eagerly
    cond = "len(Z[0]) > 0 and A_v[next((c for c in Z[0] if A_v[c] > 1), None)] > a_x"
    new, lifted = lift(cond, iter(["n0"]).__next__)
    assert lifted == [(0, "n0")]
    scope = {"UNSET": invariants.UNSET, "n0": invariants.UNSET, "Z": [[]], "A_v": [5, 0]}

    def test(x: int) -> bool:
        scope["a_x"] = x
        return eval(new, scope)  # noqa: S307

    assert [test(1), test(2)] == [False, False] and scope["n0"] is invariants.UNSET
    scope["Z"] = [[0, 1]]
    assert [test(1), test(9)] == [True, False] and scope["n0"] == 0


def _legal_labels_over_games(path: Path, players: int, games: int) -> list[list[str]]:
    rules = ruleforge.load(path)
    out = []
    for seed in range(games):
        game = rules.new_game(players, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            out.append(game.legal_labels())
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
    return out


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_lifting_changes_no_legal_action(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not path.exists():
        pytest.skip(f"{path.name} does not exist yet")
    players = 2
    lifted = _legal_labels_over_games(path, players, 3)
    monkeypatch.setattr(invariants, "MIN_NODES", 10**9)
    monkeypatch.setattr(invariants, "SCANS", set())
    monkeypatch.setattr(invariants, "costly_source", lambda code: False)
    assert _legal_labels_over_games(path, players, 3) == lifted


class CountingZones(list):
    """Zones that count how often they are read."""

    reads = 0

    def __getitem__(self, i):  # noqa: ANN001, ANN204
        CountingZones.reads += 1
        return super().__getitem__(i)


def test_a_part_repeated_in_one_expression_is_worked_out_once() -> None:
    scan = "[g_a for g_a in range(0, 6) if Z[g_a]]"
    renamed = "[g_b for g_b in range(0, 6) if Z[g_b]]"  # the same part, inlined with other names
    code = f"max({scan}, default=0) - min({scan}, default=0) + len({renamed})"
    new, boxes = share(code, iter(["b0", "b1"]).__next__)
    assert boxes == ["b0"] and new.count("shared(b0, ") == 3
    zones = CountingZones([[], [1], [], [2], [3], []])
    scope = {"Z": zones, "shared": ruleforge.runtime.shared}
    CountingZones.reads = 0
    assert eval(code, scope) == 4 - 1 + 3  # noqa: S307
    assert CountingZones.reads == 18
    CountingZones.reads = 0
    assert eval(new, {**scope, "b0": []}) == 4 - 1 + 3  # noqa: S307
    assert CountingZones.reads == 6


def test_copies_in_another_scope_and_generators_are_not_shared() -> None:
    # inside the generator over a_x, the copy reads that generator's a_x: another value
    code = "[len([g_t for g_t in Z[a_x] if g_t]) for a_x in range(2)] + [len([g_u for g_u in Z[a_x] if g_u])]"
    assert share(code, iter(["b0"]).__next__) == (code, [])
    # a generator is gone through once: two copies are two generators
    code = "max((g_c for g_c in Z[0] if g_c), default=0) + sum((g_d for g_d in Z[0] if g_d))"
    assert share(code, iter(["b0"]).__next__) == (code, [])
    # chance is never shared
    code = "rand_choice(st, [g_c for g_c in Z[0] if g_c]) + len([g_d for g_d in Z[0] if g_d])"
    assert share(code, iter(["b0"]).__next__) == (code, [])
    # names a generator binds that the compiler did not make fresh: not sure to be one value
    code = "len([c for c in Z[0] if c]) + len([c for c in Z[0] if c])"
    assert share(code, iter(["b0"]).__next__) == (code, [])
