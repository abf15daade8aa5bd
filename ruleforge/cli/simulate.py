"""`ruleforge simulate`: many games between automatic agents, summarised. A game that fails
is reported and the batch goes on; Ctrl-C summarises the games finished so far."""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import click

from .. import chance, limits
from ..agents import agent_names
from ..balance import runner
from ..balance.records import trigger_names
from ..balance.stats import Tally
from ..declared import offered_actions
from ..engine import Game
from ..rules import Rules
from .common import (
    EXIT_INTERRUPTED,
    AtomicFile,
    cell,
    echo,
    fail,
    game_limits,
    game_options,
    guarded,
    limit_options,
    load_rules,
    out_console,
    parse_options,
    resolve_players,
    write_atomic,
)
from .outputs import check_outputs
from .progress import ProgressBar


def play_one(rules: Rules, players: int, seed: int, options: dict[str, Any], agents: str) -> Game:
    """One game to its end; GameError if it fails or passes the decisions limit."""
    return runner.play_game(runner.setup_of(rules, players, options, agents), seed)[0]


@attrs.define
class Played:
    """A batch played: its statistics, gathered as the games ended (never the records: a batch
    of a million games takes no more memory than one of a thousand), and the games that failed."""

    tally: Tally
    failed: list[dict[str, Any]] = attrs.Factory(list)
    completed: bool = True
    seconds: float = 0.0


def run_batch(batch: runner.Batch, seed: int, games: int, jobs: int, side: str = "", ray: str | None = None,
              keep: Callable[[dict[str, Any]], None] | None = None) -> Played:
    """Play the games, a progress bar on a terminal, each failure printed as it comes (named
    with its `side` of a comparison); Ctrl-C stops them and keeps what was finished. Each
    record is counted, handed to `keep` (in seed order) and let go."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

    counting = native_counting_for(batch, seed, games, jobs, ray, keep)  # built (or imported) before the clock
    out = Played(Tally(batch.players))
    start = time.perf_counter()
    title = f"playing {side}" if side else "simulating"
    with ProgressBar([TextColumn(title), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()], games) as bar:

        def failed(data: dict[str, Any]) -> None:
            out.failed.append(data)
            where = f"{side}, game" if side else "game"
            bar.print(cell(f"error: {where} {data['game']} (seed {data['seed']}): {data['error']}"))

        try:
            if counting is not None:
                from ..native.simulate import play_natively

                play_natively(counting, runner.setup_for(batch), out.tally, seed, games, failed, bar.advance)
                out.seconds = time.perf_counter() - start
                return out
            with contextlib.closing(runner.outcomes(batch, seed, games, jobs, ray)) as played:
                for kind, data in played:
                    if kind == "record":
                        out.tally.add(data)
                        if keep is not None:
                            keep(data)
                    else:
                        failed(data)
                    bar.advance()
        except KeyboardInterrupt:
            out.completed = False
    out.seconds = time.perf_counter() - start
    return out


_SAID: set[str] = set()  # the notes said once per process


def native_counting_for(batch: runner.Batch, seed: int, games: int, jobs: int, ray: str | None,
                        keep: Callable[[dict[str, Any]], None] | None) -> Any:
    """What counting the batch's games natively needs, when `--engine` asks for it and they can
    be (random agents, one process, no records); else None, said once on stderr."""
    if batch.engine == "reference":
        return None
    from ..native.engine import NativeRefused
    from ..native.simulate import native_counting

    why = None
    if any(name != "random" for name in batch.agents.split(",")):
        searching = _building(batch, lambda: runner.setup_for(batch).searching)
        if searching:
            seats = ", ".join(f"P{seat + 1}" for seat in searching)
            note = (f"note: the search of {seats} runs in C on the native engine; the games are recorded on the "
                    "reference engine")
            if note not in _SAID:  # compare plays two batches
                _SAID.add(note)
                echo(note, err=True)
            return None
        why = "it plays random agents only"
    elif jobs > 1 or ray is not None:
        why = "it plays in one process (without --jobs and --ray)"
    elif keep is not None:
        why = "it keeps no per-game records (without --records)"
    elif not 0 <= seed < seed + games < 1 << 63:
        why = "its seeds are whole numbers from 0 to 2**63"
    else:
        try:
            return _building(batch, lambda: native_counting(runner.setup_for(batch).program))
        except NativeRefused as err:
            why = str(err)
    echo(f"note: the native engine counts no games here ({why}): playing on the reference engine", err=True)
    return None


def _building(batch: runner.Batch, make: Callable[[], Any]) -> Any:
    """What `make` gives, a note on stderr should it build a native module first (a first build
    takes seconds, which should not look like a hang)."""
    from ..native import build

    def building() -> None:
        echo(f"note: building the native engine for {batch.players} players (once: later runs import it)", err=True)

    build.on_build = building
    try:
        return make()
    finally:
        build.on_build = None


def prepare(rules: Rules, file: str, players: int | None, options: dict[str, Any], agents: str | None,
            max_decisions: int | None, max_skips: int | None, command: str = "simulate",
            engine: str = "reference") -> tuple[runner.Batch, list[str]]:
    """The batch to play and each seat's agent; a bad player count, option or agent fails now."""
    n = resolve_players(rules, players)
    rules.program(n, options)  # a bad player count or option fails before any game starts
    names = agent_names(agents or "random", n)
    if "human" in names:
        fail(f"{command} plays automatic agents only; use `ruleforge play` for a human seat")
    with game_limits(max_decisions, max_skips):
        in_force = {"decisions_per_game": limits.LIMITS.decisions_per_game,
                    "skips_in_a_row": limits.LIMITS.skips_in_a_row}
    runner.remember(file, rules)
    return runner.Batch(file, n, options, ",".join(names), in_force, engine=engine), names


def summary_of(rules: Rules, batch: runner.Batch, names: list[str], played: Played, seed: int, games: int,
               jobs: int) -> dict[str, Any]:
    """The Summary of a batch played (the declared actions and items listed even if unused;
    `pass` only when some decision offers it)."""
    program = rules.program(batch.players, batch.options)
    head = {"rules": batch.path, "game": rules.title, "players": batch.players, "options": batch.options,
            "seed": seed, "generator": chance.GENERATOR, "requested": games, "interrupted": not played.completed,
            "failed": played.failed, "seconds": played.seconds, "jobs": jobs}
    actions = offered_actions(program.model, list(dict.fromkeys(info.name for info in program.actions)))
    items = list(dict.fromkeys(label for _, label in program.items))
    return played.tally.summary(head, names, actions, items, trigger_names(rules.model))


def record_line(record: dict[str, Any]) -> str:
    """A game's line of `--records FILE` (in seed order: `pandas.read_json(path, lines=True)` reads it)."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def records_file(path: str | None) -> contextlib.AbstractContextManager[AtomicFile | None]:
    """The records file, written a line per game as games end and renamed into place at the end
    of the `with` (removed if anything fails or Ctrl-C stops more than the batch)."""
    return contextlib.nullcontext() if path is None else AtomicFile(path, "records file")


def number(value: float | None, form: str) -> str:
    return "-" if value is None else format(value, form)


def span(pair: list[float] | None, form: str) -> str:
    return "-" if pair is None else f"{format(pair[0], form)} to {format(pair[1], form)}"


def print_table(summary: dict[str, Any]) -> None:
    """The summary for people: seats, then the game's shape, then what the rules never used."""
    from rich.table import Table

    table = Table()
    for head in ("seat", "agent", "win rate", "95% interval", "tied", "mean total", "sd", "median"):
        table.add_column(head, justify="left" if head in ("seat", "agent") else "right", no_wrap=True)
    for s in summary["seats"]:
        interval = s["win_interval"]
        shown = "-" if interval is None else f"{interval[0] * 100:.1f}-{interval[1] * 100:.1f}%"
        table.add_row(cell(s["seat"]), cell(s["agent"]), cell(number(s["win_rate"], ".1%")), cell(shown),
                      cell(number(s["tie_rate"], ".1%")), cell(number(s["mean_total"], ".2f")),
                      cell(number(s["sd_total"], ".2f")), cell(number((s["quantiles"] or {}).get("median"), "g")))
    done, asked, first = summary["games"], summary["requested"], summary["seed"]
    count = f"{done} games" if done == asked else f"{done} of {asked} games"
    if summary["interrupted"]:
        count += " (interrupted)"
    last = first + done + len(summary["failed"]) - 1  # the games played, finished or failed
    seeds = f", seeds {first}..{last}" if last >= first else ""
    echo(f"{summary['game']}: {count}, {summary['players']} players{seeds}")
    out_console().print(table)
    if done:
        print_shape(summary)
        print_items(summary)
        print_actions(summary)
    if summary["failed"]:
        seeds = ", ".join(str(f["seed"]) for f in summary["failed"])
        echo(f"failed: {len(summary['failed'])} games (seeds {seeds})")
    jobs = f", {summary['jobs']} processes" if summary["jobs"] > 1 else ""
    echo(f"time: {summary['seconds']:.2f} s   ({summary['games_per_second']:.1f} games/s{jobs})")


def print_shape(summary: dict[str, Any]) -> None:
    """Outcomes, margin, first player, length and branching, a line each."""
    done, ln, br = summary["games"], summary["length"], summary["branching"]
    out, margin, fp = summary["outcomes"], summary["margin"], summary["first_player"]
    echo(f"outcomes: {out['decisive']:.1%} one winner, {out['ties']:.1%} tied for first")
    if margin["mean"] is not None:
        echo(f"margin of victory: mean {margin['mean']:.2f} (95% {span(margin['interval'], '.2f')}), "
             f"median {margin['quantiles']['median']:g}, max {margin['quantiles']['max']:g}")
    seats = [seat for seat, n in fp["seat counts"].items() if n]
    who = f"{seats[0]} in every game" if len(seats) == 1 else "seat varies"
    if fp["win_rate"] is not None:
        echo(f"first player ({who}): wins {fp['win_rate']:.1%} (95% {span(fp['interval'], '.1%')}), "
             f"fair {fp['fair']:.1%}, advantage {fp['advantage'] * 100:+.1f} percentage points")
    echo(f"games: {done}   decisions per game: mean {ln['mean']:.1f}, min {ln['min']}, max {ln['max']}")
    turns = ln["turns"]
    echo(f"turns per game: mean {turns['mean']:.1f}, min {turns['min']}, max {turns['max']}   "
         f"legal actions per decision: mean {number(br['mean'], '.1f')}, max {br['max']}")
    for name, m in summary["measures"].items():
        echo(f"{name} (measure): mean {number(m['mean'], '.2f')} (95% {span(m['interval'], '.2f')}), "
             f"min {m['min']}, median {m['quantiles']['median']:g}, max {m['max']}")


def print_items(summary: dict[str, Any]) -> None:
    """Each scoring item's mean per seat (a game without items prints nothing)."""
    from rich.table import Table

    seats = summary["seats"]
    if not seats or not seats[0]["items"]:
        return
    table = Table()
    table.add_column("scoring item: mean points")
    for s in seats:
        table.add_column(s["seat"], justify="right")
    for item in seats[0]["items"]:
        table.add_row(cell(item), *(cell(number(s["items"][item]["mean"], ".2f")) for s in seats))
    out_console().print(table)


def print_actions(summary: dict[str, Any]) -> None:
    """How often each action is legal and taken, and the rules no game exercised."""
    from rich.table import Table

    table = Table()
    for head in ("action", "taken", "share of decisions", "legal at (share of decisions)"):
        table.add_column(head, justify="left" if head == "action" else "right")
    for name, a in summary["actions"].items():
        table.add_row(cell(name), cell(a["taken"]), cell(number(a["share"], ".1%")),
                      cell(number(a["legal_share"], ".1%")))
    out_console().print(table)
    never = summary["unexercised"]
    for key, words in (("actions_never_legal", "actions never legal"), ("actions_never_taken", "actions never taken"),
                       ("items_always_zero", "scoring items always 0"),
                       ("triggers_never_fired", "triggers never fired")):
        if never.get(key):
            echo(f"{words}: {', '.join(never[key])}")


def compiled_option(func: Any) -> Any:
    """`--compiled`, kept so that commands written for the retired build still run: an alias of
    `--engine auto` (`engine_of`), hidden from --help."""
    return click.option("--compiled", is_flag=True, hidden=True, help="An alias of --engine auto.")(func)


def engine_of(engine: str, compiled: bool) -> str:
    """The engine asked for: `--compiled` means `--engine auto` unless --engine names another."""
    return "auto" if compiled and engine == "reference" else engine


def engine_option(func: Any) -> Any:
    """`--engine`: which engine plays (docs/native.md)."""
    return click.option("--engine", type=click.Choice(["reference", "native", "auto"]), default="reference",
                        show_default=True,
                        help="native or auto: random games played and counted whole in C where the rules lower "
                             "and a C compiler builds them (docs/native.md); else, said once, the reference "
                             "engine.")(func)


def spread_options(func: Any) -> Any:
    """Where the games are played (`--jobs`, `--ray`) and the report: simulate's and compare's."""
    func = click.option("--report", default=None, metavar="FILE.html",
                        help="Also write a report with plots: one HTML file, needing no network.")(func)
    func = click.option("--ray", default=None, is_flag=False, flag_value="", metavar="[ADDRESS]",
                        help="Play on a Ray cluster (its address; alone: a Ray instance on this machine). "
                             "The results are the same as in one process. Needs ruleforge[ray].")(func)
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
                        help="Play in N processes; the results are the same as in one.")(func)


def usable_jobs(jobs: int) -> int:
    """At most one process per core: more play no faster, each costs memory, and a slip of the
    keyboard (`--jobs 1000`) would start a thousand. Said on stderr when it happens."""
    cores = runner.cores()
    if jobs <= cores:
        return jobs
    echo(f"note: --jobs {jobs:,} is more than the {cores} core(s) this process may use: "
         f"using {cores} process(es)", err=True)
    return cores


def start_report(path: str | None) -> None:
    """A report that cannot be written fails before any game is played."""
    if path is None:
        return
    from ..balance.plots import figure_class

    figure_class()  # matplotlib is an optional extra: say so before playing


def rules_read(*rules: Rules) -> list[tuple[Path, str]]:
    """The files behind `rules` (each file and the files it extends): no output may replace one."""
    return [(path, "rules file") for r in rules for path in r.files]


def write_report(path: str, summaries: list[dict[str, Any]], comparison: dict[str, Any] | None = None,
                 skill: dict[str, Any] | None = None) -> None:
    """Written whole or not at all: Ctrl-C or a full disk leaves the earlier report as it was."""
    from ..balance.report import render_report

    write_atomic(path, render_report(summaries, comparison, skill), "report")
    echo(f"report: {path}", err=True)


@click.command()
@click.argument("file")
@click.option("-n", "--games", "games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="How many games; game i uses seed SEED+i.")
@game_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@click.option("--records", "records_path", default=None, metavar="FILE",
              help="Write one JSON line per finished game (seed, scores, breakdowns, winners, length).")
@spread_options
@compiled_option
@engine_option
@click.option("--skill", "skill", default=None, metavar="N,N,...",
              help="Also measure a skill trace: the search agent mcts:N against random, for each budget N.")
@click.option("--skill-games", type=click.IntRange(min=1), default=40, show_default=True, metavar="N",
              help="Games per budget of the skill trace.")
@limit_options
@guarded
def simulate(file: str, games: int, players: int | None, seed: int | None, agents: str | None,
             option: tuple[str, ...], as_json: bool, records_path: str | None, jobs: int, ray: str | None,
             report: str | None, compiled: bool, engine: str, skill: str | None, skill_games: int,
             max_decisions: int | None, max_skips: int | None) -> None:
    """Play many games between automatic agents and summarise who wins, by how much, how long
    games last and which rules are used.

    A game that fails is reported with its seed and the others go on (exit status 1 at the
    end); Ctrl-C prints the summary of the games finished so far (exit status 130).
    """
    rules = load_rules(file)
    jobs = usable_jobs(jobs) if ray is None else jobs
    options = parse_options(rules, option)
    batch, names = prepare(rules, file, players, options, agents, max_decisions, max_skips,
                           engine=engine_of(engine, compiled))
    start_report(report)
    check_outputs([(records_path, "records file", "--records"), (report, "report", "--report")],
                  rules_read(rules))
    budgets = skill_budgets(skill)
    seed = 0 if seed is None else seed
    with records_file(records_path) as records:
        keep = None if records is None else lambda record: records.write(record_line(record))
        with game_limits(max_decisions, max_skips):
            played = run_batch(batch, seed, games, jobs, ray=ray, keep=keep)
            trace = skill_of(rules, batch, budgets, skill_games, seed) if budgets else None
        summary = summary_of(rules, batch, names, played, seed, games, jobs)
        if trace is not None:
            summary["skill"] = trace
    if as_json:
        echo(json_text(summary))
    else:
        print_table(summary)
        if trace is not None:
            print_skill(trace)
    if report is not None:  # after the summary: a report that fails loses nothing printed
        write_report(report, [json.loads(json_text(summary))], skill=trace)
    if not played.completed:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    if played.failed:
        echo(f"error: {len(played.failed)} of {games} games failed", err=True)
        raise click.exceptions.Exit(1)


def skill_budgets(text: str | None) -> list[int]:
    """`--skill 10,30,100`: two or more search budgets, each a whole number from 1."""
    if text is None:
        return []
    try:
        budgets = [int(part) for part in text.split(",")]
    except ValueError:
        budgets = []
    if len(budgets) < 2 or min(budgets) < 1:
        fail(f"--skill takes two or more search budgets, as whole numbers from 1 (10,30,100), not '{text}'")
    if max(budgets) > limits.LIMITS.search_iterations:
        fail(f"--skill: a search of more than {limits.LIMITS.search_iterations:,} iterations a decision "
             f"({limits.describe('search_iterations')})")
    return budgets


def skill_of(rules: Rules, batch: runner.Batch, budgets: list[int], games: int, seed: int) -> dict[str, Any]:
    """The skill trace: mcts:N against random for each budget, and each budget against the one
    before it (a game that rewards skill lets more search win more)."""
    from ..arena import skill_trace

    matches = skill_trace(rules, batch.players, budgets, games, seed, batch.options)
    against_random = matches[:len(budgets)]
    return {"budgets": budgets, "against": "random", "fair": 1 / batch.players,
            "win_rate": [m.rate for m in against_random], "interval": [list(m.interval) for m in against_random],
            "matches": [m.to_json() for m in matches]}


def print_skill(trace: dict[str, Any]) -> None:
    for m in trace["matches"]:
        echo(f"skill: {m['agent']} wins {m['rate']:.1%} (95% {m['low']:.1%} to {m['high']:.1%}) against "
             f"{m['opponent']} over {m['games']} games (fair {m['fair']:.1%})")


def json_text(summary: dict[str, Any]) -> str:
    """The summary as JSON; an infinite rate (no time measured) is written as null."""
    if summary["games_per_second"] == math.inf:
        summary = {**summary, "games_per_second": None}
    return json.dumps(summary, indent=2)
