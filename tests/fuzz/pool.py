"""The test side of fuzzing: a worker process to run inputs in, and a record of what they did.

Each input is written to a file, then judged by `worker.py` in a subprocess capped at
`RULEFORGE_FUZZ_MEMORY` bytes (default 2 GiB) and a time bound (`TIMEOUTS`; `RULEFORGE_FUZZ_TIMEOUT`
seconds for every kind). The bound counts the worker's own processor time where the system
tells it (Linux's /proc), so that a machine busy with other work does not turn a slow answer
into a "hang"; wall time is bounded too, at `WALL_FACTOR` times the bound.
An input that overruns the time or kills the worker is a failure; the worker is then started
again. Every failing input is kept under `RULEFORGE_FUZZ_FAILURES` (default
`$TMPDIR/ruleforge-fuzz-failures`) with a `.txt` beside it saying what went wrong, so that it
can be reproduced: `python tests/fuzz/reproduce.py FILE`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker.py")
MEMORY = int(os.environ.get("RULEFORGE_FUZZ_MEMORY", str(2 << 30)))
# seconds per input: a rules file may be long (lines repeated thousands of times), a document is read at once
TIMEOUTS = {"rules": 10.0, "state": 5.0, "position": 5.0, "log": 5.0, "harness-check": 5.0}
if "RULEFORGE_FUZZ_TIMEOUT" in os.environ:
    TIMEOUTS = dict.fromkeys(TIMEOUTS, float(os.environ["RULEFORGE_FUZZ_TIMEOUT"]))
FAILURES = Path(os.environ.get("RULEFORGE_FUZZ_FAILURES", Path(tempfile.gettempdir()) / "ruleforge-fuzz-failures"))
WALL_FACTOR = 6  # a worker waiting on nothing (or starved of the processor) stops at last
EXTENSIONS = {"rules": ".rules", "state": ".json", "position": ".json", "log": ".json", "harness-check": ".txt"}


@dataclass(frozen=True)
class Verdict:
    verdict: str  # "ok", "clear" or "failure"
    key: str = ""
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.verdict == "failure"


class Worker:
    """One worker process, started on first use and again after it dies or hangs."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr: IO[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.pop("RULEFORGE_DEBUG", None)
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, str(WORKER), str(MEMORY)], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        return self.proc

    def stop(self) -> None:
        """End this worker (our own child, by its handle) and wait for it."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].decode(errors="replace")

    def judge(self, job: dict[str, str], timeout: float | None = None) -> Verdict:
        timeout = timeout or TIMEOUTS[job["kind"]]
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write((json.dumps(job) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            return self._died(proc)
        if not _answered(proc, timeout):
            self.stop()
            return Verdict("failure", f"timeout ({timeout:g} s) on {job['kind']}", "")
        line = proc.stdout.readline()
        if not line:
            return self._died(proc)
        return Verdict(**json.loads(line))

    def _died(self, proc: subprocess.Popen[bytes]) -> Verdict:
        code = proc.wait()
        self.proc = None
        return Verdict("failure", f"worker died (exit {code})", self._stderr_tail())


def _cpu_seconds(pid: int) -> float | None:
    """The processor time a process has used (user and system), or None where /proc is not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _answered(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the worker's answer until it has used `timeout` seconds of processor time (of
    wall time where that cannot be read), and at most WALL_FACTOR times that of wall time."""
    start_cpu, start = _cpu_seconds(proc.pid), time.monotonic()
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            if sel.select(min(0.5, timeout)):
                return True
            waited = time.monotonic() - start
            cpu = _cpu_seconds(proc.pid)
            used = waited if start_cpu is None or cpu is None else cpu - start_cpu
            if used >= timeout or waited >= WALL_FACTOR * timeout:
                return False


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:60] or "failure"


@dataclass
class Record:
    """Inputs tried and failures found, by kind of input; failures are kept on disk."""

    tried: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[Path]] = field(default_factory=dict)  # failure key -> inputs kept

    def keep(self, kind: str, text: str | bytes, verdict: Verdict, game: str = "") -> Path:
        data = text.encode() if isinstance(text, str) else text
        digest = hashlib.sha256(data).hexdigest()[:12]
        FAILURES.mkdir(parents=True, exist_ok=True)
        prefix = f"{game}-" if game else ""
        path = FAILURES / f"{kind}-{prefix}{slug(verdict.key)}-{digest}{EXTENSIONS[kind]}"
        path.write_bytes(data)
        path.with_suffix(".txt").write_text(f"kind: {kind}\ngame: {game}\nfailure: {verdict.key}\n\n{verdict.detail}\n")
        self.failures.setdefault(f"{kind}: {verdict.key}", []).append(path)
        return path

    def summary(self) -> list[str]:
        lines = [f"inputs tried: {sum(self.tried.values())} ("
                 + ", ".join(f"{k} {n}" for k, n in sorted(self.tried.items())) + ")",
                 f"failures found: {sum(len(v) for v in self.failures.values())}, "
                 f"{len(self.failures)} distinct (kept in {FAILURES})"]
        for key, paths in sorted(self.failures.items()):
            lines.append(f"  {len(paths):5d}  {key}   e.g. {min(paths, key=lambda p: p.stat().st_size)}")
        return lines


RECORD = Record()
