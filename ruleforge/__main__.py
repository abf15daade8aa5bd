"""`python -m ruleforge`, and the `ruleforge` command (its entry point is `run`).

Ctrl-C at any moment ends a command with one line, `interrupted`, and exit status 130: while
the modules are still being imported (here), while the command is being found and its module
imported (`LazyGroup.invoke`), and while it runs (each command's own handling, `guarded`).
`import ruleforge` imports nothing else, so only Python's own start-up comes before this.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def run() -> None:
    """The command line, with Ctrl-C during start-up one line and status 130, not a traceback."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        interrupted()
    try:
        main(prog_name="ruleforge")
    except KeyboardInterrupt:  # after click's own handling: while it exits, say
        interrupted()


def interrupted() -> None:
    try:
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, KeyboardInterrupt):
        pass
    raise SystemExit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    run()
