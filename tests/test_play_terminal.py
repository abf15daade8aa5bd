"""`ruleforge play` as a person meets it: answers piped on stdin, then a real pseudo-terminal,
then (where tmux is installed) a tmux pane whose screen is captured, a grid drawn on it and a
large decision chosen step by step."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
TILES = "tests/synthetic/tile_grid.rules"
# seed 0: P1 holds a Lake and a Forest; P1's first decision has 18 legal actions
COMMAND = [sys.executable, "-m", "ruleforge", "play", TILES, "--agents", "human,random", "--seed", "0"]
STEPS = ["1", "2", "3", "2"]  # place, Forest, 3,4, flipped
BOARD_HEAD = re.compile(r"board\(P1\) \(5 by 5; rows 2-4, columns 2-4 shown\)")
FIRST_PROMPT = "P1 [1-3, b, l, ?]> "
# what each answer leads to
SHOWN_AFTER = ["which one (from hand)? ", "which cell (on board)? ", "yes or no? ", "P1: place Forest"]
DEADLINE = 30.0


def environment() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    for name in ("COLUMNS", "LINES", "RULEFORGE_DEBUG"):
        env.pop(name, None)
    return env


def check_first_screen(screen: str) -> None:
    """The grid drawn with its numbers and start tile, then the first step of the chooser."""
    assert BOARD_HEAD.search(screen), screen
    assert re.search(r"│ 3 │ · │ Hill │ · │", screen), screen
    assert "  1. place: 16 options, e.g. place Lake at 2,3" in screen, screen
    assert "P1 [1-3, b, l, ?]> " in screen, screen


def check_played(screen: str) -> None:
    assert "place Forest board(P1)[3,4]: yes or no? (2 actions left)" in screen, screen
    assert "  2. yes: place Forest at 3,4 flipped" in screen, screen
    assert "P1: place Forest at 3,4 flipped" in screen, screen
    assert "│ 3 │ · │ Hill │ Forest (flipped) │" in screen, screen


def test_play_with_answers_piped() -> None:
    answers = "\n".join(STEPS + ["pass"] * 3) + "\n"
    proc = subprocess.run(COMMAND, cwd=ROOT, env=environment(), input=answers, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    check_first_screen(proc.stdout)
    check_played(proc.stdout)
    assert re.search(r"final scores after 8 decisions", proc.stdout), proc.stdout
    # the position the game ended in, as P1 sees it, between the last move and the scores
    end = proc.stdout[proc.stdout.rindex("final position:"):]
    assert end.index("--- P1 sees (Tile grid) ---") < end.index("final scores after 8 decisions"), end
    assert "Forest (flipped)" in end.split("final scores")[0], end


def test_play_piped_without_agents_seats_no_person() -> None:
    command = [sys.executable, "-m", "ruleforge", "play", TILES, "--seed", "3"]
    proc = subprocess.run(command, cwd=ROOT, env=environment(), input="", capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "choose an action" not in proc.stdout and "you are P1" not in proc.stdout
    assert "final position:\n--- spectator sees (Tile grid) ---" in proc.stdout  # no person: a spectator's view
    assert "final scores after 8 decisions" in proc.stdout
    shown = subprocess.run([*command[:3], "play", "--help"], cwd=ROOT, env=environment(), capture_output=True,
                           text=True, timeout=60).stdout
    assert "you play P1 against random agents when this runs at a terminal" in " ".join(shown.split())


class Terminal:
    """What a program in a pseudo-terminal has written, read up to a text within the deadline."""

    def __init__(self, master: int):
        self.master = master
        self.seen = ""

    def read_until(self, pattern: str, times: int = 1) -> str:
        end = time.monotonic() + DEADLINE
        while self.seen.count(pattern) < times:
            left = end - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.seen}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the other end closed
                    chunk = b""
                assert chunk, f"the game ended before {pattern!r}:\n{self.seen}"
                self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.seen


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_in_a_pseudo_terminal() -> None:
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 110, 0, 0))
    proc = subprocess.Popen(COMMAND, cwd=ROOT, env=environment(), stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True)
    os.close(slave)
    read_until = Terminal(master).read_until

    try:
        check_first_screen(read_until(FIRST_PROMPT))
        for answer, shown in zip(STEPS, SHOWN_AFTER):
            os.write(master, (answer + "\n").encode())
            read_until(shown)
        check_played(read_until(FIRST_PROMPT, 2))  # the next decision's first step
        os.write(master, b"\x04")  # end of input: the game is abandoned, saying how to go on
        proc.wait(timeout=DEADLINE)
        assert proc.returncode == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_at_a_terminal_without_agents_seats_a_person_at_p1() -> None:
    import pty

    master, slave = pty.openpty()
    command = [sys.executable, "-m", "ruleforge", "play", TILES, "--seed", "3"]
    proc = subprocess.Popen(command, cwd=ROOT, env=environment(), stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True)
    os.close(slave)
    try:
        seen = Terminal(master).read_until(FIRST_PROMPT)
        assert "you are P1; P2 random (--agents chooses who plays each seat)" in seen, seen
        assert "P1, choose an action:" in seen, seen
        os.write(master, b"\x04")  # end of input: the game is abandoned
        proc.wait(timeout=DEADLINE)
        assert proc.returncode == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


TMUX = shutil.which("tmux")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_play_in_tmux() -> None:
    """The screen a person sees in a real terminal: captured from a tmux pane."""
    socket = f"ruleforge-test-{os.getpid()}"
    tmux = [TMUX, "-L", socket, "-f", os.devnull]
    shell_command = " ".join([*(f"{k}={v}" for k, v in (("PYTHONPATH", ROOT), ("NO_COLOR", "1"))),
                              *COMMAND, ";", "sleep", "60"])
    env = environment()
    env.pop("TMUX", None)  # a test run inside tmux still starts its own server

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-400", "-t", "play"], env=env,
                              capture_output=True, text=True, check=True).stdout

    def wait_for(text: str, times: int = 1) -> str:
        end = time.monotonic() + DEADLINE
        while True:
            shown = screen()
            if shown.count(text) >= times:
                return shown
            assert time.monotonic() < end, f"no {text!r} on the screen:\n{shown}"
            time.sleep(0.1)

    subprocess.run([*tmux, "new-session", "-d", "-s", "play", "-x", "110", "-y", "50", "-c", str(ROOT),
                    shell_command], env=env, check=True)
    try:
        check_first_screen(wait_for(FIRST_PROMPT))
        for answer, shown in zip(STEPS, SHOWN_AFTER):
            subprocess.run([*tmux, "send-keys", "-t", "play", answer, "Enter"], env=env, check=True)
            wait_for(shown)
        final = wait_for(FIRST_PROMPT, 2)  # the next decision's first step
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)
    check_played(final)
