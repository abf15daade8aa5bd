"""A hostile request to `ruleforge serve` gets a 4xx and changes nothing: never a 500, never a
traceback in the host's terminal. Numbers in Unicode digits (`²` passes `isdigit` but not `int`),
JSON nested 30,000 deep, a form of 300 fields, a body that never ends or never comes."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.diagnostics import GameError  # noqa: E402
from ruleforge.web.app import create_app  # noqa: E402
from ruleforge.web.bounds import DEFAULT, ServerBounds, json_depth, read_json, whole_number  # noqa: E402
from ruleforge.web.drawing import seat_drawing  # noqa: E402
from ruleforge.web.tables import web_agent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAISHI = str(ROOT / "games" / "naishi.rules")
OPTIONS = str(ROOT / "tests" / "synthetic" / "options.rules")  # an int option, `extra`
HOST = "host-token-for-tests-0123456789"
UNICODE_DIGITS = ["²", "٣", "３", "1²", "-²", "⑦", "𝟙", "߁"]  # superscript, Arabic-Indic, full-width, ...


def client(rules_path: str, folder: Path, bounds: ServerBounds = DEFAULT) -> TestClient:
    rules = ruleforge.load(rules_path)
    draw, css = seat_drawing(rules)
    app = create_app(rules, rules_path, folder, HOST, draw, css, warn=lambda line: None, bounds=bounds)
    return TestClient(app)  # a server exception (a 500) is raised in the test


def seat_tokens(c: TestClient) -> list[str]:
    return re.findall(r'href="http://testserver/seat/([^"]+)"', c.get(f"/host/{HOST}").text)


def folder_state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture()
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Any:
    """Nothing logged as an error (uvicorn's and Starlette's 'Exception in ASGI application')."""
    with caplog.at_level(logging.WARNING):
        yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


@pytest.mark.usefixtures("no_errors_logged")
def test_hostile_seat_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    with client(NAISHI, tmp_path) as c:
        c.post(f"/host/{HOST}/games", data={"players": "2", "seed": "4", "seat0": "human", "seat1": "human"})
        me = seat_tokens(c)[0]
        before = c.get(f"/api/seat/{me}").json()
        files = folder_state(tmp_path)
        label = before["actions"][0]["label"]
        deep = "[" * 30_000 + "]" * 30_000
        bodies = [
            '{"action": ' + deep + "}", deep, "{" * 30_000, '{"a":' * 10_000,
            '{"action": ' + "[" * 9 + '"' + label + '"' + "]" * 9 + "}",
            '{"action": "' + label + '", "x": ' + "[" * 20 + "]" * 20 + "}",  # a legal action, nested beside
            '{"action": 1' + "0" * 5000 + "}",  # a number too long for Python's int
        ]
        for body in bodies:
            answer = c.post(f"/api/seat/{me}/act", content=body.encode(), headers={"content-type": "application/json"})
            assert answer.status_code == 400, (body[:40], answer.text[:200])
            assert "JSON" in answer.json()["error"] or "deep" in answer.json()["error"]
        for after in [*UNICODE_DIGITS, "1" * 13, "-1", "1.0", " 1", "0x1"]:
            answer = c.get(f"/api/seat/{me}", params={"after": after})
            assert answer.status_code == 400 and "version number" in answer.json()["error"], after
        assert c.get(f"/api/seat/{me}").json() == before
        assert folder_state(tmp_path) == files
        # the same seat's plain request still plays: the refusals above held nothing back
        assert c.post(f"/api/seat/{me}/act", json={"action": label}).status_code == 200


@pytest.mark.usefixtures("no_errors_logged")
def test_a_hostile_host_form_is_refused_and_starts_nothing(tmp_path: Path) -> None:
    with client(OPTIONS, tmp_path) as c:
        forms: list[dict[str, str]] = []
        for digits in UNICODE_DIGITS:
            forms += [{"players": digits}, {"players": "2", "seed": digits}, {"players": "2", "option-extra": digits},
                      {"players": "2", "seat0": f"mcts:{digits}"}, {"players": "2", "seat1": f"MCTS:{digits}0"}]
        forms += [
            {"players": "2", **{f"field{k}": "x" for k in range(300)}},  # past parse_qs' max_num_fields
            {"players": "2", "seed": "1" * 13}, {"players": "2", "option-extra": "-" + "9" * 13},
            {"players": "1" * 4}, {"players": "2", "seat0": "mcts:" + "0" * 7 + "1"},
        ]
        for form in forms:
            answer = c.post(f"/host/{HOST}/games", data=form)
            assert 400 <= answer.status_code < 500, (form if len(form) < 5 else "300 fields", answer.status_code)
            assert re.search(r'class="rf-error"', answer.text), form if len(form) < 5 else "300 fields"
        answer = c.post(f"/host/{HOST}/games", content="&".join(f"f{k}=1" for k in range(300)).encode(),
                        headers={"content-type": "application/x-www-form-urlencoded"})
        assert answer.status_code == 400 and "more than 200 fields" in answer.text
        assert seat_tokens(c) == [] and list(tmp_path.iterdir()) == []
        # a well-formed form still starts a game with its option: the refusals are of the digits alone
        made = c.post(f"/host/{HOST}/games", data={"players": "2", "seed": "12", "option-extra": "2",
                                                   "seat0": "human", "seat1": "mcts:30"}, follow_redirects=False)
        assert made.status_code == 303 and len(seat_tokens(c)) == 2


def test_numbers_and_agents_are_written_in_ascii_digits() -> None:
    assert whole_number("0042", 12) == 42 and whole_number("-7", 3, signed=True) == -7
    for text in [*UNICODE_DIGITS, "", "-", "+1", "1_000", "1" * 13]:
        assert whole_number(text, 12, signed=True) is None, text
    for digits in UNICODE_DIGITS:
        with pytest.raises(GameError, match="unknown agent"):
            web_agent(f"mcts:{digits}")
    assert web_agent("MCTS:0050") == "mcts:50"


def test_json_nesting_is_measured_before_it_is_parsed() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[[[[["}], "c": "\\"]]]"}', 8) == 3
    assert json_depth(b"[" * 1_000_000, 8) == 9  # stops counting past the bound
    for text in ["[" * 100_000, '{"a": "\\"' + "[" * 50 + '"}' + "[" * 10]:
        with pytest.raises(GameError):
            read_json(text, 8, "it")
    assert read_json('{"tokens": ["a"]}', 8, "it") == {"tokens": ["a"]}


def asgi_post(app: Any, path: str, messages: list[dict[str, Any]]) -> tuple[int, bytes]:
    """POST to the app straight through ASGI: the body as `messages`, then nothing until the
    app gives up (a client that stops sending), or a disconnect if the last message is one."""

    async def run() -> tuple[int, bytes]:
        queue = list(messages)
        forever = asyncio.Event()
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if queue:
                return queue.pop(0)
            await forever.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
                 "client": ("127.0.0.1", 1), "server": ("testserver", 80)}
        await asyncio.wait_for(app(scope, receive, send), 30)
        start = next(m for m in sent if m["type"] == "http.response.start")
        return start["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")

    return asyncio.run(run())


@pytest.mark.usefixtures("no_errors_logged")
def test_a_body_that_never_ends_or_never_comes_is_refused(tmp_path: Path) -> None:
    bounds = ServerBounds(body_seconds=0.3)
    rules = ruleforge.load(NAISHI)
    draw, css = seat_drawing(rules)
    app = create_app(rules, NAISHI, tmp_path, HOST, draw, css, warn=lambda line: None, bounds=bounds)
    with TestClient(app) as c:
        c.post(f"/host/{HOST}/games", data={"players": "2", "seed": "4", "seat0": "human", "seat1": "human"})
        me = seat_tokens(c)[0]
        before = c.get(f"/api/seat/{me}").json()
    part = {"type": "http.request", "body": b'{"action": ', "more_body": True}
    status, body = asgi_post(app, f"/api/seat/{me}/act", [part])
    assert status == 408 and b"0.3 seconds" in body
    status, body = asgi_post(app, f"/api/seat/{me}/act", [part, {"type": "http.disconnect"}])
    assert status == 400 and b"closed" in body
    form_part = {"type": "http.request", "body": b"players=2", "more_body": True}
    status, _ = asgi_post(app, f"/host/{HOST}/games", [form_part])
    assert status == 408
    with TestClient(app) as c:
        assert c.get(f"/api/seat/{me}").json() == before
        assert len(seat_tokens(c)) == 2
