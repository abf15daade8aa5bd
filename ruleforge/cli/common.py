"""What every command shares: failing with one clear message, reading and writing files
safely, the options that start a game, and the score tables."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .. import limits, scoresheet
from ..__main__ import EXIT_INTERRUPTED
from ..agents import AgentAbort
from ..diagnostics import GameError, RulesError, terminal_paint
from ..engine import Game, player_name
from ..inert import inert
from ..rules import Rules, load
from ..state_io import BIGGEST_VALUE, NUMBER_DIGITS

if TYPE_CHECKING:  # rich is imported where it is used: `check` starts faster without it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text


class CommandFailed(Exception):
    """A command ends with a message already worded for the user."""


def fail(message: str) -> NoReturn:
    raise CommandFailed(message)


def echo(message: Any = None, nl: bool = True, err: bool = False) -> None:
    """`click.echo`, with every control character escaped (ruleforge/inert.py): what a command
    prints may quote a stranger's file, and only newlines and tabs are its own layout."""
    if message is None:
        click.echo(nl=nl, err=err)
    else:
        click.echo(inert(str(message)), nl=nl, err=err)


def echo_rules_error(err: RulesError) -> None:
    """A rules error on stderr; on a terminal, its source lines coloured (diagnostics.terminal_paint)."""
    paint = terminal_paint(sys.stderr)
    if paint is None:
        echo(err.render(), err=True)
    else:  # render made all but the colours inert: `echo` would escape the colours too
        click.echo(err.render(paint), err=True)


def guarded(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every expected failure into `error: ...` on stderr and exit status 1 (130 for Ctrl-C)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RulesError as err:
            echo_rules_error(err)
        except (GameError, CommandFailed, AgentAbort) as err:
            echo(f"error: {err}", err=True)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:  # the reader went away (`| head`): stop quietly
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        except OSError as err:  # a path the system refuses (a name too long, ...) where it was only looked at
            echo(f"error: {os_problem(err)}", err=True)
        except Exception as err:  # a bug in ruleforge: still no traceback unless asked for
            if os.environ.get("RULEFORGE_DEBUG"):
                raise
            echo(f"error: internal error: {type(err).__name__}: {err} "
                 f"(set RULEFORGE_DEBUG=1 to see the traceback)", err=True)
        raise click.exceptions.Exit(1)

    return wrapper


def shortened(name: str, most: int = 160) -> str:
    """A path as shown in a message: a very long one keeps its start and its end."""
    return name if len(name) <= most else f"{name[:most // 2]}…{name[-most // 2:]}"


def os_problem(err: OSError) -> str:
    """An OSError that no command expected, in a user's words: which path, and what is wrong."""
    reason = err.strerror or str(err)
    if err.filename is None:
        return reason
    return f"cannot use '{shortened(os.fsdecode(err.filename))}': {reason}"


def load_rules(path: str) -> Rules:
    """Load a rules file; its diagnostics propagate as RulesError to be rendered."""
    return load(path)


# --- files ---------------------------------------------------------------------------------


def read_json(path: str, what: str) -> Any:
    """A JSON document from a file; every way of failing is one GameError naming the file."""
    return scoresheet.read_json(path, what)


def check_writable(path: str, what: str) -> None:
    """Fail now, before a game is played, if `path` cannot be written later. Creates and
    removes a temporary file beside it, so that every cause (no folder, no permission, a
    read-only disk) is found, and leaves nothing behind."""
    target = Path(path)
    if target.is_dir():
        fail(f"cannot write {what} '{path}': it is a folder")
    folder = target.parent
    if not folder.exists():
        fail(f"cannot write {what} '{path}': there is no folder '{folder}'")
    if not folder.is_dir():
        fail(f"cannot write {what} '{path}': '{folder}' is not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as err:
        fail(f"cannot write {what} '{path}': {err.strerror or err}")
    os.close(handle)
    os.unlink(probe)


@functools.lru_cache(maxsize=1)
def _file_mode() -> int:
    """The mode a new file gets (0o666 less the umask); temporary files start private."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str, text: str, what: str, mode: int | None = None) -> None:
    """Write `text` to a temporary file beside `path`, flush it to disk, then rename it over
    `path`: a reader, or a process killed half-way, sees the old file or the new, never half.
    `mode` (0o600 for a file of secrets) instead of what the umask gives."""
    with AtomicFile(path, what, mode) as f:
        f.write(text)


class AtomicFile:
    """A file written piece by piece (a records file, a line per game as games end) that appears
    at `path` only whole: the pieces go to a temporary file beside it, renamed over `path` by
    `commit()`; `discard()` removes it. As a context manager it commits at the end and discards
    on any exception, Ctrl-C included; while it is open, SIGTERM and SIGHUP exit (status 143,
    129) through the same cleanup instead of leaving the temporary file behind."""

    def __init__(self, path: str, what: str, mode: int | None = None) -> None:
        self.path, self.what, self.target = path, what, Path(path)
        self.mode = mode
        try:
            handle, self.temp = tempfile.mkstemp(dir=self.target.parent, prefix=f".{self.target.name}.",
                                                 suffix=".tmp")
        except OSError as err:
            fail(f"cannot write {what} '{path}': {err.strerror or err}")
        self.file = os.fdopen(handle, "w", encoding="utf-8")
        self.closed = False
        self._previous_signals: dict[int, Any] = {}

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as err:
            self._failed(err)

    def commit(self) -> None:
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.chmod(self.temp, _file_mode() if self.mode is None else self.mode)
            os.replace(self.temp, self.target)
        except BaseException as err:  # Ctrl-C included: never leave the temporary file behind
            if isinstance(err, OSError):
                self._failed(err)
            self.discard()
            raise
        self.closed = True
        _sync_folder(self.target.parent)

    def discard(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)

    def _failed(self, err: OSError) -> NoReturn:
        self.discard()
        fail(f"cannot write {self.what} '{self.path}': {err.strerror or err}")

    def __enter__(self) -> AtomicFile:
        self._previous_signals = _exit_on_stop_signals()
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            if kind is None:
                self.commit()
            else:
                self.discard()
        finally:
            _restore_signals(self._previous_signals)


def _exit_on_stop_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise SystemExit (128 + the signal) in this process, so that `finally`
    and `with` blocks run (forked workers, which inherit the handler, die at once as before).
    Only signals at their default are taken; the handlers replaced, none off the main thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    owner = os.getpid()

    def stop(signum: int, _frame: Any) -> None:
        if os.getpid() != owner:  # a pool worker, stopped by its pool: die as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise SystemExit(128 + signum)

    wanted = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
              if s is not None and signal.getsignal(s) == signal.SIG_DFL]  # `play` handles them its own way
    return {s: signal.signal(s, stop) for s in wanted}


def _restore_signals(previous: dict[int, Any]) -> None:
    import signal

    for signum, handler in previous.items():
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); where a folder cannot be opened, skip it."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_json(path: str, data: Any, what: str, mode: int | None = None) -> None:
    """Write `data` as JSON; a number too long for a JSON file of ruleforge's (more than
    NUMBER_DIGITS digits, which no state may load) fails with where it is, the file untouched.
    `mode` as `write_atomic` takes it (0o600 for a file of secrets)."""
    where = _too_long_number(data)
    if where is not None:
        fail(f"cannot write {what} '{path}': {where} holds a number of more than {NUMBER_DIGITS:,} digits, "
             f"more than a saved file may hold")
    write_atomic(path, json.dumps(data, indent=1) + "\n", what, mode=mode)


def _too_long_number(data: Any, where: str = "it") -> str | None:
    """Where in `data` a number of more than NUMBER_DIGITS digits is (`'state' 'v' entry 0`), or None."""
    if isinstance(data, int) and not isinstance(data, bool):
        return where if abs(data) > BIGGEST_VALUE else None
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        inner = _too_long_number(value, f"'{key}'" if where == "it" and isinstance(key, str) else
                                 f"{where} '{key}'" if isinstance(key, str) else f"{where} entry {key}")
        if inner is not None:
            return inner
    return None


# --- starting a game -------------------------------------------------------------------------


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


AGENTS_HELP = ("Agents, one per seat: random, greedy, human, mcts:N (a search of N iterations per "
               "decision), or your own as module:Class or file.py:Class. A shorter list fills the remaining "
               "seats with its last name (human,random: P1 human, the others random).")


def game_options(func: Callable[..., Any], agents_default: str = "random") -> Callable[..., Any]:
    """The flags that say which game to start: players, seed, agents, options."""
    func = click.option("-o", "--option", "option", multiple=True, metavar="NAME=VALUE",
                        help="Set a game option (repeatable).")(func)
    func = click.option("--agents", default=None, help=AGENTS_HELP + f"  [default: {agents_default}]")(func)
    func = click.option("--seed", type=int, default=None, help="Seed of the (first) game.  [default: 0]")(func)
    func = click.option("--players", "-p", type=int, default=None,
                        help="Number of players [default: the fewest the game allows].")(func)
    return func


def play_game_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`game_options` for `play`, whose default seats a person at a terminal."""
    return game_options(func, "human,random at a terminal (you are P1, the others random); "
                              "random when input is piped in")


def limit_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--max-decisions` and `--max-skips`: the limits of running one game, for this command."""
    func = click.option("--max-skips", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Stop a game after N decisions in a row are skipped for want of a legal action "
                             f"[default: {limits.LIMITS.skips_in_a_row}].")(func)
    func = click.option("--max-decisions", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Stop a game that has not ended after N decisions "
                             f"[default: {limits.LIMITS.decisions_per_game}].")(func)
    return func


def game_limits(max_decisions: int | None, max_skips: int | None) -> contextlib.AbstractContextManager:
    """The limits of the command line in force for a `with` block (unchanged where not given)."""
    changes = {"decisions_per_game": max_decisions, "skips_in_a_row": max_skips}
    return limits.raised(**{name: value for name, value in changes.items() if value is not None})


def too_many_decisions(count: int) -> str | None:
    """The message for a game past `LIMITS.decisions_per_game` (read now, so raising works)."""
    limit = limits.LIMITS.decisions_per_game
    if count < limit:
        return None
    how = limits.describe("decisions_per_game")
    return f"the game has not ended after {limit:,} decisions ({how}, or --max-decisions)"


def check_environment() -> None:
    """Stop with exit status 2 if a `RULEFORGE_MAX_*` variable is bad, before any command runs."""
    problems = limits.ENVIRONMENT_PROBLEMS
    if problems:
        for problem in problems:
            echo(f"error: {problem}", err=True)
        raise click.exceptions.Exit(2)


# --- showing results -------------------------------------------------------------------------


def decisions(game: Game) -> int:
    return sum(1 for entry in game.state.log if entry[0] == "act")


def out_console() -> Console:
    from rich.console import Console

    return Console(highlight=False, markup=False, emoji=False)  # '[bold]' in a label is text


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, markup=False, emoji=False)


def cell(value: Any, style: str = "") -> Text:
    """A table cell as plain text, so that '[' in a label is never read as markup, and a
    control character in it is escaped (ruleforge/inert.py)."""
    from rich.text import Text

    return Text(inert(str(value)), style=style)


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
