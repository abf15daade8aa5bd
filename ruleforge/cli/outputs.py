"""The files a command writes, checked before any game is played: each can be written, none is
a file the command reads, no two are the same, and none replaces a file ruleforge did not write.

A log, a state, a records file, a report or a picture written earlier by ruleforge is replaced without a
question (running a command again is how it is brought up to date); anything else found at
that path is a user's file, and is left alone with an error naming it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..diagnostics import GameError
from .common import check_writable, fail, read_json

HEAD_BYTES = 4096  # how much of an existing file is read to recognise it

# What the beginning of each kind of file ruleforge writes looks like.
OURS = {
    "log": re.compile(r'^\s*\{.*?"format"\s*:\s*"ruleforge-log/', re.S),
    "state": re.compile(r'^\s*\{.*?"format"\s*:\s*"ruleforge-state/', re.S),
    "records file": re.compile(r'^\{"game":\d+,"seed":'),
    "report": re.compile(r"^<!DOCTYPE html>\s*<html[^>]*><head>.*?<title>[^<]*: balance report</title>", re.S),
    "picture": re.compile(r"^(?:<!DOCTYPE html>|<\?xml[^>]*\?>)\s*<!-- ruleforge view: "),  # ruleforge view's
}


def same_file(a: str | Path, b: str | Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def written_by_ruleforge(path: str | Path, what: str) -> bool:
    """Whether the file at `path` is empty, or a `what` as ruleforge writes it (from its start)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return True  # nothing readable to lose; check_writable reports a path that cannot be written
    if not head.strip():
        return True
    if OURS[what].match(head.decode("utf-8", errors="replace")):
        return True
    if what in ("log", "state"):  # edited by hand, its keys in another order: read it whole
        try:
            data = read_json(path, what)
        except GameError:
            return False
        return isinstance(data, dict) and str(data.get("format", "")).startswith(f"ruleforge-{what}/")
    return False


def check_outputs(outputs: Iterable[tuple[str | None, str, str]],
                  inputs: Iterable[tuple[str | Path, str]]) -> None:
    """Stop before any work if an output (path, what, flag) cannot or must not be written.

    `inputs` (path, what) are the files the command reads: the rules and the files they extend, ..."""
    chosen = [(path, what, flag) for path, what, flag in outputs if path is not None]
    inputs = list(inputs)
    for k, (path, what, flag) in enumerate(chosen):
        for source, kind in inputs:
            if same_file(path, source):
                fail(f"the {what} '{path}' would overwrite the {kind} '{source}'")
        for other_path, _, other_flag in chosen[:k]:
            if same_file(path, other_path):
                fail(f"{other_flag} and {flag} name the same file '{path}'")
        check_writable(path, what)
        if Path(path).is_file() and not written_by_ruleforge(path, what):
            fail(f"{flag} '{path}': the file exists and is not a {what} written by ruleforge; it is left "
                 f"as it is (remove it, or choose another name)")
