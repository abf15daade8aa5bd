"""What a seat may know and what was sent to it: the leak check of the web tests.

`replay_knowledge` replays a game's log with the Python API and lists, step by step, the labels
a seat's view and log have mentioned so far; `body_text` reads an answer of the server as the
texts it carries and the components its pictures draw; `leaks` finds the labels not yet known
among them. tests/web/test_leak.py runs it over every byte sent to a seat through the API, and
tests/web/test_browser.py over every answer a browser's page received.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

# --- what a seat may know, from a replay of the log --------------------------------------------

def strings(value: Any) -> Iterator[str]:
    """Every text of a JSON-like value: keys, strings, and numbers as text."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item)
    elif value is not None:
        yield str(value)


class Labels:
    """The component labels of a game, and where one is mentioned in a text: as a whole word,
    not inside an occurrence of a longer label."""

    def __init__(self, labels: set[str]):
        self.labels = labels
        self.patterns = {label: re.compile(r"(?<!\w)" + re.escape(label) + r"(?!\w)") for label in labels}
        self.longer = {label: [other for other in labels if len(other) > len(label) and label in other]
                       for label in labels}

    def mentioned(self, label: str, text: str) -> bool:
        if label not in text:
            return False
        for match in self.patterns[label].finditer(text):
            if not any(covered(other, text, match.start(), match.end()) for other in self.longer[label]):
                return True
        return False


def covered(longer: str, text: str, start: int, end: int) -> bool:
    """Whether an occurrence of `longer` in `text` spans [start, end)."""
    at = text.find(longer, max(0, end - len(longer)))
    while at != -1 and at <= start:
        if at + len(longer) >= end:
            return True
        at = text.find(longer, at + 1)
    return False


def replay_knowledge(rules: Any, log: dict[str, Any], seat: int) -> tuple[Labels, list[set[str]], list[str]]:
    """Replay the logged game: its labels, per step (0 = before the first) the labels the seat
    may know by then, and the labels of the components in the zones hidden from it then."""
    game = rules.new_game(log["players"], log["seed"], log["options"] or None)
    texts: list[list[str]] = []
    secrets: list[str] = []
    labels: set[str] = set()

    def look() -> None:
        view = game.view(seat, properties=True)
        lines = game.log_lines(viewer=seat)
        texts.append([*strings(view), *lines, *(game.legal_labels() if game.current_player == seat
                                                  and not game.is_over else [])])
        secrets.append("\n".join(info.label for info in map(game.component_info, game.components())
                                 if info.zone is not None and isinstance(view["zones"].get(info.zone), dict)))
        labels.update(game.component_info(c).label for c in game.components())

    look()
    for step in log["steps"]:
        game.apply(step["action"])
        look()
    assert game.is_over
    every = Labels(labels)
    known: set[str] = set()
    known_by_step = []
    for step_texts in texts:
        blob = "\n".join(step_texts)
        known |= {label for label in labels - known if every.mentioned(label, blob)}
        known_by_step.append(set(known))
    return every, known_by_step, secrets


# --- what was sent, as text ------------------------------------------------------------------------

# attributes that are layout or plumbing, never a component's name (an SVG's coordinates, a
# cell's index): left out, or a numeric label ("17" of Hagakure) would be found in them
PLUMBING = {"charset", "content", "name", "rel", "href", "src", "lang", "type", "id", "class", "style", "viewbox",
            "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "points",
            "transform", "fill", "stroke", "stroke-width", "font-size", "data-index", "data-row", "data-column",
            "tabindex", "role", "colspan", "rowspan", "start", "xmlns", "preserveaspectratio", "opacity",
            "text-anchor", "dominant-baseline", "dx", "dy", "offset", "method", "action", "inputmode"}


class Texts(HTMLParser):
    """A page's texts and attributes, apart from the pictures' components: each of those is read
    as a whole by its name (`aria-label`), and what is drawn inside it (the label's words wrapped
    over lines, an icon, a count) is left out, being that name drawn."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.components: list[str] = []
        self.inside = 0  # depth within a component's drawing

    def handle_data(self, data: str) -> None:
        if not self.inside:
            self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if self.inside:
            self.inside += 1
        elif "data-index" in named:
            self.inside = 1
            self.components.append(named.get("aria-label") or "")
        else:
            self.parts.extend(value for name, value in attrs if value and name.lower() not in PLUMBING)

    def handle_endtag(self, tag: str) -> None:
        if self.inside:
            self.inside -= 1


def html_texts(markup: str) -> tuple[str, list[str]]:
    """The free texts of some HTML, and the names of the components it draws."""
    parser = Texts()
    parser.feed(markup)
    parser.close()
    return "\n".join(parser.parts), parser.components


def json_strings(value: Any) -> Iterator[str]:
    """The strings of a JSON document, keys too (its numbers are counts and versions)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)
    elif isinstance(value, str):
        yield value


@dataclass
class Sent:
    """What one answer carried: its texts (a JSON document's strings, a script as it is), the
    free texts of the HTML in it (zone names, counts, variables: where a number is a count, not
    a name), and the names of the components its pictures draw."""

    text: str
    html: str = ""
    components: list[str] = field(default_factory=list)


def body_text(content_type: str, body: bytes) -> Sent:
    """A response's body as what it carries (`Sent`)."""
    text = body.decode("utf-8")
    if content_type.startswith("application/json"):
        found = list(json_strings(json.loads(text)))
        drawn = [html_texts(s) for s in found if "<" in s]
        return Sent("\n".join(s for s in found if "<" not in s), "\n".join(free for free, _ in drawn),
                    [name for _, names in drawn for name in names])
    if content_type.startswith("text/html"):
        free, names = html_texts(text)
        return Sent("", free, names)
    return Sent(text)


LINE_END = re.compile(r"[ \t]*(?:\n|\u2502|$)")  # the end of a line, or of a cell of a text table


def leaks(every: Labels, known: set[str], sent: Sent | str) -> set[str]:
    """The labels not `known` that what was sent mentions: a component drawn by its name, or a
    label in a text. In the free texts of a picture a label that is a number ("17" of Hagakure)
    is not looked for: there a number is a count, a row or a score; such a card is found by
    its name where it is drawn, and in the log and the actions."""
    if isinstance(sent, str):
        sent = Sent(sent)
    found = {name for name in sent.components if name in every.labels and name not in known}
    found |= mentioned(every, known, sent.text)
    pictured = mentioned(every, known, sent.html)
    return found | {label for label in pictured if not label.isdigit()}


def mentioned(every: Labels, known: set[str], text: str) -> set[str]:
    """The labels not `known` that `text` mentions. A drawing may wrap a long label over two
    lines ("Flowers N-S" at a line's end, "bear" below): a label at a line's end that begins a
    longer known label is taken as that one, wrapped."""
    found = set()
    for label in every.labels - known:
        if label not in text:
            continue
        wrapped = [other for other in every.longer[label] if other in known and other.startswith(label + " ")]
        for match in every.patterns[label].finditer(text):
            if any(covered(other, text, match.start(), match.end()) for other in every.longer[label]):
                continue
            if wrapped and LINE_END.match(text, match.end()):
                continue
            found.add(label)
            break
    return found
