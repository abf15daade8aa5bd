"""`ruleforge fmt`: write rules files in the one canonical layout (ruleforge/formatter/).

Files are rewritten in place, each atomically and keeping its permissions; `--check` and
`--diff` change nothing. A folder stands for every `*.rules` file under it, and `-` for the
standard input, formatted to the standard output (for editors).
"""

from __future__ import annotations

import difflib
import os
import stat
import sys
from pathlib import Path

import click

from ..diagnostics import RulesError
from ..formatter import FormatterBug, format_text
from ..inert import inert
from ..loader import read_rules_text
from .common import echo, echo_rules_error, guarded, write_atomic


@click.command("fmt")
@click.argument("files", nargs=-1, required=True)
@click.option("--check", is_flag=True,
              help="Change nothing: name each file that is not formatted, and exit with status 1 if any is not.")
@click.option("--diff", "show_diff", is_flag=True, help="Change nothing: show what formatting would change, as a diff.")
@guarded
def fmt(files: tuple[str, ...], check: bool, show_diff: bool) -> None:
    """Format rules files: one layout for everyone, comments kept where they were.

    Only white space changes (the formatted file has the same tokens, which is checked before
    anything is written). A folder stands for every .rules file in it; - reads the standard
    input and writes the formatted text to the standard output.
    """
    paths = _expand(files)
    changed = failed = 0
    for path in paths:
        try:
            before = sys.stdin.read() if path == "-" else read_rules_text(path)
            after = format_text(before, "<stdin>" if path == "-" else path)
        except RulesError as err:
            echo_rules_error(err)
            failed += 1
            continue
        except FormatterBug as err:
            echo(f"error: {err} (a bug in ruleforge: please report it, with the file)", err=True)
            failed += 1
            continue
        if path == "-" and not (check or show_diff):
            _write_stdout(after)
            continue
        if after == before:
            continue
        changed += 1
        if show_diff:
            echo("".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                              path, f"{path} (formatted)")), nl=False)
        elif check:
            echo(f"would format {path}")
        else:
            mode = stat.S_IMODE(os.stat(path).st_mode)
            write_atomic(path, after, "the formatted rules file", mode=mode)
            echo(f"formatted {path}")
    _summary(len(paths), changed, failed, dry=check or show_diff, to_stdout=paths == ["-"])
    if failed or (check and changed):
        raise click.exceptions.Exit(1)


def _expand(files: tuple[str, ...]) -> list[str]:
    """The files named, a folder as the .rules files under it (in order: every one is read under
    the rule of `named_files`, so a link found there that leads to a secret is refused by name)."""
    paths: list[str] = []
    for name in files:
        if name != "-" and Path(name).is_dir():
            inside = sorted(str(p) for p in Path(name).rglob("*.rules") if not p.is_dir())
            if not inside:
                echo(f"warning: no .rules file in the folder {inert(name)}", err=True)
            paths.extend(inside)
        else:
            paths.append(name)
    if paths.count("-") > 1:
        raise click.UsageError("- (the standard input) can be given once")
    return paths


def _write_stdout(text: str) -> None:
    """The formatted text exactly, for a program reading it; on a terminal, with its control
    characters made visible (a stranger's file may hold some in a string or a comment)."""
    sys.stdout.write(inert(text) if sys.stdout.isatty() else text)
    sys.stdout.flush()


def _summary(total: int, changed: int, failed: int, dry: bool, to_stdout: bool) -> None:
    """One line saying what was done."""
    if to_stdout and not dry:
        return
    done = "would be formatted" if dry else "formatted"
    parts = [f"{changed} of {total} file(s) {done}" if changed else f"{total - failed} file(s) already formatted"]
    if failed:
        parts.append(f"{failed} could not be read or parsed")
    echo(", ".join(parts), err=to_stdout)  # with `-`, the standard output is the formatted text
