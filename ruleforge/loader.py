"""Reading rules files from disk, and merging a variant (`extends`) over its base."""

from __future__ import annotations

import errno
from pathlib import Path

import attrs

from . import ast, lexical
from .diagnostics import Diagnostic, RulesError
from .limits import LIMITS, describe
from .named_files import RefusedFile, read_bytes, real_path, refusal
from .parser import parse_rules


def load_source(path: str | Path, text: str | None = None) -> tuple[list[ast.Decl], dict[str, str]]:
    """Parse `path` and every file it extends; return the merged declarations and sources.

    `text`, when given, is read as the contents of `path` itself (its bases still come from
    disk, relative to `path`): how a changed copy of a file is checked without writing it.
    The chain of bases is followed in a loop, at most `extends_depth` long, each base checked to
    be a rules file (`named_files.refusal`) before it is read."""
    sources: dict[str, str] = {}
    layers: list[list[ast.Decl]] = []  # each file's own declarations, the file given first
    current, origin = Path(path), None
    seen = {real_path(current): 0}  # real path -> index in `shown`: finds a loop
    shown = [current.name]  # the chain as a loop's message names it
    while True:
        own, ext = _parse_one(current, sources, origin, text)
        text = None
        layers.append(own)
        if ext is None:
            break
        if len(layers) > LIMITS.extends_depth:
            raise RulesError([Diagnostic(ext.pos, f"a chain of more than {LIMITS.extends_depth} 'extends' "
                                         f"({describe('extends_depth')})")], sources)
        written = current.parent / ext.path
        why = refusal(written, ".rules")
        if why is not None:
            raise RulesError([Diagnostic(ext.pos, f"'{ext.path}' is not a rules file: {why}",
                                         "a variant extends a regular file whose name ends in .rules")], sources)
        real = real_path(written)
        shown.append(ext.path if Path(real).name == Path(ext.path).name else f"{ext.path} ({Path(real).name})")
        if real in seen:
            loop = " -> ".join(shown[seen[real]:])
            raise RulesError([Diagnostic(ext.pos, f"'{ext.path}' extends itself through a loop: {loop}")], sources)
        seen[real] = len(shown) - 1
        current, origin = Path(real), ext.pos  # never Path.resolve: a loop of links raises RuntimeError on 3.11
    decls = layers.pop()
    while layers:
        decls = merge_variant(decls, layers.pop(), sources)
    return decls, sources


def _parse_one(path: Path, sources: dict[str, str], origin: ast.Pos | None,
               text: str | None) -> tuple[list[ast.Decl], ast.ExtendsDecl | None]:
    """One file of a chain: its own declarations and its `extends`, if any (at most one; a
    file that extends none may not `extend scoring`)."""
    if text is None:
        text = _read(path, sources, origin)
    else:
        text = sources[str(path)] = lexical.normalize(text)
    rules = parse_rules(text, str(path))
    _refuse_repeated_headers(rules.decls, sources)
    extends = [d for d in rules.decls if isinstance(d, ast.ExtendsDecl)]
    own = [d for d in rules.decls if not isinstance(d, ast.ExtendsDecl)]
    if len(extends) > 1:
        raise RulesError([Diagnostic(extends[1].pos, "a rules file may extend only one base")], sources)
    if not extends:
        added = [d for d in own if isinstance(d, ast.ExtendScoringDecl)]
        if added:
            raise RulesError([Diagnostic(d.pos, f"'extend scoring {d.name}' is for a variant: "
                                         "this file extends no base", "add the items to the scoring itself")
                              for d in added], sources)
    return own, (extends[0] if extends else None)


def read_rules_text(path: str | Path) -> str:
    """The text of one rules file, as the parser reads it; every way of failing (no file, a
    named pipe, bytes that are not text) is a RulesError naming the file."""
    return _read(Path(path), {}, None)


def _read(path: Path, sources: dict[str, str], origin: ast.Pos | None) -> str:
    """The text of `path`, decoded (UTF-8, or UTF-16/32 with a byte-order mark) and with its
    line ends made '\n'. A file that cannot be decoded is reported at the first bad byte."""
    where = origin or ast.Pos(str(path), 0, 0)
    try:
        # Every rules file is read under the rule of `named_files`, a base as a file named on the
        # command line: a link named x.rules must lead to a regular .rules file (not to a secret a
        # syntax error would quote, not to /proc), a pipe is never waited on, the size is bounded.
        # A file named on the command line may be called anything (`ruleforge check notes.txt`).
        named_as = ".rules" if origin is not None or path.name.endswith(".rules") else ""
        data = read_bytes(path, named_as, "rules file")
    except RefusedFile as err:
        raise RulesError([Diagnostic(where, str(err))], sources) from None
    except OSError as err:
        reason = "its symbolic links make a loop" if err.errno == errno.ELOOP else err.strerror or str(err)
        raise RulesError([Diagnostic(where, f"cannot read rules file '{path}': {reason}")], sources) from None
    try:
        text = lexical.decode(data)
    except lexical.UndecodableFile as err:
        sources[str(path)] = err.text  # shown with U+FFFD where the bytes could not be read
        where = ast.Pos(str(path), err.line, err.column, err.line, err.column + 1)
        raise RulesError([Diagnostic(where, f"cannot read rules file '{path}': {err.message}",
                                     err.hint)],
                         sources) from None
    sources[str(path)] = text
    return text


_HEADERS = {ast.GameDecl: "game", ast.PlayersDecl: "players"}


def _refuse_repeated_headers(decls: list[ast.Decl], sources: dict[str, str]) -> None:
    """A file says once what its game is called and for how many players: a second
    `game` or `players` line is a mistake, not a change (a variant states its own instead)."""
    first: dict[type, ast.Decl] = {}
    errors = []
    for decl in decls:
        kind = type(decl)
        if kind not in _HEADERS:
            continue
        if kind in first:
            errors.append(Diagnostic(decl.pos, f"a second '{_HEADERS[kind]}' declaration",
                                     f"the first is at line {first[kind].pos.line}; keep one"))
        else:
            first[kind] = decl
    if errors:
        raise RulesError(errors, sources)


_REMOVABLE = {
    "enum": "EnumDecl", "kind": "KindDecl", "zone": "ZoneDecl", "var": "VarDecl", "def": "DefDecl",
    "phase": "PhaseDecl", "action": "ActionDecl", "scoring": "ScoringDecl", "option": "OptionDecl",
    "measure": "MeasureDecl", "display": "DisplayDecl", "palette": "ColourDecl",
}


def merge_variant(base: list[ast.Decl], overlay: list[ast.Decl], sources: dict[str, str]) -> list[ast.Decl]:
    """Apply a variant: new declarations are added, `replace` swaps one, `remove` drops one,
    `extend scoring` adds items to one.

    A variant that declares something the base already has, without `replace`, is an error:
    silent shadowing is how variants drift from their base.
    """
    merged = list(base)
    index = {d.key: i for i, d in enumerate(merged)}
    errors: list[Diagnostic] = []
    removed: set[int] = set()
    for decl in overlay:
        if isinstance(decl, ast.RemoveDecl):
            key = (_REMOVABLE.get(decl.kind, decl.kind), decl.name)
            if key not in index:
                errors.append(Diagnostic(decl.pos, f"cannot remove {decl.kind} '{decl.name}': the base has none"))
            else:
                removed.add(index[key])
        elif isinstance(decl, ast.ReplaceDecl):
            inner = decl.decl
            if inner.key not in index:
                what = _what(inner)
                errors.append(Diagnostic(decl.pos, f"cannot replace '{what}': the base has none",
                                         "declare it without 'replace' to add it"))
            else:
                merged[index[inner.key]] = inner
        elif isinstance(decl, ast.ExtendScoringDecl):
            key = ("ScoringDecl", decl.name)
            old = merged[index[key]] if key in index and index[key] not in removed else None
            if old is None:
                errors.append(Diagnostic(decl.pos, f"cannot extend scoring '{decl.name}': the base has none",
                                         "declare it without 'extend' to add a scoring"))
            elif old.player != decl.player:
                errors.append(Diagnostic(decl.pos, f"the base's scoring '{decl.name}' calls its player "
                                         f"'{old.player}', not '{decl.player}'",
                                         f"write 'extend scoring {decl.name} for {old.player}'"))
            else:  # the new items come after the base's (inside a `best` choice, if it has one)
                merged[index[key]] = attrs.evolve(old, items=old.items + decl.items)
        elif isinstance(decl, ast.ComponentsDecl) and decl.key in index:
            # A variant's components block adds to the base's components.
            i = index[decl.key]
            old = merged[i]
            merged[i] = ast.ComponentsDecl(old.pos, old.entries + decl.entries)
        elif decl.key in index and decl.key[0] not in ("GameDecl",):
            errors.append(Diagnostic(decl.pos, f"'{_what(decl)}' is already declared by the base",
                                     "write 'replace' before it to change it"))
        else:
            if decl.key in index:
                merged[index[decl.key]] = decl
            else:
                index[decl.key] = len(merged)
                merged.append(decl)
    if errors:
        raise RulesError(errors, sources)
    return [d for i, d in enumerate(merged) if i not in removed]


def _what(decl: ast.Decl) -> str:
    """A declaration as a variant's error names it: `display Tile` (not the kind's own name)."""
    if isinstance(decl, ast.DisplayDecl):
        return f"display {decl.kind}"
    return decl.key[1] or decl.key[0]
