"""A seat's page learns nothing its seat may not know: every byte `ruleforge serve` sends to one
seat over whole games, checked against what that seat's own view says.

For each game a seat is played by random choices through the API (the other seats are bots),
and everything sent to it is kept: the seat page, the static files, every state and every
answer to an action. Then, independently, the game is replayed from its log in the games folder
with the Python API, and at every step the component labels the seat may know are listed: those
its view mentions (zones, what it has seen, its legal actions, variables, properties) and its
log. A label hidden at a step (a component label the seat's view and log have not mentioned so
far) must not occur in anything sent to the seat at that step. A label counts only as a whole
word and not inside a longer label ("Rock N-E" within "Rock N-E bear" is the longer one).
The same check on another seat's states must find a leak: the check bites.

Also: another seat's or a wrong token acts for nobody, a malformed request is refused with a
message and changes nothing, and every answer carries the security headers.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="ruleforge serve needs the web extra")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2")

from leak_check import body_text, leaks, replay_knowledge  # noqa: E402
from serve_helpers import ROOT, load_serve  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.web.app import MOST_BODY, create_app  # noqa: E402
from ruleforge.web.drawing import seat_drawing  # noqa: E402

HOST = "host-" + "h" * 32
GAMES = [  # rules, players, seed, the watched seat, whether a seat sees what another does not
    ("games/hagakure.rules", 3, 101, 1, True),
    ("games/naishi.rules", 2, 102, 0, True),
    # open information: the seats see alike (only piles are hidden). In this game a bot takes the
    # second of two actions that read alike: the server logged it as the first (fixed: "#2")
    ("games/nakasendo.rules", 2, 115, 0, False),
    ("games/love_letter.rules", 2, 110, 0, True),  # a seed whose game lets the control bite (few labels are unique)
]
MOST_REQUESTS = 5000  # per game: a hang guard


# --- the server in this process ----------------------------------------------------------------

def server(rules_path: str, folder: Path) -> tuple[Any, Any]:
    rules = ruleforge.load(str(ROOT / rules_path))
    draw, stylesheet = seat_drawing(rules)
    return rules, create_app(rules, str(ROOT / rules_path), folder, HOST, draw, stylesheet, warn=lambda _: None)


def new_game(client: TestClient, players: int, seed: int, agents: list[str]) -> tuple[str, list[str]]:
    form = {"players": str(players), "seed": str(seed), **{f"seat{k}": a for k, a in enumerate(agents)}}
    made = client.post(f"/host/{HOST}/games", data=form, follow_redirects=False)
    assert made.status_code == 303, made.text
    game_id = made.headers["location"].rsplit("#game-", 1)[1]
    links = load_serve.seat_links(client.get(f"/host/{HOST}").text, game_id)
    return game_id, [link.rsplit("/seat/", 1)[1] for link in links]


# --- playing the watched seat through the API ------------------------------------------------------

class Seat:
    """One seat's side of the conversation: every answer kept, each with the step it shows."""

    def __init__(self, client: TestClient, token: str):
        self.client = client
        self.api = f"/api/seat/{token}"
        self.page = f"/seat/{token}"
        self.sent: list[tuple[int | None, str, str]] = []  # (step, what, text)

    def keep(self, what: str, response: Any) -> Any:
        assert response.status_code == 200, (what, response.status_code, response.text[:300])
        kind = response.headers["content-type"]
        data = response.json() if kind.startswith("application/json") else None
        step = data["version"] if data is not None else None
        self.sent.append((step, what, body_text(kind, response.content)))
        return data

    def open_page(self) -> None:
        self.keep("page", self.client.get(self.page))
        for name in ("seat.js", "seat.css", "picture.css"):
            self.keep(name, self.client.get(f"/static/{name}"))

    def state(self, after: int | None = None) -> dict[str, Any]:
        return self.keep("state", self.client.get(self.api, params={} if after is None else {"after": after}))

    def act(self, label: str) -> dict[str, Any]:
        return self.keep("act", self.client.post(self.api + "/act", json={"action": label}))


def play_watched(client: TestClient, watched: Seat, others: list[Seat], rng: random.Random) -> None:
    """Random legal choices for the watched seat to the end of the game; at each of its turns,
    when the bots wait for it and nothing changes, the other seats' states (for the control)."""
    watched.open_page()
    state = watched.state()
    for _ in range(MOST_REQUESTS):
        assert state["failure"] is None, state["failure"]
        if state["over"]:
            return
        if state["your_turn"]:
            for other in others:
                assert other.state()["version"] == state["version"]
            state = watched.act(rng.choice(state["actions"])["label"])
        else:
            state = watched.state(after=state["version"])
    raise AssertionError(f"the game did not end within {MOST_REQUESTS} requests")


@pytest.mark.parametrize(("rules_path", "players", "seed", "seat", "private"), GAMES,
                         ids=[g[0].split("/")[1] for g in GAMES])
def test_a_seat_is_sent_nothing_it_may_not_know(rules_path: str, players: int, seed: int, seat: int, private: bool,
                                                tmp_path: Path) -> None:
    rules, app = server(rules_path, tmp_path)
    with TestClient(app) as client:
        agents = ["random"] * players
        agents[seat] = "human"
        game_id, tokens = new_game(client, players, seed, agents)
        watched = Seat(client, tokens[seat])
        others = [Seat(client, token) for k, token in enumerate(tokens) if k != seat]
        play_watched(client, watched, others, random.Random(seed))
    log = json.loads((tmp_path / f"{game_id}.json").read_text(encoding="utf-8"))
    assert log["over"] and len(log["steps"]) > 10
    every, known, secrets = replay_knowledge(rules, log, seat)  # fails if the log does not replay

    checked = 0
    found: list[str] = []
    for step, what, text in watched.sent:
        at = 0 if step is None else step  # the page and static files: checked against the start
        checked += len(every.labels - known[at])
        if (bad := leaks(every, known[at], text)):
            found.append(f"{what} at step {at}: {sorted(bad)}")
    assert checked > 0, "nothing was hidden from the seat: this game cannot test for leaks"
    assert not found, "sent to the seat, not in its view:\n" + "\n".join(found[:20])
    assert {what for _, what, _ in watched.sent} >= {"page", "seat.js", "seat.css", "state", "act"}

    # the controls: the same check finds what the seat may not know in the hidden zones' contents,
    # and in another seat's states where seats see differently
    assert any(leaks(every, known[step], text) for step, text in enumerate(secrets)), "the check cannot bite"
    bitten = [step for other in others for step, _, text in other.sent if leaks(every, known[step], text)]
    print(f"{rules_path}: {len(watched.sent)} answers checked, {checked} (answer, hidden label) pairs; "
          f"the control found leaks in {len(bitten)} of the other seats' {sum(len(o.sent) for o in others)} states")
    if private:
        assert bitten, "the check found nothing in the other seats' states: it cannot bite"
    else:
        assert not bitten, "open information: the seats should see alike"


# --- requests that must change nothing -----------------------------------------------------------------

@pytest.fixture()
def two_people(tmp_path: Path) -> Iterator[tuple[TestClient, list[str]]]:
    _, app = server("games/naishi.rules", tmp_path)
    with TestClient(app) as client:
        _, tokens = new_game(client, 2, 7, ["human", "human"])
        if not client.get(f"/api/seat/{tokens[0]}").json()["your_turn"]:
            tokens.reverse()
        yield client, tokens  # the seat to act first


def unchanged(client: TestClient, tokens: list[str], version: int) -> None:
    for token in tokens:
        state = client.get(f"/api/seat/{token}").json()
        assert (state["version"], state["log_count"]) == (version, version)


def test_another_seats_or_a_wrong_token_acts_for_nobody(two_people: tuple[TestClient, list[str]]) -> None:
    client, tokens = two_people
    mine = client.get(f"/api/seat/{tokens[0]}").json()
    assert mine["your_turn"] and mine["actions"]
    label = mine["actions"][0]["label"]
    other = client.post(f"/api/seat/{tokens[1]}/act", json={"action": label})  # P2's link, P1's action
    assert other.status_code == 409 and "not your turn" in other.json()["error"]
    for token in ("x" * 32, tokens[0][:-1], tokens[0] + "x", tokens[0].upper(), ""):
        wrong = client.post(f"/api/seat/{token}/act", json={"action": label})
        assert wrong.status_code in (404, 405), token
        assert client.get(f"/api/seat/{token}").status_code == 404 or token == ""
    unchanged(client, tokens, 0)
    assert client.post(f"/api/seat/{tokens[0]}/act", json={"action": label}).status_code == 200
    unchanged(client, tokens, 1)


@pytest.mark.parametrize(("body", "status", "says"), [
    (b"not json", 400, "JSON"),
    (b'{"action": ', 400, "JSON"),
    (b"\xff\xfe", 400, "JSON"),
    (b'"give"', 400, "name an action"),
    (b"{}", 400, "name an action"),
    (b'{"action": 3}', 400, "name an action"),
    (b'{"action": "no such action"}', 409, "not legal"),
    (b'{"action": "' + b"x" * (MOST_BODY + 10) + b'"}', 413, "larger"),
])
def test_a_malformed_action_is_refused_and_changes_nothing(two_people: tuple[TestClient, list[str]], body: bytes,
                                                           status: int, says: str) -> None:
    client, tokens = two_people
    answer = client.post(f"/api/seat/{tokens[0]}/act", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == status
    assert says in answer.json()["error"]
    unchanged(client, tokens, 0)


def test_every_answer_carries_the_security_headers(two_people: tuple[TestClient, list[str]]) -> None:
    client, tokens = two_people
    for path in ("/", f"/host/{HOST}", f"/seat/{tokens[0]}", f"/api/seat/{tokens[0]}", "/static/seat.js",
                 "/seat/nobody", "/api/seat/nobody", f"/host/{'x' * 32}"):
        answer = client.get(path)
        policy = answer.headers["content-security-policy"]
        script = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script, path
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert answer.headers["referrer-policy"] == "no-referrer", path
        assert answer.headers["x-content-type-options"] == "nosniff"
    # a page carries no inline script: only the served file
    page = client.get(f"/seat/{tokens[0]}").text
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/seat.js" defer>']
