"""The `ruleforge` command line: check, play, simulate, score and replay games.

Every command turns bad input into one clear `error: ...` line (or the rules file's
diagnostics) and a non-zero exit; a traceback only ever means a bug in ruleforge.
"""

from __future__ import annotations

import functools
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:  # rich is imported where it is used: `check` starts faster without it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

from . import __version__
from .agents import AgentAbort, make_agents
from .diagnostics import GameError, RulesError
from .engine import STATE_FORMAT, Game, player_name
from .position import POSITION_FORMAT
from .rules import Rules, load

LOG_FORMAT = "ruleforge-log/1"
DEFAULT_MAX_DECISIONS = 100_000


class CommandFailed(Exception):
    """A command ends with a message already worded for the user."""


# --- shared helpers ------------------------------------------------------------------


def fail(message: str) -> NoReturn:
    raise CommandFailed(message)


def guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every expected failure into `error: ...` on stderr and exit status 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RulesError as err:
            click.echo(err.render(), err=True)
        except (GameError, CommandFailed, AgentAbort) as err:
            click.echo(f"error: {err}", err=True)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:  # the reader went away (`| head`): stop quietly
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        except Exception as err:  # a bug in ruleforge: still no traceback unless asked for
            if os.environ.get("RULEFORGE_DEBUG"):
                raise
            click.echo(f"error: internal error: {type(err).__name__}: {err} "
                       f"(set RULEFORGE_DEBUG=1 to see the traceback)", err=True)
        raise click.exceptions.Exit(1)

    return wrapper


def load_rules(path: str) -> Rules:
    """Load a rules file; its diagnostics propagate as RulesError to be rendered."""
    return load(path)


def read_json(path: str, what: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        fail(f"cannot read {what} '{path}': {err.strerror or err}")
    except UnicodeDecodeError:
        fail(f"{what} '{path}' is not UTF-8 text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        fail(f"{what} '{path}' is not valid JSON: line {err.lineno} column {err.colno}: {err.msg}")


def write_json(path: str, data: Any, what: str) -> None:
    try:
        Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        fail(f"cannot write {what} '{path}': {err.strerror or err}")


def parse_options(rules: Rules, pairs: tuple[str, ...]) -> dict[str, Any]:
    """`name=value` pairs, converted by the option's declared type (int, flag or text)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            fail(f"option '{pair}' must look like name=value")
        decl = rules.model.options.get(name)
        if decl is None:
            known = ", ".join(rules.model.options) or "none"
            fail(f"unknown option '{name}' (options of {rules.title}: {known})")
        kind = decl.type.name
        raw = raw.strip()
        if kind == "int":
            try:
                options[name] = int(raw)
            except ValueError:
                fail(f"option '{name}' takes a whole number, not '{raw}'")
        elif kind == "flag":
            if raw.lower() not in ("true", "false", "yes", "no", "1", "0"):
                fail(f"option '{name}' takes true or false, not '{raw}'")
            options[name] = raw.lower() in ("true", "yes", "1")
        elif kind == "text":
            options[name] = raw
        else:
            fail(f"option '{name}' has type {kind}, which cannot be set from the command line")
    return options


def resolve_players(rules: Rules, players: int | None) -> int:
    return rules.player_range[0] if players is None else players


def decisions(game: Game) -> int:
    return sum(1 for entry in game.state.log if entry[0] == "act")


def out_console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def cell(value: Any, style: str = "") -> Text:
    """A table cell as plain text, so that '[' in a label is never read as markup."""
    from rich.text import Text

    return Text(str(value), style=style)


def score_table(game: Game, explain: bool = True) -> Table:
    """Rows: the scoring items, then the total. Columns: the players, the winners marked."""
    from rich.table import Table

    scores = game.scores()
    winners = set(game.winners())
    mark = "winner" if game.is_over else "leading"
    table = Table()
    table.add_column("" if explain else "player")
    if explain:
        for s in scores:
            p = s["player"]
            head = f"{player_name(p)} *" if p in winners else player_name(p)
            table.add_column(head, justify="right")
        items: list[str] = []
        for s in scores:
            items.extend(k for k in s["breakdown"] if k not in items)
        for item in items:
            table.add_row(cell(item), *(cell(s["breakdown"].get(item, 0)) for s in scores))
        other = [s["total"] - sum(s["breakdown"].values()) for s in scores]
        if any(other):
            table.add_row(cell("(not itemised)"), *(cell(x) for x in other))
        table.add_section()
        table.add_row(cell("total", "bold"), *(cell(s["total"], "bold") for s in scores))
        table.caption = f"* {mark}"
    else:
        table.add_column("total", justify="right")
        table.add_column("")
        for s in scores:
            p = s["player"]
            table.add_row(cell(player_name(p)), cell(s["total"]), cell(mark if p in winners else ""))
    return table


def winner_line(game: Game) -> str:
    winners = game.winners()
    names = ", ".join(player_name(p) for p in winners)
    total = game.scores()[winners[0]]["total"]
    if not game.is_over:
        return f"Leading: {names} ({total} points; the game is not over)"
    word = "Winner" if len(winners) == 1 else "Winners (shared)"
    return f"{word}: {names} ({total} points)"


# --- the commands ----------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ruleforge")
def main() -> None:
    """Write a tabletop game's rules as text; check, play, simulate, score and replay it."""


@main.command()
@click.argument("files", nargs=-1, required=True)
@guarded
def check(files: tuple[str, ...]) -> None:
    """Check rules files and report every problem with its line and column."""
    failed = 0
    for path in files:
        try:
            rules = load_rules(path)
            rules.check_player_counts()  # setup-time values are only known per player count
        except RulesError as err:
            click.echo(err.render(), err=True)
            failed += 1
            continue
        lo, hi = rules.player_range
        span = f"{lo}" if lo == hi else f"{lo}-{hi}"
        opts = f", options: {', '.join(rules.model.options)}" if rules.model.options else ""
        click.echo(f"{path}: ok ({span} players, {rules.title}{opts})")
    if failed:
        click.echo(f"{failed} of {len(files)} file(s) have errors", err=True)
        raise click.exceptions.Exit(1)


def _game_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags that say which game to start: players, seed, agents, options."""
    func = click.option("-o", "--option", "option", multiple=True, metavar="NAME=VALUE",
                        help="Set a game option (repeatable).")(func)
    func = click.option("--agents", default="random", show_default=True,
                        help="Agents: one name for all seats, or one per seat (random, greedy, human).")(func)
    func = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the (first) game.")(func)
    func = click.option("--players", "-p", type=int, default=None,
                        help="Number of players [default: the fewest the game allows].")(func)
    return func


@main.command()
@click.argument("file")
@_game_options
@click.option("--log", "log_path", metavar="LOG.json", help="Write a replay log of the game.")
@click.option("--save", "save_path", metavar="STATE.json", help="Save the final state (for `ruleforge score`).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final scores.")
@click.option("--max-decisions", type=click.IntRange(min=1), default=DEFAULT_MAX_DECISIONS, show_default=True,
              help="Give up on a game that has not ended after this many decisions.")
@guarded
def play(file: str, players: int | None, seed: int, agents: str, option: tuple[str, ...],
         log_path: str | None, save_path: str | None, quiet: bool, max_decisions: int) -> None:
    """Play one game, printing what happens; human seats see only their own view."""
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    game = rules.new_game(n, seed, options)
    seats = make_agents(agents, n, seed, input_fn=_prompt, output_fn=click.echo)
    steps: list[dict[str, str]] = []
    shown = 0
    # With a person at the table, the log is printed as that person may read it.
    humans = [p for p, agent in enumerate(seats) if getattr(agent, "name", "") == "human"]
    viewer = humans[0] if humans else None

    def show_log() -> None:
        nonlocal shown
        lines = game.log_lines(shown, viewer=viewer)
        shown = len(game.state.log)
        if not quiet:
            for line in lines:
                click.echo(line)

    def write_log() -> None:
        if log_path:
            write_json(log_path, {
                "format": LOG_FORMAT, "rules": file, "rules_digest": rules.digest, "players": n, "seed": seed,
                "options": options, "steps": steps, "final_digest": game.digest(),
            }, "log")

    try:
        while not game.is_over:
            show_log()
            if len(steps) >= max_decisions:
                fail(f"the game has not ended after {max_decisions} decisions (see --max-decisions)")
            me = game.current_player
            assert me is not None
            action = seats[me].choose(game)
            label = game.legal_labels()[game.legal_actions().index(action)]
            game.apply(action)
            steps.append({"player": player_name(me), "action": label, "digest": game.digest()})
        show_log()
    except AgentAbort as err:
        write_log()
        fail(f"{err} after {len(steps)} decisions")
    write_log()
    if save_path:
        write_json(save_path, game.to_json(), "state")
    click.echo(f"{rules.title}: final scores after {len(steps)} decisions")
    out_console().print(score_table(game))
    click.echo(winner_line(game))


def _prompt(text: str) -> str:
    """Read one answer; end of input raises EOFError, which the human agent turns into an abort."""
    click.echo(text, nl=False)
    line = sys.stdin.readline()
    if not line:
        click.echo()
        raise EOFError
    return line


@main.command()
@click.argument("file")
@click.option("-n", "--games", "games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="How many games; game i uses seed SEED+i.")
@_game_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@click.option("--max-decisions", type=click.IntRange(min=1), default=DEFAULT_MAX_DECISIONS, show_default=True,
              help="Give up on a game that has not ended after this many decisions.")
@guarded
def simulate(file: str, games: int, players: int | None, seed: int, agents: str, option: tuple[str, ...],
             as_json: bool, max_decisions: int) -> None:
    """Play many games between automatic agents and summarise who wins and by how much."""
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    rules.program(n, options)  # a bad player count or option fails before any game starts
    names = [a.strip().lower() for a in agents.split(",")]
    make_agents(agents, n, seed)  # validates names and count
    if "human" in names:
        fail("simulate plays automatic agents only; use `ruleforge play` for a human seat")
    if len(names) == 1:
        names = names * n
    wins = [0.0] * n
    totals: list[list[int]] = [[] for _ in range(n)]
    lengths: list[int] = []
    err = err_console()
    start = time.perf_counter()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("games", total=games)
        for i in range(games):
            game_seed = seed + i
            game = rules.new_game(n, game_seed, options)
            seats = make_agents(agents, n, game_seed)
            count = 0
            try:
                while not game.is_over:
                    if count >= max_decisions:
                        fail(f"game {i + 1} (seed {game_seed}) has not ended after {max_decisions} decisions")
                    game.apply(seats[game.current_player].choose(game))  # type: ignore[index]
                    count += 1
            except GameError as e:
                fail(f"game {i + 1} (seed {game_seed}): {e}")
            winners = game.winners()
            for p in winners:
                wins[p] += 1 / len(winners)
            for s in game.scores():
                totals[s["player"]].append(s["total"])
            lengths.append(decisions(game))
            progress.advance(task)
    elapsed = time.perf_counter() - start
    summary = {
        "rules": file, "game": rules.title, "players": n, "options": options, "seed": seed, "games": games,
        "seats": [{
            "seat": player_name(p), "agent": names[p], "wins": round(wins[p], 6),
            "win_rate": wins[p] / games, "mean_total": statistics.fmean(totals[p]),
            "sd_total": statistics.stdev(totals[p]) if games > 1 else 0.0,
        } for p in range(n)],
        "length": {"mean": statistics.fmean(lengths), "min": min(lengths), "max": max(lengths)},
        "seconds": elapsed, "games_per_second": games / elapsed if elapsed > 0 else math.inf,
    }
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    from rich.table import Table

    table = Table()
    for head in ("seat", "agent", "win rate", "mean total", "sd"):
        table.add_column(head, justify="left" if head in ("seat", "agent") else "right")
    for s in summary["seats"]:
        table.add_row(cell(s["seat"]), cell(s["agent"]), cell(f"{s['win_rate']:.1%}"),
                      cell(f"{s['mean_total']:.2f}"), cell(f"{s['sd_total']:.2f}"))
    click.echo(f"{rules.title}: {games} games, {n} players, seeds {seed}..{seed + games - 1}")
    out_console().print(table)
    ln = summary["length"]
    click.echo(f"games: {games}   decisions per game: mean {ln['mean']:.1f}, min {ln['min']}, max {ln['max']}")
    click.echo(f"time: {elapsed:.2f} s   ({summary['games_per_second']:.1f} games/s)")


@main.command()
@click.argument("file")
@click.argument("state_file", metavar="STATE.json")
@click.option("--explain", is_flag=True, help="Show every scoring item's points for every player.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the scores as JSON, every item's points included.")
@guarded
def score(file: str, state_file: str, explain: bool, as_json: bool) -> None:
    """Score a saved game state or a hand-written position: totals, or every item with --explain.

    A position (docs/positions.md) is scored by every scoring declared `final`, as it
    would be scored now, without playing on.
    """
    rules = load_rules(file)
    data = read_json(state_file, "state file")
    if isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        _score_position(rules, data, explain, as_json)
        return
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        fail(f"'{state_file}' is not a saved ruleforge state nor a position "
             f"(expected \"format\": \"{STATE_FORMAT}\" or \"{POSITION_FORMAT}\")")
    if isinstance(data, dict) and isinstance(data.get("game"), str) and data["game"] != rules.title:
        fail(f"'{state_file}' is a saved {data['game']} game, but '{file}' is the rules of {rules.title}")
    game = rules.load_game(data)
    if as_json:
        winners = set(game.winners())
        rows = []
        for s in game.scores():
            rows.append({"player": player_name(s["player"]), "total": s["total"],
                         "winner": s["player"] in winners, "breakdown": s["breakdown"]})
        click.echo(json.dumps({"game": rules.title, "over": game.is_over, "scores": rows}, indent=2))
        return
    state = "final scores" if game.is_over else "scores so far (the game is not over)"
    click.echo(f"{rules.title}: {state}")
    out_console().print(score_table(game, explain=explain))
    click.echo(winner_line(game))


def position_scores(rules: Rules, data: dict[str, Any]) -> tuple[list[str], list[dict[str, int]]]:
    """The final scorings' names, and per player each item's points plus "total".

    With several final scorings an item's label is prefixed by its scoring's name; the
    total is the sum of every final scoring's total.
    """
    game = rules.position(data)
    names = [name for name, decl in game.program.model.scorings.items() if decl.final]
    if not names:
        fail(f"{rules.title} declares no final scoring, so a position cannot be scored")
    rows: list[dict[str, int]] = [{} for _ in range(game.players)]
    totals = [0] * game.players
    for name in names:
        for p, preview in enumerate(game.preview_scoring(name)):
            for item, points in preview.items():
                if item == "total":
                    totals[p] += points
                else:
                    rows[p][item if len(names) == 1 else f"{name}: {item}"] = points
    for p, row in enumerate(rows):
        row["total"] = totals[p]
    return names, rows


def _score_position(rules: Rules, data: dict[str, Any], explain: bool, as_json: bool) -> None:
    names, rows = position_scores(rules, data)
    best = max(row["total"] for row in rows)
    leaders = [p for p, row in enumerate(rows) if row["total"] == best]
    if as_json:
        out = []
        for p, row in enumerate(rows):
            out.append({"player": player_name(p), "total": row["total"], "highest": p in leaders,
                        "breakdown": {k: v for k, v in row.items() if k != "total"}})
        click.echo(json.dumps({"game": rules.title, "position": True, "scorings": names, "scores": out}, indent=2))
        return
    from rich.table import Table

    table = Table()
    if explain:
        table.add_column("")
        for p in range(len(rows)):
            table.add_column(f"{player_name(p)} *" if p in leaders else player_name(p), justify="right")
        for item in [k for k in rows[0] if k != "total"]:
            table.add_row(cell(item), *(cell(row[item]) for row in rows))
        table.add_section()
        table.add_row(cell("total", "bold"), *(cell(row["total"], "bold") for row in rows))
        table.caption = "* highest total"
    else:
        table.add_column("player")
        table.add_column("total", justify="right")
        table.add_column("")
        for p, row in enumerate(rows):
            table.add_row(cell(player_name(p)), cell(row["total"]), cell("highest" if p in leaders else ""))
    click.echo(f"{rules.title}: a position scored by {', '.join(names)} (as if the game ended now)")
    out_console().print(table)
    who = ", ".join(player_name(p) for p in leaders)
    click.echo(f"Highest total: {who} ({best} points)" if len(leaders) == 1
               else f"Tied on total: {who} ({best} points; the tie-break is not applied to positions)")


def _check_log(data: Any) -> dict[str, Any]:
    """Validate a replay log's shape so that a malformed log is one clear message."""
    if not isinstance(data, dict) or data.get("format") != LOG_FORMAT:
        fail(f"not a ruleforge replay log (expected \"format\": \"{LOG_FORMAT}\")")
    for key, kind in (("rules", str), ("players", int), ("seed", int), ("steps", list)):
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            fail(f"replay log: '{key}' is missing or not a {kind.__name__}")
    if not isinstance(data.get("options", {}), dict):
        fail("replay log: 'options' must be an object")
    for k, step in enumerate(data["steps"], 1):
        if not isinstance(step, dict) or not all(isinstance(step.get(f), str) for f in ("player", "action")):
            fail(f"replay log: step {k} must have text fields 'player' and 'action'")
    return data


def _resolve_rules_path(log_path: str, rules: str) -> str:
    """A relative rules path is looked up beside the log first, then in the working directory."""
    p = Path(rules)
    if not p.is_absolute():
        beside = Path(log_path).parent / p
        if beside.is_file():
            return str(beside)
    return rules


@main.command()
@click.argument("log_file", metavar="LOG.json")
@click.option("--verbose", "-v", is_flag=True, help="Print the game's log while replaying.")
@guarded
def replay(log_file: str, verbose: bool) -> None:
    """Replay a log written by `play --log` and check that every step gives the same state."""
    data = _check_log(read_json(log_file, "replay log"))
    rules = load_rules(_resolve_rules_path(log_file, data["rules"]))
    if data.get("rules_digest") not in (None, rules.digest):
        click.echo(f"warning: '{data['rules']}' has changed since the log was written "
                   f"(digest {rules.digest}, log has {data['rules_digest']})", err=True)
    game = rules.new_game(data["players"], data["seed"], data.get("options") or None)
    steps = data["steps"]
    shown = 0
    for k, step in enumerate(steps, 1):
        if verbose:
            for line in game.log_lines(shown):
                click.echo(line)
            shown = len(game.state.log)
        where = f"step {k} of {len(steps)}"
        if game.is_over:
            fail(f"{where}: the game is already over, but the log has {len(steps) - k + 1} more step(s)")
        actual = player_name(game.current_player)
        if step["player"] != actual:
            fail(f"{where}: the log has {step['player']} act, but {actual} is to act")
        labels = game.legal_labels()
        if step["action"] not in labels:
            fail(f"{where}: {actual} '{step['action']}' is not legal; legal: {', '.join(labels)}")
        game.apply(step["action"])
        digest = step.get("digest")
        if digest is not None and digest != game.digest():
            fail(f"{where}: after {actual} '{step['action']}' the state differs "
                 f"(digest {game.digest()}, log has {digest})")
    if verbose:
        for line in game.log_lines(shown):
            click.echo(line)
    final = data.get("final_digest")
    if final is not None and final != game.digest():
        fail(f"after the last step the final state differs (digest {game.digest()}, log has {final})")
    note = "" if game.is_over else " (the log stops before the end of the game)"
    click.echo(f"replayed {len(steps)} steps: identical{note}")
