"""`ruleforge compare A.rules [B.rules]`: the same seeds and agents on two rules files (or one
file under two option sets), each statistic side by side with its difference, a 95% interval
and a verdict: did the variant change how the game plays, and how sure are we?"""

from __future__ import annotations

import json
from typing import Any

import click

from ..balance.compare import compare as compare_batches
from ..balance.compare import paired_part
from ..rules import Rules
from .common import (
    AGENTS_HELP,
    EXIT_INTERRUPTED,
    cell,
    echo,
    fail,
    game_limits,
    guarded,
    limit_options,
    load_rules,
    out_console,
    parse_options,
)
from .outputs import check_outputs
from .simulate import (
    compiled_option,
    engine_of,
    engine_option,
    json_text,
    prepare,
    rules_read,
    run_batch,
    spread_options,
    start_report,
    summary_of,
    usable_jobs,
    write_report,
)


def common_players(a: Rules, b: Rules, file_a: str, file_b: str, players: int | None) -> int:
    """The player count both files allow: the one asked for, else the fewest both allow."""
    (lo_a, hi_a), (lo_b, hi_b) = a.player_range, b.player_range
    if players is not None:
        for file, (lo, hi) in ((file_a, (lo_a, hi_a)), (file_b, (lo_b, hi_b))):
            if not lo <= players <= hi:
                fail(f"{file} is for {lo} to {hi} players, not {players}")
        return players
    lo, hi = max(lo_a, lo_b), min(hi_a, hi_b)
    if lo > hi:
        fail(f"no player count fits both: {file_a} is for {lo_a} to {hi_a} players, {file_b} for {lo_b} to {hi_b}")
    return lo


def shown(value: float | None, kind: str, signed: bool = False) -> str:
    if value is None:
        return "-"
    if kind == "rate":
        return f"{value * 100:+.1f}" if signed else f"{value:.1%}"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def print_comparison(comparison: dict[str, Any]) -> None:
    from rich.table import Table

    a, b = comparison["a"], comparison["b"]
    pairing = "paired by seed" if comparison["same_seeds"] else "not paired"
    echo(f"A: {a['rules']}{options_text(a)}   B: {b['rules']}{options_text(b)}")
    last = a["seed"] + a["requested"] - 1
    agents = ",".join(s["agent"] for s in a["seats"])
    echo(f"{a['games']} and {b['games']} games, {a['players']} players, seeds {a['seed']}..{last}, "
         f"agents {agents}; means {pairing}")
    table = Table()
    for head in ("statistic", "A", "B", "B - A", "95% interval", "verdict"):
        table.add_column(head, justify="left" if head in ("statistic", "verdict") else "right", no_wrap=True)
    for row in comparison["differences"]:
        kind, iv = row["kind"], row["interval"]
        interval = "-" if iv is None else f"{shown(iv[0], kind, True)} to {shown(iv[1], kind, True)}"
        table.add_row(cell(row["statistic"]), cell(shown(row["a"], kind)), cell(shown(row["b"], kind)),
                      cell(shown(row["difference"], kind, True)), cell(interval), cell(row["verdict"]))
    wide_console().print(table)
    echo("rates in %, their differences in percentage points")
    for key, side in (("only_in_a", "A"), ("only_in_b", "B")):
        if comparison[key]:
            echo(f"scoring items only in {side}: {', '.join(comparison[key])}")
    changed = sum(1 for row in comparison["differences"] if row["verdict"] == "changed")
    total = len(comparison["differences"])
    echo(f"{changed} of {total} statistics changed (if nothing had changed, about {total * 0.05:.1f} "
         "of them would read changed by chance alone)")


def wide_console() -> Any:
    """A console as wide as the table needs when not on a terminal (a file, a pipe, the docs):
    a comparison's rows are long, and a cut verdict reads as nothing."""
    console = out_console()
    if not console.is_terminal:
        console.width = 200
    return console


def options_text(summary: dict[str, Any]) -> str:
    options = summary["options"]
    return f" ({', '.join(f'{k}={v}' for k, v in options.items())})" if options else ""


@click.command()
@click.argument("file_a", metavar="A")
@click.argument("file_b", metavar="[B]", required=False)
@click.option("-n", "--games", "games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Games on each side; game i uses seed SEED+i on both.")
@click.option("--players", "-p", type=int, default=None,
              help="Number of players [default: the fewest both files allow].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first game.")
@click.option("--agents", default=None, help=AGENTS_HELP + "  [default: random]")
@click.option("-o", "--option", "option", multiple=True, metavar="NAME=VALUE", help="Set a game option on both sides.")
@click.option("--a-option", "a_option", multiple=True, metavar="NAME=VALUE", help="Set a game option on A only.")
@click.option("--b-option", "b_option", multiple=True, metavar="NAME=VALUE", help="Set a game option on B only.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@spread_options
@compiled_option
@engine_option
@limit_options
@guarded
def compare(file_a: str, file_b: str | None, games: int, players: int | None, seed: int, agents: str | None,
            option: tuple[str, ...], a_option: tuple[str, ...], b_option: tuple[str, ...], as_json: bool,
            jobs: int, ray: str | None, report: str | None, compiled: bool, engine: str, max_decisions: int | None,
            max_skips: int | None) -> None:
    """Play the same seeds with the same agents on A and on B and say what changed.

    B is a second rules file (a variant), or A again under other options: `compare A.rules
    --b-option NAME=VALUE`. Each statistic gets B − A, a 95% interval and a verdict: changed
    (the interval leaves out 0) or no evidence of change.
    """
    file_b = file_b or file_a
    jobs = usable_jobs(jobs) if ray is None else jobs
    rules_a = load_rules(file_a)
    rules_b = rules_a if file_b == file_a else load_rules(file_b)
    n = common_players(rules_a, rules_b, file_a, file_b, players)
    options_a = parse_options(rules_a, option + a_option)
    options_b = parse_options(rules_b, option + b_option)
    start_report(report)
    check_outputs([(report, "report", "--report")], rules_read(rules_a, rules_b))
    engine = engine_of(engine, compiled)
    if engine != "reference" and all(name == "random" for name in (agents or "random").split(",")):
        echo("note: the native engine counts no games here (compare pairs every game's record): playing on the "
             "reference engine", err=True)  # a search agent still searches in C (run_batch says so)
        engine = "reference"
    sides = []
    for file, rules, options, label in ((file_a, rules_a, options_a, "A"), (file_b, rules_b, options_b, "B")):
        batch, names = prepare(rules, file, n, options, agents, max_decisions, max_skips, "compare", engine)
        kept: list[dict[str, Any]] = []  # what the paired intervals read of each game, in seed order
        with game_limits(max_decisions, max_skips):
            played = run_batch(batch, seed, games, jobs, label, ray, lambda r, kept=kept: kept.append(paired_part(r)))
        if not played.completed:
            echo("interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED)
        sides.append((summary_of(rules, batch, names, played, seed, games, jobs), played, kept))
    (summary_a, played_a, kept_a), (summary_b, played_b, kept_b) = sides
    comparison = compare_batches(summary_a, summary_b, kept_a, kept_b)
    a, b = json.loads(json_text(summary_a)), json.loads(json_text(summary_b))
    if as_json:
        echo(json.dumps({**comparison, "a": a, "b": b}, indent=2))
    else:
        print_comparison(comparison)
    if report is not None:
        write_report(report, [a, b], {**comparison, "a": a, "b": b})
    failed = len(played_a.failed) + len(played_b.failed)
    if failed:
        echo(f"error: {failed} of {2 * games} games failed", err=True)
        raise click.exceptions.Exit(1)
