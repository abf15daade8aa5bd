"""The fuzz worker: runs one input at a time in a process of its own, and judges the answer.

Started by `tests/fuzz/pool.py` as `python worker.py MEMORY_BYTES` with the checkout on
PYTHONPATH and the checkout as its working directory. Its address space is capped with
`resource.setrlimit(RLIMIT_AS)`, so an input that needs unbounded memory fails here (a
MemoryError, or the process dies) instead of taking the machine down; the pool restarts a
worker that dies or overruns its time.

Protocol: one JSON job per line on stdin, `{"kind": "rules" | "state" | "position" | "log",
"path": FILE, "game": GAME}` (GAME is the stem of a file in games/, for the JSON kinds); one
JSON verdict per line on stdout, `{"verdict": "ok" | "clear" | "failure", "key": ..., "detail":
...}`. "clear" is a refusal ruleforge worded for the user; "failure" carries a `key` that
groups failures of one cause (an exception type and the ruleforge function it came from).
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main as cli_main

# the native engine's modules of fuzzed files go to a cache of the fuzzer's own, not the user's
os.environ.setdefault("RULEFORGE_CACHE", str(Path(tempfile.gettempdir()) / f"ruleforge-fuzz-cache-{os.getuid()}"))
from ruleforge.diagnostics import GameError, RulesError

FORBIDDEN = ("internal error", "Traceback", "RecursionError")
GAME_STEPS = 60  # decisions of each short random game
_RULES: dict[str, ruleforge.Rules] = {}


class Failure(Exception):
    """An answer that is not a clear one; `key` groups failures with one cause."""

    def __init__(self, key: str, detail: str):
        super().__init__(detail)
        self.key = key
        self.detail = detail


def where_raised(err: BaseException) -> str:
    """The innermost ruleforge function on the traceback (or the innermost frame at all)."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "/ruleforge/" in f.filename and "/tests/" not in f.filename]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return "?"
    return f"{Path(frame.filename).name}:{frame.name}"


def judge_message(text: str, what: str) -> None:
    for word in FORBIDDEN:
        if word in text:
            raise Failure(f"{what} says {word!r}", text[-2000:])


def judge_rules_error(err: RulesError) -> None:
    """Every diagnostic names a file and a line (line 0 only for a file as a whole)."""
    for d in err.diagnostics:
        whole_file = d.pos.line == 0 and "file" in d.message.lower()
        if not d.pos.file or (d.pos.line <= 0 and not whole_file):
            raise Failure("RulesError without a line", f"{d.pos}: {d.message}")
    judge_message(str(err), "RulesError")


def random_game(game: ruleforge.Game, seed: int, steps: int = GAME_STEPS) -> None:
    """Play on with random choices, reading everything a user can read on the way."""
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.legal_labels()
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    for p in [None, *range(game.players)]:
        game.view(p)
        game.log_lines(viewer=p)
    game.scores()
    game.winners()
    json.dumps(game.to_json())
    game.digest()


def run_rules(job: dict[str, Any]) -> None:
    """What `ruleforge check` does, then a short random game for every player count, and the
    native engine's games beside the reference engine's at the fewest players."""
    rules = ruleforge.load(job["path"])
    rules.check_player_counts()
    lo, hi = rules.player_range
    for n in range(lo, min(hi, lo + 5) + 1):
        try:
            random_game(rules.new_game(n, seed=n), seed=n)
        except GameError as err:
            judge_message(str(err), "GameError")
    native_check(rules, lo)


NATIVE_SEEDS = 2  # seeded games compared on both engines per fuzzed file


def native_check(rules: ruleforge.Rules, players: int) -> None:
    """A fuzzed file is refused by the native engine's gate, in words, or plays on it exactly
    as on the reference engine (ruleforge/testing/native_backend.py); a module that does not
    build is the lowering's fault, never the file's."""
    from ruleforge.native.engine import NativeRefused, native_engine
    from ruleforge.testing.backends import BackendsDiffer
    from ruleforge.testing.native_backend import compare_native

    program = rules.program(players)
    try:
        native_engine(program)
    except NativeRefused as err:
        if "building it failed" in str(err) or "could not be imported" in str(err):
            raise Failure("the native engine's C does not build", str(err)) from None
        judge_message(str(err), "NativeRefused")
        return
    for seed in range(NATIVE_SEEDS):
        try:
            compare_native(program, seed, random.Random(seed))
        except BackendsDiffer as err:
            raise Failure("the native engine plays differently", str(err)) from None
        except GameError as err:  # raised alike by both engines
            judge_message(str(err), "GameError")


def rules_of(game: str) -> ruleforge.Rules:
    if game not in _RULES:
        _RULES[game] = ruleforge.load(f"games/{game}.rules")
    return _RULES[game]


def run_cli(*args: str) -> None:
    """The command's answer: exit 0, or 1 with one clear `error:` line; never a traceback."""
    result = CliRunner().invoke(cli_main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # with RULEFORGE_DEBUG set, the command's internal errors come here
    judge_message(result.output, f"ruleforge {args[0]}")
    if result.exit_code not in (0, 1):
        raise Failure(f"ruleforge {args[0]} exits {result.exit_code}", result.output[-2000:])
    if result.exit_code == 1 and "error:" not in result.output:
        raise Failure(f"ruleforge {args[0]} fails without an error line", result.output[-2000:])


def read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None  # not JSON, or nested too deep to read: only the command line reads it (and says so)


def run_state(job: dict[str, Any]) -> None:
    run_cli("score", f"games/{job['game']}.rules", job["path"], "--explain")
    data = read_json(job["path"])
    try:
        game = rules_of(job["game"]).load_game(data)
        random_game(game, seed=1)
    except GameError as err:
        judge_message(str(err), "GameError")


def run_position(job: dict[str, Any]) -> None:
    run_cli("score", f"games/{job['game']}.rules", job["path"], "--explain")
    data = read_json(job["path"])
    try:
        game = rules_of(job["game"]).position(data)
        for name, decl in game.program.model.scorings.items():
            if decl.final:
                game.preview_scoring(name)
        for p in [None, *range(game.players)]:
            game.view(p)
    except GameError as err:
        judge_message(str(err), "GameError")


def run_log(job: dict[str, Any]) -> None:
    run_cli("replay", job["path"])


def run_harness_check(job: dict[str, Any]) -> None:
    """Misbehave on purpose (tests/fuzz/test_pool.py): hang, die, or use memory without end."""
    how = job["path"]
    if how == "hang":
        while True:
            pass
    if how == "die":
        os._exit(3)
    if how == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(1 << 26))


RUNNERS = {"rules": run_rules, "state": run_state, "position": run_position, "log": run_log,
           "harness-check": run_harness_check}


def verdict(job: dict[str, Any]) -> dict[str, str]:
    try:
        RUNNERS[job["kind"]](job)
    except Failure as f:
        return {"verdict": "failure", "key": f.key, "detail": f.detail}
    except RulesError as err:
        try:
            judge_rules_error(err)
        except Failure as f:
            return {"verdict": "failure", "key": f.key, "detail": f.detail}
        return {"verdict": "clear", "detail": str(err)[:500]}
    except GameError as err:
        try:
            judge_message(str(err), "GameError")
        except Failure as f:
            return {"verdict": "failure", "key": f.key, "detail": f.detail}
        return {"verdict": "clear", "detail": str(err)[:500]}
    except BaseException as err:  # noqa: B036 - anything else is what the fuzzer looks for
        if isinstance(err, KeyboardInterrupt):
            raise
        detail = "".join(traceback.format_exception(err))[-3000:]
        return {"verdict": "failure", "key": f"{type(err).__name__} in {where_raised(err)}", "detail": detail}
    return {"verdict": "ok", "detail": ""}


def cache_rules_for_commands() -> None:
    """Commands load the same unchanged games again and again here: load each once.

    Only the documents are fuzzed through the command line (rules files go through the API),
    and loading and compiling a game would be most of each input's time."""
    from ruleforge.cli import common

    loaded: dict[tuple[str, float], ruleforge.Rules] = {}
    load = common.load  # every command loads its rules through common.load_rules, which calls this

    def load_rules(path: str) -> ruleforge.Rules:
        try:
            key = (str(Path(path).resolve()), Path(path).stat().st_mtime)
        except OSError:
            return load(path)
        if key not in loaded:
            loaded[key] = load(path)
        return loaded[key]

    common.load = load_rules


def main() -> None:
    os.environ["RULEFORGE_DEBUG"] = "1"  # an internal error of a command raises: its traceback names the cause
    cache_rules_for_commands()
    memory = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    for line in sys.stdin:
        answer = verdict(json.loads(line))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
