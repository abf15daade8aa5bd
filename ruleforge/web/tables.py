"""The games a playtest server holds: each with its seats' private tokens, its bots, and its log
written as it goes, so that a restarted server takes every game up where it stopped.

A game's files live in the server's data folder: `<id>.json` is an ordinary replay log (the
format `play --log` writes, so `ruleforge replay` and `ruleforge view` read it) and
`<id>.seats.json` holds the seat tokens. Every file written there is created 0600 and renamed
into place (a log tells every hidden card of a game in play), and a file is read back only if it
is a regular file of the server's user that no one else may write, and nested no deeper than a
seats file is (`private_folders`): any other is skipped with a warning naming it. Only built-in
agents sit at bot seats: a page can start games, and must never be able to name code to import.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..agents import GameError, make_agent
from ..agents import agent_seed as seat_seed
from ..cli.common import CommandFailed, write_atomic
from ..cli.gamelog import LogWriter, log_header, logged_game, read_log, replay_steps
from ..engine import Game, player_name
from ..limits import LIMITS
from ..private_folders import file_refusal, read_private_text
from ..rules import Rules
from .bounds import DEFAULT, read_json, whole_number

HUMAN = "human"
BOT_AGENTS = ("random", "greedy")  # and mcts:N up to MOST_SEARCH: what a page may seat
MOST_SEARCH = 2000  # iterations per decision of a bot search started from a page
SEATS_FORMAT = "ruleforge-seats/1"
WHEN_TOLD = math.inf  # a game's LogWriter never saves by itself: Table.record saves each step
TOKEN_BYTES = 24  # 192 random bits per seat link: unguessable
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,200}")  # a token as `secrets.token_urlsafe` writes it
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def web_agent(name: str) -> str:
    """A seat's agent as a page or a seats file may name it: a person, or a built-in bot."""
    low = name.strip().lower()
    if low == HUMAN or low in BOT_AGENTS:
        return low
    head, sep, budget = low.partition(":")
    iterations = whole_number(budget, 6)  # "mcts:²" is no budget: ASCII digits only
    if head == "mcts" and sep and iterations is not None and 1 <= iterations <= MOST_SEARCH:
        return f"mcts:{iterations}"
    raise GameError(f"unknown agent '{name[:40]}' (a seat is human, random, greedy or mcts:N with N up to "
                    f"{MOST_SEARCH})")


def write_private(path: Path, data: Any, what: str = "a file of seat links") -> None:
    """A JSON file only its owner may read, replaced whole (never half written): made 0600 under a
    new name (O_EXCL: never through a planted link) and renamed over `path`."""
    write_atomic(str(path), json.dumps(data, indent=1) + "\n", what, mode=0o600)


@attrs.define(eq=False)
class Table:
    """One game being played: the game, who sits where, and who is waiting for it to change."""

    id: str
    game: Game
    agents: list[str]  # per seat: "human" or a bot's name
    tokens: list[str]  # per seat: the secret of its link (bot seats too: a spectator link of that seat)
    writer: LogWriter
    version: int = 0  # goes up with every change; pages ask for anything newer than they have
    run: str = attrs.field(factory=lambda: secrets.token_hex(4))  # this table's life in this server
    lock: asyncio.Lock = attrs.field(factory=asyncio.Lock)
    changed: asyncio.Event = attrs.field(factory=asyncio.Event)
    bots: dict[int, Any] = attrs.field(factory=dict)
    bot_task: asyncio.Task | None = None
    failure: str | None = None  # said to every seat when a bot or a rule failed and the game stopped
    warn: Callable[[str], None] = print  # the server's terminal: the failure in full, for the host

    def touch(self) -> None:
        """Wake every page waiting on this table, and let later waits wait for the next change."""
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait_newer(self, version: int, timeout: float) -> None:
        """Return once the table's version is not `version` (newer, or a page's from before a restart),
        or after `timeout` seconds."""
        if self.version != version:  # newer, or a version of before a restart: answer at once
            return
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    def bot_at(self, seat: int) -> Any | None:
        name = self.agents[seat]
        if name == HUMAN:
            return None
        if seat not in self.bots:
            self.bots[seat] = make_agent(name, seat_seed(self.game.seed, seat), generator=self.game.generator)
        return self.bots[seat]

    async def act(self, seat: int, label: str) -> None:
        """A person's decision: legal and theirs to take, or a GameError and nothing changed."""
        async with self.lock:
            game = self.game
            if game.is_over or self.failure is not None:
                raise GameError(self.failure or "the game is over")
            if game.current_player != seat:
                raise GameError(f"it is not your turn: {player_name(game.current_player)} is to act")
            if label not in game.legal_labels():
                raise GameError("that action is not legal now: choose again from the page")
            try:
                game.apply(label)
            except GameError as err:  # a rule failed while running the action
                self.stopped(err)
                raise GameError(self.failure) from None
            await self.record(seat, label)
            self.touch()
        self.start_bots()

    def start_bots(self) -> None:
        """Let the bots play while it is a bot's turn, in the background: the page that acted
        gets its answer at once and sees the bots' moves as they come."""
        if self.bot_task is None or self.bot_task.done():
            self.bot_task = asyncio.get_running_loop().create_task(self.play_bots())

    async def play_bots(self) -> None:
        while True:
            async with self.lock:
                game = self.game
                if game.is_over or self.failure is not None:
                    return
                seat = game.current_player
                bot = self.bot_at(seat)
                if bot is None:
                    return
                copy, version = game.clone(), self.version
            try:  # a bot thinks on a copy, in a thread: meanwhile the server answers every page
                action = await asyncio.to_thread(bot.choose, copy)
            except GameError as err:
                await self.stop(err)
                return
            async with self.lock:
                if self.version != version:  # only a bot acts now, but never apply to a changed game
                    continue
                try:
                    # the label as the log needs it: unique among the legal ones ("#2" where
                    # two read alike), or a replay would take the first of the two
                    label = game.legal_labels()[game.legal_actions().index(action)]
                    game.apply(action)
                except (GameError, ValueError) as err:  # ValueError: a bot's action is not legal
                    self.stopped(err)
                    return
                await self.record(seat, label)
                self.touch()

    async def record(self, seat: int, label: str) -> None:
        """Log a step just applied and save the log before anyone hears of it (the lock held, so
        a table's saves keep their order). The writing, flushed to disk, goes on in a thread: the
        server meanwhile answers every other table's pages (on the event loop, each save would
        hold up every table, some 10 ms a step)."""
        self.writer.add(seat, label, self.game)  # a writer saving only when told (WHEN_TOLD)
        await asyncio.to_thread(self.writer.save)

    async def stop(self, err: Exception) -> None:
        async with self.lock:
            self.stopped(err)

    def stopped(self, err: Exception) -> None:
        """A failure's message may quote what a seat may not see: the seats are told only that
        the game stopped, the host's terminal why."""
        self.failure = "the game stopped: a rule or a bot failed (the server's terminal says why)"
        self.warn(f"game {self.id} stopped: {err}")
        self.touch()


class Tables:
    """Every game of one rules file that a server holds, found by id or by a seat's token."""

    def __init__(self, rules: Rules, rules_path: str, folder: Path, warn: Callable[[str], None] = print,
                 json_depth: int = DEFAULT.json_depth):
        self.rules = rules
        self.rules_path = rules_path
        self.folder = folder
        self.warn = warn
        self.json_depth = json_depth
        self.by_id: dict[str, Table] = {}
        self.by_token: dict[str, tuple[Table, int]] = {}
        self.closing = False  # the server is stopping: no request waits for news any more
        self.resumed = False  # the folder's games were taken up (`resume_all`, once)

    def wake_all(self) -> None:
        """Answer every page waiting for news now (the server is stopping: it should not wait
        for their long polls to run out)."""
        self.closing = True
        for table in self.by_id.values():
            table.changed.set()

    def seat_of(self, token: str) -> tuple[Table, int] | None:
        return self.by_token.get(token)

    def create(self, players: int, seed: int | None, options: dict[str, Any], agents: list[str]) -> Table:
        """A new game; GameError for a player count, option or agent the rules refuse."""
        agents = [web_agent(name) for name in agents]
        if len(agents) != players:
            raise GameError(f"{len(agents)} seats described for {players} players")
        seed = secrets.randbelow(2**31) if seed is None else seed
        game = self.rules.new_game(players, seed, options or None)
        game_id = secrets.token_hex(6)
        tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(players)]
        log_path = self.folder / f"{game_id}.json"
        header = log_header(self.rules, self.rules_path, str(log_path), players, seed, options, agents, game.generator)
        writer = LogWriter(str(log_path), header, [], game, interval=WHEN_TOLD, mode=0o600)
        writer.save()
        write_private(self.seats_path(game_id), {"format": SEATS_FORMAT, "game": game_id, "tokens": tokens})
        return self.add(Table(game_id, game, agents, tokens, writer, warn=self.warn))

    def seats_path(self, game_id: str) -> Path:
        return self.folder / f"{game_id}.seats.json"

    def add(self, table: Table) -> Table:
        self.by_id[table.id] = table
        for seat, token in enumerate(table.tokens):
            self.by_token[token] = (table, seat)
        return table

    def resume_all(self) -> list[Table]:
        """Every game the folder holds, replayed from its log; a game that cannot be taken up
        again (another game's rules, a damaged, planted or hostile file) is skipped with a warning
        naming its file, never fatal."""
        self.resumed = True
        resumed = []
        for seats in sorted(self.folder.glob("*.seats.json")):
            try:
                resumed.append(self.add(self.resume(seats)))
            except (GameError, CommandFailed, OSError, ValueError, KeyError, TypeError, RecursionError) as err:
                self.warn(f"warning: not resuming {seats.name}: {err}")
        return resumed

    def resume(self, seats: Path) -> Table:
        game_id = seats.name.removesuffix(".seats.json")
        if not GAME_ID.fullmatch(game_id):
            raise ValueError("its name is not a game's id")
        why = file_refusal(seats)
        if why is not None:
            raise ValueError(why)
        data = read_json(read_private_text(seats, ".seats.json", "seats file"), self.json_depth, "it")
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(data, dict) or data.get("format") != SEATS_FORMAT or not isinstance(tokens, list) \
                or not all(isinstance(t, str) and TOKEN.fullmatch(t) for t in tokens):
            raise ValueError("not a seats file of ruleforge serve")
        if len(set(tokens)) != len(tokens) or any(t in self.by_token for t in tokens):
            raise ValueError("its tokens are another seat's")
        log_path = self.folder / f"{game_id}.json"
        why = file_refusal(log_path)
        if why is None and os.lstat(log_path).st_size > LIMITS.file_bytes:
            why = f"it is larger than {LIMITS.file_bytes:,} bytes"
        if why is not None:
            raise ValueError(f"not reading its log '{log_path.name}': {why}")
        record = read_log(str(log_path))
        if record.game != self.rules.title or record.rules_digest != self.rules.digest:
            raise ValueError(f"its log is a game of other rules ({record.game}, digest {record.rules_digest})")
        agents = [web_agent(name) for name in record.agents or []]
        if len(agents) != record.players or len(tokens) != record.players:
            raise ValueError("its seats do not match its log")
        game = logged_game(self.rules, record)
        replay_steps(game, record)
        header = log_header(self.rules, self.rules_path, record.path, record.players, record.seed,
                            record.options, agents, game.generator)
        # the steps as the log needs them: a step's other keys (nested to any depth) are not kept
        steps = [{key: step[key] for key in ("player", "action", "digest") if key in step} for step in record.steps]
        writer = LogWriter(record.path, header, steps, game, interval=WHEN_TOLD, mode=0o600)
        writer.save()  # at start, before serving (and made 0600): from now on it saves only when told
        # a version per step, as before the restart: a page still open from then asks for
        # news after its version, and the same version is the same position
        return Table(game_id, game, agents, tokens, writer, version=len(record.steps), warn=self.warn)
