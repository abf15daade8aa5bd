"""`ruleforge play`: one game at the terminal, its log kept on disk as it goes, and
`play --resume LOG` to continue a game that was stopped."""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import attrs
import click

from ..agents import AgentAbort, UntrustedAgent, agent_names, make_agents, recorded_agent, shown
from ..diagnostics import GameError
from ..engine import Game, player_name
from ..rules import Rules
from ..screen import render_view, screen_width
from .common import (
    EXIT_INTERRUPTED,
    CommandFailed,
    echo,
    fail,
    game_limits,
    guarded,
    limit_options,
    load_rules,
    out_console,
    parse_options,
    play_game_options,
    resolve_players,
    score_table,
    too_many_decisions,
    winner_line,
    write_json,
)
from .gamelog import GameRecord, LogWriter, find_rules, log_header, logged_game, read_log, replay_steps
from .outputs import check_outputs, same_file


class Stopped(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM, SIGHUP): handled like Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@attrs.define
class Table:
    """A game ready to be played on: its rules, the agents at its seats, its log."""

    rules: Rules
    rules_path: str
    game: Game
    options: dict[str, Any]
    agents: list[str]
    log_path: str | None
    steps: list[dict[str, str]]
    resumed_from: str | None = None


def _prompt(text: str) -> str:
    """Read one answer; end of input raises EOFError, which the human agent turns into an abort."""
    echo(text, nl=False)
    line = sys.stdin.readline()
    if not line:
        echo()
        raise EOFError
    return line


def new_table(file: str, players: int | None, seed: int | None, agents: str | None,
              option: tuple[str, ...], log_path: str | None) -> Table:
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    game = rules.new_game(n, 0 if seed is None else seed, options)
    return Table(rules, file, game, options, agent_names(agents or default_agents(), n), log_path, [])


def default_agents() -> str:
    """Without --agents: a person at P1 when there is one at the terminal, the others random;
    answers piped in (a script, a test) play no one, every seat random."""
    return "human,random" if sys.stdin.isatty() else "random"


def resumed_table(resume_path: str, file: str | None, players: int | None, seed: int | None,
                  agents: str | None, option: tuple[str, ...], log_path: str | None) -> Table:
    """The game of a log, replayed step by step (each checked), with the agents of `--agents`,
    else those the log records; it goes on being written to the same log unless `--log`."""
    if players is not None or seed is not None or option:
        fail("--players, --seed and --option come from the log: leave them out with --resume")
    record = read_log(resume_path)
    names = agent_names(agents, record.players) if agents else logged_agents(record)  # before any replay
    rules, rules_path = find_rules(record, file)
    game = logged_game(rules, record)
    replay_steps(game, record)
    return Table(rules, rules_path, game, record.options, names, log_path or resume_path, record.steps,
                 resumed_from=resume_path)


def logged_agents(record: GameRecord) -> list[str]:
    """The agents a log records (random at every seat if none), each checked as a name from a
    file may be: built-in only, a search within its limit; an agent of code needs --agents."""
    if record.agents is None:
        return ["random"] * record.players
    names = []
    for seat, name in enumerate(record.agents):
        try:
            names.append(recorded_agent(name))
        except UntrustedAgent as err:
            fail(f"replay log '{record.path}': {player_name(seat)}'s {err}; to resume it, give "
                 f"--agents {shlex.quote(shown(','.join(record.agents), 400))} if you trust that code, or other agents")
        except GameError as err:
            fail(f"replay log '{record.path}': {player_name(seat)}'s {err}")
    return names


def check_play_outputs(table: Table, save_path: str | None) -> None:
    """Every file the game will write can be written: found now, not after the whole game; and
    none replaces the rules, the log resumed from (when the game goes on in another) or a user's file."""
    inputs = [(path, "rules file") for path in table.rules.files]
    if table.resumed_from is not None and not same_file(table.resumed_from, table.log_path or ""):
        inputs.append((table.resumed_from, "log resumed from"))
    check_outputs([(table.log_path, "log", "--log"), (save_path, "state", "--save")], inputs)


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (the terminal closed) raise `Stopped`, so the log is saved as for Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: Any) -> None:
        raise Stopped(signum)

    wanted = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    previous = {s: signal.signal(s, stop) for s in wanted}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def show_position(game: Game, viewer: int | None, seen_from: int | None = None) -> None:
    """The final position as `viewer` (None: a spectator) sees it; reveals from `seen_from` on
    (None: none, they were shown when they happened)."""
    view = game.view(viewer, properties=True)
    echo("final position:")
    for line in render_view(view, screen_width(), seen_from=len(view["seen"]) if seen_from is None else seen_from):
        echo(line)


class TooLong(CommandFailed):
    """The game passed --max-decisions: its message already says after how many."""


def saved_note(writer: LogWriter, counted: bool = False) -> str:
    """Where the game stopped is kept, and how to continue it (`counted`: the message said
    after how many decisions already)."""
    count = len(writer.steps)
    if writer.path is None:
        advice = "not saved: give --log FILE to keep a game you may want to continue"
        return f"; {advice}" if counted else f" after {count:,} decisions ({advice})"
    return (f"; the game so far ({count} decisions) is saved in {writer.path}\n"
            f"continue it with: ruleforge play --resume {shlex.quote(writer.path)}")


class Session:
    """One game played at the table: agents choose, the log is printed and written."""

    def __init__(self, table: Table, writer: LogWriter, quiet: bool):
        self.table = table
        self.game = table.game
        self.writer = writer
        self.quiet = quiet
        self.humans = {p for p, name in enumerate(table.agents) if name == "human"}
        # With a person at the table, the log is printed as that person may read it.
        self.viewer = min(self.humans) if self.humans else None
        self.seats = make_agents(",".join(table.agents), self.game.players, self.game.seed,
                                 input_fn=_prompt, output_fn=click.echo, generator=self.game.generator)
        self.shown = len(self.game.state.log)
        self.last_human: int | None = None  # the person who chose last, for the hand-over

    def hand_over(self, me: int) -> None:
        """Several people at one terminal: before another person's decision, a screen that
        waits for them (the previous one looks away), then pushes the previous screen out of
        sight, so that nobody sees another's hand or pending choice."""
        name = player_name(me)
        echo(f"\n=== {player_name(self.last_human)} is done: hand over to {name} "
             f"(the others look away); {name}, press Enter ===")
        try:
            _prompt("")
        except EOFError:
            raise AgentAbort(f"{name} did not take the terminal (end of input)") from None
        echo("\n" * 60 + f"=== {name} at the terminal ===")

    def show_log(self) -> None:
        if not self.quiet:
            for line in self.game.log_lines(self.shown, viewer=self.viewer):
                echo(line)
        self.shown = len(self.game.state.log)

    def show_recent(self, count: int = 10) -> None:
        """After a resume: where the game stands, the last few lines of its log."""
        echo(f"resuming {self.table.resumed_from}: {len(self.writer.steps)} decisions replayed")
        if not self.quiet:
            recent = max(0, len(self.game.state.log) - 3 * count)  # entries; some print no line
            for line in self.game.log_lines(recent, viewer=self.viewer)[-count:]:
                echo(line)

    def show_final(self) -> None:
        """The position the game ended in, as the person at the table (else a spectator) sees it."""
        if not self.quiet:
            person = self.seats[self.viewer] if self.viewer is not None else None
            show_position(self.game, self.viewer, getattr(person, "seen_shown", {}).get(self.viewer, 0))

    def play_on(self) -> None:
        game, writer = self.game, self.writer
        while not game.is_over:
            self.show_log()
            problem = too_many_decisions(len(writer.steps))
            if problem:
                raise TooLong(problem)
            me = game.current_player
            assert me is not None
            human = me in self.humans
            if human:  # what the bots did is on disk while a person thinks
                writer.save()
                if self.last_human not in (None, me):
                    self.hand_over(me)
                self.last_human = self.viewer = me
            action = self.seats[me].choose(game)
            label = game.legal_labels()[game.legal_actions().index(action)]
            game.apply(action)
            writer.add(me, label, game, human)
        self.show_log()

    def run(self, max_decisions: int | None, max_skips: int | None) -> None:
        """Play to the end; on any stop save the log first, then say how to continue."""
        writer = self.writer
        try:
            with game_limits(max_decisions, max_skips), stop_signals():
                writer.save()  # a log exists from the first decision on
                if self.table.resumed_from is not None:
                    self.show_recent()
                self.play_on()
        except KeyboardInterrupt as stop:
            writer.save()
            code = 128 + stop.signum if isinstance(stop, Stopped) else EXIT_INTERRUPTED
            with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
                echo(err=True)
                echo(f"interrupted{saved_note(writer)}", err=True)
            raise click.exceptions.Exit(code) from None
        except (AgentAbort, CommandFailed) as err:  # stopped at a decision: the state is whole
            writer.save()
            fail(f"{err}{saved_note(writer, counted=isinstance(err, TooLong))}")
        except GameError as err:  # a rule failed half-way through a step: keep the steps, not the state
            writer.save()
            fail(f"{err}{saved_note(writer)}")
        except Exception:  # a bug in ruleforge: the steps played are kept all the same
            with contextlib.suppress(Exception):
                writer.save()
            raise
        writer.save()


@click.command()
@click.argument("file", required=False)
@play_game_options
@click.option("--resume", "resume_path", metavar="LOG.json",
              help="Continue the game of a log written by --log, checking every step (FILE, if given, "
                   "is the rules to use), with the agents the log records unless --agents is given. The game goes on "
                   "being written to that log.")
@click.option("--log", "log_path", metavar="LOG.json", help="Write a replay log, kept up to date as the game goes.")
@click.option("--save", "save_path", metavar="STATE.json", help="Save the final state (for `ruleforge score`).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final scores.")
@limit_options
@guarded
def play(file: str | None, players: int | None, seed: int | None, agents: str | None, option: tuple[str, ...],
         resume_path: str | None, log_path: str | None, save_path: str | None, quiet: bool,
         max_decisions: int | None, max_skips: int | None) -> None:
    """Play one game, printing what happens; human seats see only their own view.

    FILE is the rules; with --resume it may be left out (the log names its rules). Without
    --agents, you play P1 against random agents when this runs at a terminal; with input
    piped in, every seat is random.
    """
    if resume_path is None:
        if file is None:
            raise click.UsageError("give the rules FILE, or --resume LOG to continue a game")
        table = new_table(file, players, seed, agents, option, log_path)
    else:
        table = resumed_table(resume_path, file, players, seed, agents, option, log_path)
    game = table.game
    if table.resumed_from is not None and game.is_over:
        echo(f"the game in {table.resumed_from} is over: {table.rules.title}, "
             f"final scores after {len(table.steps)} decisions")
        if not quiet:
            humans = [seat for seat, name in enumerate(table.agents) if name == "human"]
            show_position(game, humans[0] if humans else None)
        out_console().print(score_table(game))
        echo(winner_line(game))
        return
    check_play_outputs(table, save_path)
    header = log_header(table.rules, table.rules_path, table.log_path, game.players, game.seed,
                        table.options, table.agents, game.generator)
    session = Session(table, LogWriter(table.log_path, header, table.steps, game), quiet)
    if agents is None and "human" in table.agents and table.resumed_from is None:
        echo(f"you are P1; {'P2' if game.players == 2 else f'P2-P{game.players}'} random "
             "(--agents chooses who plays each seat)")
    session.run(max_decisions, max_skips)
    session.show_final()
    if save_path:
        write_json(save_path, game.to_json(), "state")
    echo(f"{table.rules.title}: final scores after {len(table.steps)} decisions")
    out_console().print(score_table(game))
    echo(winner_line(game))
