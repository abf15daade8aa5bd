"""`--test-command CMD`: the author's own test command run against each mutant.

Each worker gets its own copy of the working folder (without `.git` and caches), made once; a
mutant is written over the rules file in that copy, CMD runs there, and the original text goes
back. The user's own files are never written, and the copies are removed on every way out,
Ctrl-C included. Workers are threads: the work is in the commands' processes.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..diagnostics import GameError
from .mutants import Mutant
from .runner import Result, Settings, checked, hint

_IGNORED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache",
                                  ".hypothesis", ".tox", ".venv", "node_modules")


class Workspace:
    """Copies of the working folder, one per worker, and the rules file's place inside them."""

    def __init__(self, rules_path: str, jobs: int):
        here = Path.cwd().resolve()
        try:
            self.relative = Path(rules_path).resolve().relative_to(here)
        except ValueError:
            raise GameError(f"--test-command: the rules file '{rules_path}' must be inside the current "
                            f"folder ({here}), which is copied for each worker") from None
        self.root = Path(tempfile.mkdtemp(prefix="ruleforge-mutate-"))
        self.free: queue.Queue[Path] = queue.Queue()
        self.running: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        try:
            for k in range(jobs):
                copy = self.root / f"worker{k + 1}"
                shutil.copytree(here, copy, ignore=self._ignored, symlinks=True)
                self.free.put(copy)
        except (OSError, shutil.Error) as err:
            self.close()
            first = err.args[0][0][-1] if isinstance(err, shutil.Error) and err.args and err.args[0] else err
            raise GameError(f"--test-command: cannot copy the current folder ({here}): {first}") from None
        except BaseException:
            self.close()
            raise

    def _ignored(self, folder: str, names: list[str]) -> set[str]:
        """What is not copied: `.git` and caches, and the copies themselves (the temporary
        folder may be inside the current one)."""
        skipped = set(_IGNORED(folder, names))
        skipped.update(n for n in names if (Path(folder) / n).resolve() == self.root.resolve())
        return skipped

    def stop(self) -> None:
        """Kill every command still running."""
        with self.lock:
            for proc in list(self.running):
                _kill(proc)

    def close(self) -> None:
        """Stop every command still running and remove the copies."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    @contextlib.contextmanager
    def copy(self) -> Iterator[Path]:
        folder = self.free.get()
        try:
            yield folder
        finally:
            self.free.put(folder)

    def run(self, command: str, text: str, timeout: float) -> tuple[int | None, str]:
        """Run `command` in a free copy with `text` as the rules file: its exit status (None
        when it timed out) and the last line it printed."""
        with self.copy() as folder:
            target = folder / self.relative
            original = target.read_bytes()
            target.write_text(text, encoding="utf-8")
            try:
                return self._run(command, folder, timeout)
            finally:
                target.write_bytes(original)

    def _run(self, command: str, folder: Path, timeout: float) -> tuple[int | None, str]:
        proc = subprocess.Popen(command, shell=True, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, text=True, errors="replace")
        with self.lock:
            self.running.add(proc)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.communicate()
            return None, ""
        finally:
            with self.lock:
                self.running.discard(proc)
        last = next((line.strip() for line in reversed(out.splitlines()) if line.strip()), "")
        return proc.returncode, last


def _kill(proc: subprocess.Popen) -> None:
    """Kill the command and everything it started (its own process group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def command_result(settings: Settings, workspace: Workspace, mutant: Mutant) -> Result:
    """Check the mutant, then run the command on it: exit 0 is a survivor."""
    assert settings.command is not None
    rules = checked(settings, mutant)
    if isinstance(rules, str):
        return Result(mutant, "refused", rules)
    status, last = workspace.run(settings.command, mutant.apply(settings.original), settings.timeout)
    if status is None:
        return Result(mutant, "caught", f"timed out after {settings.timeout:g} s", "timeout")
    if status != 0:
        said = f": {last}" if last else ""
        return Result(mutant, "caught", f"exit status {status}{said}", "tests")
    return Result(mutant, "survived", hint=hint(settings, rules) if settings.hint_seeds else None)


def baseline(workspace: Workspace, settings: Settings, timeout: float) -> tuple[int | None, str]:
    """The command on the original file (it must pass before any mutant means anything)."""
    assert settings.command is not None
    return workspace.run(settings.command, settings.original, timeout)


def command_results(settings: Settings, workspace: Workspace, mutants: list[Mutant], jobs: int) -> Iterator[Result]:
    """Each mutant's result, in the mutants' order, `jobs` commands at a time."""
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        yield from pool.map(lambda m: command_result(settings, workspace, m), mutants)
    finally:
        workspace.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        workspace.close()
