"""Every shell command the docs show runs, exactly as written, so the docs cannot rot.

Commands are read from README.md and docs/*.md (README first, then the docs by name), in the
order they appear:

- in a ```sh, ```bash or ```shell block, every line that starts with `ruleforge `, `python `,
  `pip ` or `sed `, perhaps after environment settings (`RULEFORGE_MAX_ZONES=9 ruleforge check
  ...`); a trailing `# comment` is dropped;
- in a ```console block, every line that starts with `$ ` is a command and the lines after it,
  up to the next `$ ` line or the block's end, are its expected output, compared line by line
  (trailing spaces ignored); a line `...` stands for any lines (none too), `...` in a line for
  any text (where some lines are left out, or a time is shown), and a last line
  `(exit status N)` says the command fails with status N (otherwise it must succeed). Other
  lines of a console block are output or a synopsis with placeholders (`ruleforge score RULES
  POSITION.json`), never run.

They run one after another through `bash -c` in one scratch copy of the repository (later
commands read files earlier ones wrote: `game.json`, `end.json`), with the copy's `ruleforge`
package imported. A block that shows a file (```json file=PATH, ```rules file=PATH) is written
to PATH at its place in the reading order, so a walk-through can show a file change between
two commands (tests/test_docs.py checks the last block showing a file against the file).
`pip install -e '.[dev]' && REST` is not installed again: the install is what `.ci/run` does,
so the test asserts that `.ci/run` runs exactly the README's test command and runs only REST;
`pip install -e . && REST` (a player's install) runs REST too, and tests/test_core_install.py
checks that REST needs none of the extras. A
test command (`python -m pytest ...`, the README's or the long fuzz run's) is never run: it
would run this test again; pytest run on a designer's folder of the docs (`python -m pytest
docs/examples/...`) is. Snapshots and recorded playthroughs such a folder records are removed
from the copy first, so the docs show what a designer's first run shows. A
`--agents` list naming `human` gets scripted answers on stdin (always the first action).
`pip install -e '.[web]' && REST` runs REST (the dev extra holds the web extra). A
`ruleforge serve` command is started as written but on a free port (`--port 0`, so that parallel
runs never collide), and stopped once its front page and host page have answered.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from stopping import GUARD, child

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_TAGS = {"sh", "bash", "shell"}
COMMAND_STARTS = ("ruleforge ", "python ", "pip ", "sed ")
DOCS_PYTEST = "python -m pytest docs/"  # pytest on a designer's folder of the docs: it runs
EXIT_LINE = re.compile(r"^\(exit status (\d+)\)$")
INSTALL = "pip install -e '.[dev]' && "
CORE_INSTALL = "pip install -e . && "  # a player's install: what follows runs with the core packages alone
WEB_INSTALL = "pip install -e '.[web]' && "  # the server's install: in the dev extra already
TEST_COMMAND = "python -m pytest"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
COMMAND_TIMEOUT = 600  # a hang guard only: the slowest command (a bench) takes well under this
HUMAN_ANSWERS = "1\n" * 2000


@dataclass
class DocCommand:
    """One command as the docs show it, with where it is and the output shown under it."""

    where: str
    text: str
    expected: list[str] | None = None  # a console block's output lines, to compare
    write: tuple[str, str] | None = None  # a block showing a file: (path, content) to write there

    @property
    def words(self) -> list[str]:
        return shlex.split(self.text)


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str


def _strip_comment(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line).strip()


ENV_PREFIX = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")  # `RULEFORGE_MAX_X=5 ruleforge ...`


def without_env(text: str) -> str:
    return ENV_PREFIX.sub("", text)


def _shell_commands(doc: str, line_no: int, code: str) -> list[DocCommand]:
    out = []
    for k, line in enumerate(code.splitlines(), 1):
        text = _strip_comment(line)
        if without_env(text).startswith(COMMAND_STARTS):
            out.append(DocCommand(f"{doc}:{line_no + k}", text))
    return out


def _console_commands(doc: str, line_no: int, code: str) -> list[DocCommand]:
    out: list[DocCommand] = []
    for k, line in enumerate(code.splitlines(), 1):
        if line.startswith("$ "):
            out.append(DocCommand(f"{doc}:{line_no + k}", _strip_comment(line[2:]), []))
        elif out:
            out[-1].expected.append(line.rstrip())  # type: ignore[union-attr]
    return out


def doc_commands() -> list[DocCommand]:
    """Every command of README.md and docs/*.md, in reading order."""
    commands: list[DocCommand] = []
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        doc = path.relative_to(ROOT).as_posix()
        for m in FENCE.finditer(text):
            tag = m.group(1).strip().split(" ")[0]
            line_no = text.count("\n", 0, m.start()) + 1
            if tag in SHELL_TAGS:
                commands += _shell_commands(doc, line_no, m.group(2))
            elif tag == "console":
                commands += _console_commands(doc, line_no, m.group(2))
            elif shown := re.search(r"\bfile=(\S+)", m.group(1)):
                path = shown.group(1)
                commands.append(DocCommand(f"{doc}:{line_no}", f"(write {path})", write=(path, m.group(2))))
    return commands


COMMANDS = doc_commands()


def is_bench(command: DocCommand) -> bool:
    return without_env(command.text).startswith("python bench/")


def runnable_part(command: DocCommand) -> str | None:
    """What the test runs of a command: the part after the install, or nothing for the test command."""
    text = command.text
    if command.write is not None:  # done by the session on the way, not a test of its own
        return None
    if text.startswith(INSTALL):
        text = text[len(INSTALL):]
    elif text.startswith(CORE_INSTALL):
        text = text[len(CORE_INSTALL):]
    elif text.startswith(WEB_INSTALL):
        text = text[len(WEB_INSTALL):]
    elif text.startswith("pip "):
        return None
    # the test commands (the README's, the long fuzz run) would run this test again, or take long
    bare = without_env(text)
    return None if bare.startswith(TEST_COMMAND) and not bare.startswith(DOCS_PYTEST) else text


def _copy_repository(dest: Path) -> Path:
    ignore = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache",
                                    ".hypothesis", "*.json.tmp")
    shutil.copytree(ROOT, dest, ignore=ignore)
    # keep the hand-written examples the docs read; drop outputs an earlier run may have left
    for name in ("game.json", "end.json"):
        (dest / name).unlink(missing_ok=True)
    for folder in (dest / "docs" / "examples").glob("*/__snapshots__"):  # a designer's first run makes them
        shutil.rmtree(folder)
    for folder in (dest / "docs" / "examples").glob("*/*.playthroughs"):  # and records them
        shutil.rmtree(folder)
    shutil.rmtree(dest / "trial", ignore_errors=True)  # docs/testing.md copies games/ there
    return dest


@dataclass
class Session:
    """The scratch copy and the results of the commands run so far, in order."""

    root: Path
    results: dict[int, Ran] = field(default_factory=dict)

    def run_through(self, index: int) -> Ran:
        """Run the command at `index`, after the earlier ones not run yet whose files it may read
        (a benchmark writes none: it is left to its own test, so `-m "not bench"` skips it)."""
        for k in range(index):
            if k not in self.results and not is_bench(COMMANDS[k]):
                self.results[k] = self._run(COMMANDS[k])
        if index not in self.results:
            self.results[index] = self._run(COMMANDS[index])
        return self.results[index]

    def _run(self, command: DocCommand) -> Ran:
        if command.write is not None:  # a walk-through's file, as the docs show it at this point
            path, content = command.write
            (self.root / path).write_text(content, encoding="utf-8")
            return Ran(0, "", "")
        text = runnable_part(command)
        if text is None:
            return Ran(0, "", "")  # never asked for: RUNNABLE leaves these out
        env = dict(os.environ, PYTHONPATH=str(self.root), COLUMNS="100", NO_COLOR="1")
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        env.pop("RULEFORGE_DEBUG", None)
        if without_env(text).startswith("ruleforge serve "):
            return _run_server(text, self.root, env)
        stdin = HUMAN_ANSWERS if "human" in text else ""
        proc = subprocess.run(["bash", "-c", text], cwd=self.root, env=env, input=stdin, capture_output=True,
                              text=True, timeout=COMMAND_TIMEOUT)
        return Ran(proc.returncode, proc.stdout, proc.stderr)


def _run_server(text: str, root: Path, env: dict[str, str]) -> Ran:
    """A server as the docs start it, on a free port: its pages fetched, then stopped."""
    words = shlex.split(text)
    if "--port" in words:
        words[words.index("--port") + 1] = "0"
    else:
        words += ["--port", "0"]
    lines: list[str] = []
    with child(["bash", "-c", "exec " + shlex.join(words)], env=env, cwd=root) as proc:
        assert proc.stdout is not None
        while not any(line.startswith("host page") for line in lines):
            line = proc.stdout.readline()  # the server prints its lines at once; a hang is the guard's
            if not line:
                return Ran(proc.wait(timeout=GUARD), "".join(lines), proc.stderr.read() if proc.stderr else "")
            lines.append(line)
        front = re.search(r"at (http://\S+/)$", lines[0].strip())
        host = re.search(r"(http://\S+/host/\S+)$", lines[1].strip())
        assert front and host, lines
        for url in (front.group(1).replace("0.0.0.0", "127.0.0.1"), host.group(1).replace("0.0.0.0", "127.0.0.1")):
            with urllib.request.urlopen(url, timeout=GUARD) as page:
                lines.append(f"GET {url}: {page.status} {page.read().decode()[:200]}\n")
    return Ran(0, "".join(lines), "")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return Session(_copy_repository(tmp_path_factory.mktemp("docs") / "repo"))


# --- what each command must show ----------------------------------------------------------


def option(words: list[str], name: str, default: str | None = None) -> str | None:
    return words[words.index(name) + 1] if name in words else default


def check_check(cmd: DocCommand, ran: Ran, root: Path) -> None:
    for path in cmd.words[2:]:
        assert re.search(rf"^{re.escape(path)}: ok \(\d+(-\d+)? players, ", ran.stdout, re.M), ran.stdout


def check_play(cmd: DocCommand, ran: Ran, root: Path) -> None:
    words = cmd.words
    # a game played to its end; a resumed game that was over already says so first
    assert re.search(r"^(the game in \S+ is over: )?.+[:,] final scores after \d+ decisions$",
                     ran.stdout, re.M), ran.stdout
    assert re.search(r"^Winners?( \(shared\))?: P\d", ran.stdout, re.M), ran.stdout
    players = int(option(words, "--players", "0"))
    if players:
        assert f"P{players}" in ran.stdout
    if "human" in (option(words, "--agents") or ""):
        assert "P1, choose an action:" in ran.stdout  # a person was asked, and answered
    if log := option(words, "--log"):
        data = json.loads((root / log).read_text())
        assert data["format"].startswith("ruleforge-log/")  # its content: `ruleforge replay` reads it back
    if save := option(words, "--save"):
        assert json.loads((root / save).read_text())["format"] == "ruleforge-state/2"


def check_score(cmd: DocCommand, ran: Ran, root: Path) -> None:
    assert re.search(r"^(Winners?|Highest total|Tied on total|Leading)", ran.stdout, re.M), ran.stdout
    if "--explain" in cmd.words:
        assert re.search(r"^│ total\s+│", ran.stdout, re.M), ran.stdout


def check_replay(cmd: DocCommand, ran: Ran, root: Path) -> None:
    assert re.search(r"^replayed [1-9]\d* steps: identical", ran.stdout, re.M), ran.stdout


def check_simulate(cmd: DocCommand, ran: Ran, root: Path) -> None:
    games = option(cmd.words, "-n") or option(cmd.words, "--games") or "1000"
    if "--json" in cmd.words:  # one JSON document: every game requested finished, none failed
        summary = json.loads(ran.stdout)
        assert summary["games"] == int(games) and summary["failed"] == [] and not summary["interrupted"]
        assert len(summary["seats"]) == summary["players"]
        return
    assert re.search(rf"^.+: {games} games, \d+ players", ran.stdout, re.M), ran.stdout
    assert re.search(rf"^games: {games}\s+decisions per game: mean ", ran.stdout, re.M), ran.stdout
    if players := option(cmd.words, "--players"):
        assert f"{players} players" in ran.stdout and f"P{players}" in ran.stdout


def check_compare(cmd: DocCommand, ran: Ran, root: Path) -> None:
    assert re.search(r"^┃ statistic .* verdict +┃$", ran.stdout, re.M), ran.stdout
    last = (r"^\d+ of \d+ statistics changed \(if nothing had changed, about [\d.]+ of them would read "
            r"changed by chance alone\)$")
    assert re.search(last, ran.stdout, re.M), ran.stdout


def check_serve(cmd: DocCommand, ran: Ran, root: Path) -> None:
    assert re.search(r"^serving .+ at http://", ran.stdout, re.M), ran.stdout
    assert re.search(r"^GET http://\S+/host/\S+: 200 <!doctype html>", ran.stdout, re.M), ran.stdout


def check_bench(cmd: DocCommand, ran: Ran, root: Path) -> None:
    assert "ratio" in ran.stdout.lower(), ran.stdout
    assert "DISAGREE" not in ran.stdout


def check_view(cmd: DocCommand, ran: Ran, root: Path) -> None:
    written = re.search(r"^(?:\d+ steps drawn|drawn): (.+)$", ran.stdout, re.M)
    assert written, ran.stdout
    head = (root / written.group(1)).read_text(encoding="utf-8")[:200]
    assert "<!-- ruleforge view: " in head, head


CHECKS = {"check": check_check, "play": check_play, "score": check_score, "replay": check_replay,
          "simulate": check_simulate, "compare": check_compare, "serve": check_serve, "view": check_view}


def check_output(cmd: DocCommand, ran: Ran, root: Path) -> None:
    """What a command of this kind must print; a kind not listed must at least print something."""
    words = without_env(runnable_part(cmd)).split()  # type: ignore[arg-type]
    if words[0] == "ruleforge" and words[1] in CHECKS:
        CHECKS[words[1]](DocCommand(cmd.where, " ".join(words)), ran, root)
    elif words[0] == "python" and words[1].startswith("bench/"):
        check_bench(cmd, ran, root)
    else:
        assert ran.stdout.strip(), f"{cmd.text} printed nothing"


# --- the tests --------------------------------------------------------------------------------


def test_the_docs_show_commands_of_every_kind() -> None:
    """The extraction finds the commands (a broken fence pattern would find none and pass)."""
    texts = [c.text for c in COMMANDS]
    assert INSTALL + TEST_COMMAND + " -n auto" in texts
    for sub in ("check", "play", "score", "replay", "simulate", "compare"):
        assert any(t.startswith(f"ruleforge {sub} ") for t in texts), sub
    assert any(c.expected for c in COMMANDS), "no console block with output was found"


def test_the_extraction_rules() -> None:
    """Which lines of a shell or console block are commands, and what is kept of them."""
    shell = "ruleforge check a.rules   # a comment\nexport X=1\nRULEFORGE_MAX_ZONES=9 ruleforge check b.rules\n"
    assert [c.text for c in _shell_commands("d.md", 1, shell)] == [
        "ruleforge check a.rules", "RULEFORGE_MAX_ZONES=9 ruleforge check b.rules"]
    console = "ruleforge score RULES POSITION.json\n$ ruleforge check a.rules\na.rules: ok\n\n$ python x.py\n"
    commands = _console_commands("d.md", 1, console)
    assert [(c.text, c.expected) for c in commands] == [
        ("ruleforge check a.rules", ["a.rules: ok", ""]), ("python x.py", [])]
    assert runnable_part(DocCommand("d.md", INSTALL + "ruleforge check a.rules")) == "ruleforge check a.rules"
    assert runnable_part(DocCommand("d.md", CORE_INSTALL + "ruleforge check a.rules")) == "ruleforge check a.rules"
    assert runnable_part(DocCommand("d.md", "RULEFORGE_FUZZ_EXAMPLES=9 python -m pytest tests/fuzz")) is None
    assert runnable_part(DocCommand("d.md", "python -m pytest docs/examples/x")) == "python -m pytest docs/examples/x"
    failing = DocCommand("d.md", "ruleforge test x.rules", ["FAIL  a", "", "(exit status 1)", ""])
    assert expected_exit(failing) == (1, ["FAIL  a", ""])
    assert expected_exit(DocCommand("d.md", "ruleforge test x.rules", ["PASS  a"])) == (0, ["PASS  a"])
    assert output_matches(["a", "b", "c", "d"], ["a", "...", "d"])
    assert output_matches(["a", "d"], ["a", "...", "d"])
    assert not output_matches(["a", "b"], ["a", "...", "d"])
    assert output_matches(["26 passed in 0.51s"], ["26 passed in ..."])
    assert not output_matches(["25 passed in 0.51s"], ["26 passed in ..."])


def test_the_readme_first_command_installs_only_the_core() -> None:
    """A player simulates without the dev extra (Ray, matplotlib, hypothesis, ruff)."""
    first = next(c.text for c in COMMANDS if c.where.startswith("README.md"))
    assert first.startswith(CORE_INSTALL + "ruleforge simulate "), first


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    readme_tests = [c.text for c in COMMANDS if c.where.startswith("README.md") and TEST_COMMAND in c.text]
    assert readme_tests == [INSTALL + TEST_COMMAND + " -n auto"]  # on every core (pytest-xdist)
    assert [line for line in ci if "pytest" in line] == readme_tests


RUNNABLE = [
    pytest.param(k, id=f"{c.where} {c.text}", marks=[pytest.mark.bench] if is_bench(c) else [])
    for k, c in enumerate(COMMANDS) if runnable_part(c) is not None
]


def expected_exit(cmd: DocCommand) -> tuple[int, list[str] | None]:
    """The exit status a console block shows (its last line `(exit status N)`; else 0), and
    the output lines without that line."""
    lines = cmd.expected
    while lines and not lines[-1]:
        lines = lines[:-1]
    if lines and (m := EXIT_LINE.match(lines[-1])):
        return int(m.group(1)), lines[:-1]
    return 0, cmd.expected


def output_matches(shown: list[str], expected: list[str]) -> bool:
    """`shown` is `expected`, where a line `...` of `expected` stands for any lines, and `...`
    within a line for any text (`26 passed in ...`: a time)."""
    if not expected:
        return not shown
    if expected[0] == "...":
        return any(output_matches(shown[k:], expected[1:]) for k in range(len(shown) + 1))
    return bool(shown) and _line_matches(shown[0], expected[0]) and output_matches(shown[1:], expected[1:])


def _line_matches(shown: str, expected: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, shown) is not None


@pytest.mark.parametrize("index", RUNNABLE)
def test_doc_command(session: Session, index: int) -> None:
    cmd = COMMANDS[index]
    ran = session.run_through(index)
    status, expected = expected_exit(cmd)
    assert ran.code == status, f"{cmd.where}: `{cmd.text}` exited {ran.code}\n{ran.stdout}\n{ran.stderr}"
    assert "Traceback" not in ran.stderr and "internal error" not in ran.stderr, ran.stderr
    if status == 0:
        check_output(cmd, ran, session.root)
    if expected is not None:
        shown = [line.rstrip() for line in ran.stdout.splitlines()]
        if "..." in expected:
            assert output_matches(shown, expected), f"{cmd.where}: the output differs from the docs:\n{ran.stdout}"
        else:
            assert shown == expected, f"{cmd.where}: the output differs from the docs"
