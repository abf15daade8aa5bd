"""Load on `ruleforge serve` over loopback: many games at once, one person's seat in each driven
by a client, the other seats random bots; the latency of every action a person sends.

Starts `python -m ruleforge serve RULES --port 0` in a new games folder (or uses --url, a host
page's address of a server already running), creates --games games from the host page, then
drives them all concurrently (asyncio and httpx2): in each game the client plays seat P1 with
random legal actions (`POST /api/seat/<token>/act`), waiting for the bots by long polling as a
page does, to the end of the game or --actions actions. Prints one table: actions sent, games
finished, the latency of the actions (median, p90, p99, max) and the wall time.

    python bench/load_serve.py                       # 20 games of Naishi, to the end
    python bench/load_serve.py --games 50 --actions 40 --rules games/nakasendo.rules
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import os
import queue
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
SERVING = re.compile(r"^serving (?P<title>.+) at (?P<url>http://\S+/)$")
HOST_PAGE = re.compile(r"^host page \(.*\): (?P<url>http://\S+/host/\S+)$")
SEAT_LINK = re.compile(r'class="rf-seat-link" href="(?P<url>[^"]+)"')


class ServeError(Exception):
    """The server did not start, or a game did not go as it should."""


class ServeProcess:
    """`python -m ruleforge serve RULES --port 0 --games FOLDER` as a child process (or on a given
    port, as a restarted server on its former one): started,
    its printed addresses read with a deadline, and stopped (terminate, then kill after a
    deadline) whatever happens. Its output is kept in `lines`."""

    def __init__(self, rules: str, games: Path, *, port: int = 0, start_within: float = 60.0):
        self.rules = rules
        self.port = port
        self.games = Path(games)
        self.start_within = start_within
        self.proc: subprocess.Popen[str] | None = None
        self.lines: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.base = self.host = self.title = ""

    def start(self) -> ServeProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ruleforge", "serve", self.rules, "--port", str(self.port), "--games",
             str(self.games)],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        deadline = time.monotonic() + self.start_within
        while not (self.base and self.host):
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise ServeError(f"the server printed no addresses within {self.start_within:.0f} s:\n"
                                 + "\n".join(self.lines))
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.stop()
                raise ServeError("the server ended before it printed its addresses:\n" + "\n".join(self.lines))
            if found := SERVING.match(line):
                self.title, self.base = found["title"], found["url"]
            elif found := HOST_PAGE.match(line):
                self.host = found["url"]
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line.rstrip("\n"))
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def stop(self, within: float = 10.0) -> int | None:
        """Terminate (uvicorn shuts down gracefully), kill the group past `within` seconds."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(within)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(within)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # anything the server started, were there any
        return proc.returncode

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def seat_links(host_page: str, game_id: str) -> list[str]:
    """The seat links of one game, in seat order, as the host page lists them."""
    start = host_page.find(f'id="game-{game_id}"')
    if start < 0:
        raise ServeError(f"the host page does not list game {game_id}")
    end = host_page.find("</article>", start)
    return [html.unescape(m["url"]) for m in SEAT_LINK.finditer(host_page, start, end)]


def create_game(client: httpx2.Client, host: str, players: int, seed: int | None, agents: list[str],
                options: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """A game made by the host page's form: its id and its seats' links."""
    form = {"players": str(players), "seed": "" if seed is None else str(seed),
            **{f"seat{k}": agent for k, agent in enumerate(agents)}, **(options or {})}
    made = client.post(host + "/games", data=form, follow_redirects=False)
    if made.status_code != 303:
        raise ServeError(f"the host page refused the game: {made.status_code} {made.text[:300]}")
    game_id = made.headers["location"].rsplit("#game-", 1)[1]
    return game_id, seat_links(client.get(host).text, game_id)


def api_of(seat_link: str) -> str:
    base, token = seat_link.rsplit("/seat/", 1)
    return f"{base}/api/seat/{token}"


async def drive(client: httpx2.AsyncClient, seat_link: str, most_actions: int, rng: random.Random,
                latencies: list[float], deadline: float) -> dict[str, Any]:
    """Play one seat with random legal actions until the game ends or `most_actions` were sent."""
    api = api_of(seat_link)
    answer = await client.get(api)
    statuses = [answer.status_code]
    state = answer.json()
    sent = 0
    while not state["over"] and sent < most_actions:
        if time.monotonic() > deadline:
            raise ServeError(f"past the deadline with {sent} actions sent in game {seat_link}")
        if state.get("failure"):
            raise ServeError(f"the game stopped: {state['failure']}")
        if state["your_turn"]:
            label = rng.choice(state["actions"])["label"]
            began = time.perf_counter()
            answer = await client.post(api + "/act", json={"action": label})
            latencies.append(time.perf_counter() - began)
            sent += 1
        else:  # the bots are playing: wait for news as a page does
            answer = await client.get(api, params={"after": state["version"]})
        statuses.append(answer.status_code)
        if answer.status_code != 200:
            raise ServeError(f"{answer.status_code} from {api}: {answer.text[:300]}")
        state = answer.json()
    return {"sent": sent, "over": state["over"], "statuses": statuses, "version": state["version"]}


async def drive_all(links: list[str], most_actions: int, seed: int, within: float) -> tuple[list[dict], list[float]]:
    latencies: list[float] = []
    deadline = time.monotonic() + within
    limits = httpx2.Limits(max_connections=2 * len(links) + 10, max_keepalive_connections=2 * len(links) + 10)
    async with httpx2.AsyncClient(timeout=60.0, limits=limits) as client:
        runs = [drive(client, link, most_actions, random.Random(seed * 1000 + k), latencies, deadline)
                for k, link in enumerate(links)]
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout=within + 5)
    return results, latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_load(host: str, rules_title: str, games: int, most_actions: int, players: int, seed: int,
             within: float) -> dict[str, Any]:
    """Create the games on the server whose host page is `host` and drive them all; the figures."""
    with httpx2.Client(timeout=30.0) as client:
        links = [create_game(client, host, players, seed + k, ["human"] + ["random"] * (players - 1))[1][0]
                 for k in range(games)]
    began = time.perf_counter()
    results, latencies = asyncio.run(drive_all(links, most_actions, seed, within))
    wall = time.perf_counter() - began
    ms = [1000 * s for s in latencies] or [0.0]
    return {"game": rules_title, "games": games, "players": players, "actions": len(latencies),
            "finished": sum(r["over"] for r in results), "results": results, "wall_s": wall,
            "median_ms": statistics.median(ms), "p90_ms": percentile(ms, 0.90), "p99_ms": percentile(ms, 0.99),
            "max_ms": max(ms)}


def table(figures: dict[str, Any]) -> str:
    head = ("game", "games", "actions", "finished", "median ms", "p90 ms", "p99 ms", "max ms", "wall s")
    row = (figures["game"], figures["games"], figures["actions"], figures["finished"],
           f"{figures['median_ms']:.1f}", f"{figures['p90_ms']:.1f}", f"{figures['p99_ms']:.1f}",
           f"{figures['max_ms']:.1f}", f"{figures['wall_s']:.1f}")
    widths = [max(len(str(a)), len(str(b))) for a, b in zip(head, row)]
    return "\n".join("  ".join(str(x).rjust(w) for x, w in zip(line, widths)) for line in (head, row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="games/naishi.rules", help="the rules file served (from the repository)")
    parser.add_argument("--games", type=int, default=20, help="games played at once (default 20)")
    parser.add_argument("--actions", type=int, default=1000, help="most actions the client sends per game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--within", type=float, default=300.0, help="seconds before the run fails (default 300)")
    parser.add_argument("--url", help="the host page of a server already running (else one is started)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.actions < 1:
        parser.error("--games and --actions must be at least 1")
    try:
        if args.url:
            figures = run_load(args.url, args.rules, args.games, args.actions, args.players, args.seed, args.within)
        else:
            with tempfile.TemporaryDirectory() as folder, ServeProcess(args.rules, Path(folder) / "games") as server:
                figures = run_load(server.host, server.title, args.games, args.actions, args.players, args.seed,
                                   args.within)
    except (ServeError, httpx2.HTTPError, asyncio.TimeoutError) as err:
        print(f"load_serve: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    print(table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
