"""A person at a prompt: the view drawn for them, and a chooser that stays quick when a
decision has hundreds of legal actions.

A small decision is a numbered list (actions alike but for a `#2` counted once). A large one is
chosen step by step: the action, then each of its parameters in turn, asked as a question from
where its values come from (`which one (from hand)?`), every step offering only the values that
still lead to a legal action (a step with one value is taken without asking). At any prompt a
person may instead type an action's words (`name val 3,4`): a unique match is taken, several
narrow the choice. A flag reads yes/no, as everywhere a person reads one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from . import ast
from .diagnostics import GameError
from .engine import Action, Game, player_name
from .inert import inert
from .screen import render_view, screen_width

STEP_THRESHOLD = 12  # more legal actions than this (alike ones counted once): choose step by step
ALIKE_NOTE = "  (actions alike but for a '#2' in their label count once; l lists each)"
FLAG_WORDS = {"true": "yes", "false": "no"}  # a flag as people read it (docs/language.md, strings)

HELP = """\
  a number      the option of that number
  a value       the option with that text, or the start of it (at a step)
  words         the action whose label has these words, in order (each may be cut short):
                'name val 3,4' finds 'name Value at 3,4'; several matches narrow the choice
  b             back one step (or out of a narrowing, or of the full list)
  l             list every legal action, numbered (then a number picks from that list)
  ?             this help
Below the board: the variables (per-player ones as a table, a column per player) and what was
revealed to you since your last decision. A rules file keeps a bookkeeping variable off this
screen by declaring it `visible nobody` (docs/language.md, var)."""


class AgentAbort(Exception):
    """A human stopped answering (end of input): the game is abandoned, not an error in it."""


class Back(Exception):
    """The person asked to go back one step."""


def words_match(text: str, labels: list[str]) -> list[int]:
    """The labels a typed text designates: the label itself (any case), else every label that
    starts with the text or whose words include the typed words in order, each typed word
    being the start of a label word."""
    typed = text.casefold().split()
    if not typed:
        return []
    folded = [label.casefold() for label in labels]
    joined = " ".join(typed)
    exact = [i for i, label in enumerate(folded) if label == joined]
    if exact:
        return exact
    return [i for i, label in enumerate(folded) if label.startswith(joined) or _in_order(typed, label.split())]


def _in_order(typed: list[str], words: list[str]) -> bool:
    k = 0
    for word in words:
        if k < len(typed) and word.startswith(typed[k]):
            k += 1
    return k == len(typed)


def in_columns(items: list[str], width: int) -> list[str]:
    """Short items side by side, as many to a line as the width allows (read across)."""
    if not items:
        return []
    size = max(len(item) for item in items) + 3
    per_line = max(1, (width - 2) // size)
    return ["  " + "".join(item.ljust(size) for item in items[i:i + per_line]).rstrip()
            for i in range(0, len(items), per_line)]


def cell_of(text: str) -> tuple[str, str] | None:
    """`grid(P1)[3,4]` as (`grid(P1)`, `3,4`); None for a value that is not a cell."""
    if text.endswith("]") and "[" in text:
        grid, _, place = text[:-1].rpartition("[")
        return grid, place
    return None


def echoed(text: str, most: int = 60) -> str:
    """What a person typed, as said back to them: a line pasted by mistake is not repeated whole."""
    return text if len(text) <= most else text[:most - 3] + "..."


class Chooser:
    """One decision of one person: the labels and pieces of its legal actions, asked about
    through `ask` (a prompt -> an answer) and `say` (one line out)."""

    def __init__(self, who: str, labels: list[str], keys: list[tuple[str, ...]], params: list[tuple[str, ...]],
                 ask: Callable[[str], str], say: Callable[[str], Any], width: int = 100, prompt: str | None = None):
        self.who = who
        self.prompt = prompt  # the decision's own words (`choose "spend more?": ...`), if it has them
        self.labels = labels
        self.keys = keys  # per action: (name, value of each parameter..., label): unique per action
        self.params = params  # per action: what each of its parameters asks (`which one (from hand)?`)
        # actions a person cannot tell apart: the same pieces, labels the same but for '#2'
        self.alike = [(*key[:-1], re.sub(r" #\d+$", "", key[-1])) for key in keys]
        self.ask = lambda prompt: ask(inert(prompt))  # labels come from the rules file: shown inert
        self.say = lambda line: say(inert(line))
        self.width = width

    # --- the whole decision ------------------------------------------------------------
    def choose(self) -> int:
        """The index of the chosen action."""
        self.say(f"{self.who}: {self.prompt}" if self.prompt else f"{self.who}, choose an action:")
        everything = list(range(len(self.labels)))
        pool = self.distinct(everything)
        if len(pool) <= STEP_THRESHOLD:
            if len(pool) < len(everything):
                self.say(ALIKE_NOTE)
            return self.from_list(pool, back=False, full=everything)
        self.say(f"  {len(self.labels)} legal actions, chosen step by step "
                 "(a number, a value or an action's words; b back, l list all, ? help)")
        if len(pool) < len(self.labels):
            self.say(ALIKE_NOTE)
        return self.by_steps()

    def distinct(self, pool: Iterable[int]) -> list[int]:
        """The first of each set of alike actions: a choice between them would be a guess."""
        seen: set[tuple[str, ...]] = set()
        out = []
        for i in pool:
            if self.alike[i] not in seen:
                seen.add(self.alike[i])
                out.append(i)
        return out

    def answer(self, prompt: str) -> str:
        try:
            return self.ask(prompt).strip()
        except EOFError:  # Ctrl-C is left to the caller, which saves the game and stops
            raise AgentAbort(f"{self.who} stopped answering: game abandoned") from None

    def from_list(self, pool: list[int], back: bool = True, full: list[int] | None = None) -> int:
        """A numbered list of actions; raises Back on `b` when there is somewhere to go back to.
        `l` lists `full` (every action, alike ones each) when it holds more than `pool`."""
        self.list_actions(pool)
        while True:
            text = self.answer(f"{self.who} [1-{len(pool)}]> ")
            if text.isdigit() and 1 <= int(text) <= len(pool):
                return pool[int(text) - 1]
            if text == "?":
                self.say(HELP)
            elif text.lower() == "b" and back:
                raise Back
            elif text.lower() == "l" and full is not None and len(full) > len(pool):
                try:
                    return self.taken(self.from_list(full))
                except Back:
                    self.list_actions(pool)
            elif text.lower() == "l":
                self.list_actions(pool)
            elif text and not text.isdigit():
                try:
                    found = self.typed(text, pool, len(pool))
                except Back:
                    self.list_actions(pool)
                    continue
                if found is not None:
                    return found
            else:
                self.say(f"please enter a number from 1 to {len(pool)}")

    def typed(self, text: str, pool: list[int], numbers: int) -> int | None:
        """An action named by its words among `pool`: one match is taken; several are offered
        (raises Back when the person goes back out of them)."""
        matches = self.distinct(pool[k] for k in words_match(text, [self.labels[i] for i in pool]))
        if not matches:
            self.say(f"no legal action matches '{echoed(text)}': please enter a number from 1 to {numbers}, "
                     "or an action's words (? for help)")
            return None
        if len(matches) == 1:
            return self.taken(matches[0])
        self.say(f"{len(matches)} actions match '{echoed(text)}' (b: back):")
        if len(matches) <= STEP_THRESHOLD:  # `b` there raises Back to the caller, which shows its step again
            return self.taken(self.from_list(matches))
        return self.by_steps(matches)

    def list_actions(self, pool: list[int]) -> None:
        for n, i in enumerate(pool, 1):
            self.say(f"  {n}. {self.labels[i]}")

    def taken(self, index: int) -> int:
        self.say(f"-> {self.labels[index]}")
        return index

    # --- step by step --------------------------------------------------------------------
    def by_steps(self, pool: list[int] | None = None) -> int:
        """Narrow `pool` one piece at a time; `b` on the first step leaves a narrowed pool."""
        narrowed = pool is not None
        pool = self.distinct(pool if pool is not None else range(len(self.labels)))
        path: list[tuple[str, bool]] = []  # (value chosen, taken without asking)
        while True:
            chosen = tuple(value for value, _ in path)
            candidates = [i for i in pool if self.keys[i][:len(chosen)] == chosen]
            if len(candidates) == 1:
                return self.taken(candidates[0])
            values: dict[str, int] = {}
            for i in candidates:
                value = self.keys[i][len(chosen)]
                values[value] = values.get(value, 0) + 1
            if len(values) == 1:
                path.append((next(iter(values)), True))
                continue
            try:
                picked = self.step(candidates, chosen, values)
            except Back:
                while path and path[-1][1]:
                    path.pop()
                if path:
                    path.pop()
                elif narrowed:
                    raise
                else:
                    self.say("this is the first step: nothing to go back to")
                continue
            if isinstance(picked, int):
                return picked
            path.append((picked, False))

    def step(self, candidates: list[int], chosen: tuple[str, ...], values: dict[str, int]) -> str | int:
        """One step: the values of the next piece (or an action, typed or from the full list)."""
        options = list(values)
        shown = self.shown_values(candidates, len(chosen), options)
        self.show_step(candidates, chosen, values, shown)
        everything = list(range(len(self.labels)))
        while True:
            text = self.answer(f"{self.who} [1-{len(options)}, b, l, ?]> ")
            low = text.casefold()
            if text.isdigit() and 1 <= int(text) <= len(options):
                return options[int(text) - 1]
            if low == "?":
                self.say(HELP)
            elif low == "b":
                raise Back
            elif not text or text.isdigit():
                self.say(f"please enter a number from 1 to {len(options)}")
            elif (value := self.value_named(low, options, shown)) is not None:
                return value
            else:  # the full list, or an action by its words; back from either: this step again
                try:
                    found = self.taken(self.from_list(everything)) if low == "l" else \
                        self.typed(text, everything, len(options))
                except Back:
                    self.show_step(candidates, chosen, values, shown)
                    continue
                if found is not None:
                    return found

    def show_step(self, candidates: list[int], chosen: tuple[str, ...], values: dict[str, int],
                  shown: dict[str, str]) -> None:
        level = len(chosen)
        options = list(values)
        self.say(self.heading(candidates[0], chosen, len(candidates)))
        if level == 0:
            for n, value in enumerate(options, 1):
                count = values[value]
                example = next(self.labels[i] for i in candidates if self.keys[i][0] == value)
                text = example if count == 1 else f"{value}: {count} options, e.g. {example}"
                self.say(f"  {n}. {text}")
        elif set(options) <= set(FLAG_WORDS.values()) and all(values[v] == 1 for v in options):
            for n, value in enumerate(options, 1):  # yes or no: to what, the label says
                label = next(self.labels[i] for i in candidates if self.keys[i][level] == value)
                self.say(f"  {n}. {value}: {label}")
        else:
            self.say_all(in_columns([f"{n}. {shown[v]} ({values[v]})" if values[v] > 1 else f"{n}. {shown[v]}"
                                     for n, v in enumerate(options, 1)], self.width))

    def say_all(self, lines: list[str]) -> None:
        for line in lines:
            self.say(line)

    def heading(self, first: int, chosen: tuple[str, ...], count: int) -> str:
        """What this step asks for, after what was chosen so far (the action and its values)."""
        if not chosen:
            return "choose the action:"
        questions = self.params[first]
        what = questions[len(chosen) - 1] if len(chosen) <= len(questions) else "which one?"
        return f"{' '.join(chosen)}: {what} ({count} actions left)"

    def shown_values(self, candidates: list[int], level: int, options: list[str]) -> dict[str, str]:
        """Values as listed: the cells of one grid by their place alone (`3,4`)."""
        cells = [cell_of(v) for v in options]
        if level and all(cells) and len({c[0] for c in cells if c}) == 1:
            return {v: c[1] for v, c in zip(options, cells) if c}
        return {v: v for v in options}

    @staticmethod
    def value_named(low: str, options: list[str], shown: dict[str, str]) -> str | None:
        """The option typed as its text (in full or as a unique start), listed or full form;
        a flag as yes/no or true/false."""
        names = {v: {v.casefold(), shown[v].casefold(), *(t for t, w in FLAG_WORDS.items() if w == v)}
                 for v in options}
        for v in options:
            if low in names[v]:
                return v
        starts = [v for v in options if any(name.startswith(low) for name in names[v])]
        return starts[0] if len(starts) == 1 else None


class HumanAgent:
    """A person at a prompt. Sees only their own view (grids drawn as tables) and picks an
    action from a numbered list, or step by step when there are many (see `Chooser`)."""

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output_fn: Callable[[str], Any] = print,
                 width: int | None = None):
        self.input_fn = input_fn
        self.output_fn = output_fn
        self.width = width
        self.seen_shown: dict[int, int] = {}  # per seat: how many reveals its screen has shown

    def choose(self, game: Game) -> Action:
        me = game.current_player
        if me is None:
            raise GameError("the game is over: there is nothing to choose")
        width = self.width or screen_width()
        view = game.view(me, properties=True)
        for line in render_view(view, width, seen_from=self.seen_shown.get(me, 0)):
            self.output_fn(inert(line))  # names and labels come from files: no control sequence gets out
        self.seen_shown[me] = len(view["seen"])  # a reveal is shown once; the view keeps listing it
        labels = game.legal_labels()
        actions = game.legal_actions()
        keys = []
        params = []
        asked: dict[int, tuple[str, ...]] = {}  # per action name: its parameters' questions
        for action, label in zip(actions, labels):
            parts = game.action_parts(action)
            kinds = game.program.action_params[action[0]]
            keys.append((parts.name, *(FLAG_WORDS.get(value, value) if kind == "flag" else value
                                       for (_, value), (_, kind) in zip(parts.params, kinds)), label))
            if action[0] not in asked:
                asked[action[0]] = questions(game, action[0])
            params.append(asked[action[0]])
        chooser = Chooser(player_name(me), labels, keys, params, self.input_fn, self.output_fn, width,
                          prompt=view.get("prompt"))
        return actions[chooser.choose()]


QUESTIONS = {"comp": "which one", "zone": "where", "player": "which player", "int": "which number",
             "enum": "which one", "flag": "yes or no"}


def questions(game: Game, aid: int) -> tuple[str, ...]:
    """What each parameter of an action asks a person, from what it takes and where its values
    come from (`which one (from hand)?`, `which cell (on board)?`, `yes or no?`): the
    parameter's name is the rules' own shorthand, not a question."""
    prog = game.program
    decl = prog.actions[aid].decl
    out = []
    for k, (_, kind) in enumerate(prog.action_params[aid]):
        domain = decl.params[k].domain if decl is not None and k < len(decl.params) else None
        what = QUESTIONS.get(kind, "which one")
        source = source_words(domain, prog.zone_base)
        if kind == "zone" and (source.startswith("on ") or "cell" in source):
            what = "which cell"
        out.append(f"{what} ({source})?" if source and kind != "flag" else f"{what}?")
    return tuple(out)


def source_words(domain: Any, zones: dict[str, int]) -> str:
    """Where a parameter's values come from, in a few words: `from hand` (a zone), `on board`
    (its cells), `playable tiles` (a def, by its name); empty for a list written out."""
    if isinstance(domain, ast.Name) and domain.ident in zones:
        return f"from {domain.ident}"
    if not isinstance(domain, ast.Call):
        return ""
    if domain.func in zones:
        return f"from {domain.func}"
    if domain.func == "cells" and domain.args:
        inner = source_words(domain.args[0], zones)
        return "on " + inner.removeprefix("from ") if inner.startswith("from ") else "cells"
    return domain.func.replace("_", " ")
