"""`ruleforge serve` in-process: the host's form, who may sit at a seat, resuming games from
their logs, and the command's own errors. (Pages in a real browser, the leak check over every
byte a seat receives and the load test are in tests/web/.)"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.cli import main  # noqa: E402
from ruleforge.diagnostics import GameError  # noqa: E402
from ruleforge.web.app import create_app  # noqa: E402
from ruleforge.web.drawing import seat_drawing  # noqa: E402
from ruleforge.web.tables import Tables, web_agent  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAISHI = str(ROOT / "games" / "naishi.rules")
HOST = "host-token-for-tests-0123456789"


def client(rules: ruleforge.Rules, folder: Path, path: str = NAISHI) -> TestClient:
    draw, css = seat_drawing(rules)
    return TestClient(create_app(rules, path, folder, HOST, draw, css, warn=lambda line: None))


def seat_links(page: str) -> list[str]:
    return re.findall(r'href="http://testserver/seat/([^"]+)"', page)


def test_a_seat_is_a_person_or_a_built_in_bot() -> None:
    assert [web_agent(n) for n in ("human", "Random", " greedy", "mcts:50")] == ["human", "random", "greedy", "mcts:50"]
    for name in ("mymodule:Agent", "agents.py:Bot", "mcts:999999", "mcts:", "nobody"):
        with pytest.raises(GameError, match="unknown agent"):
            web_agent(name)


def test_the_host_form_refuses_what_the_rules_refuse(tmp_path: Path) -> None:
    rules = ruleforge.load(NAISHI)
    with client(rules, tmp_path) as c:
        for form, message in [
            ({"players": "3"}, "Naishi is for 2 to 2 players, not 3"),
            ({"players": "two"}, "choose a number of players"),
            ({"players": "2", "seed": "-4"}, "the seed must be a whole number"),
            ({"players": "2", "seat0": "human", "seat1": "evil.py:Agent"}, "unknown agent"),
        ]:
            answer = c.post(f"/host/{HOST}/games", data=form)
            assert answer.status_code == 400 and message in answer.text, (form, answer.text[:300])
        assert seat_links(c.get(f"/host/{HOST}").text) == []
        assert list(tmp_path.iterdir()) == []  # nothing was started


def test_only_the_host_link_starts_games_or_shows_links(tmp_path: Path) -> None:
    rules = ruleforge.load(NAISHI)
    with client(rules, tmp_path) as c:
        c.post(f"/host/{HOST}/games", data={"players": "2", "seat0": "human", "seat1": "human"})
        assert len(seat_links(c.get(f"/host/{HOST}").text)) == 2
        for page in ("/host/wrong", f"/host/{HOST[:-1]}", "/"):
            answer = c.get(page)
            assert seat_links(answer.text) == [] and "/seat/" not in answer.text
        assert c.post("/host/wrong/games", data={"players": "2"}).status_code == 404
        assert len(seat_links(c.get(f"/host/{HOST}").text)) == 2
        front = c.get("/")
        assert front.status_code == 200 and "Naishi" in front.text
        assert front.headers["referrer-policy"] == "no-referrer"


def test_a_seat_plays_through_its_link_and_the_log_replays(tmp_path: Path) -> None:
    rules = ruleforge.load(NAISHI)
    with client(rules, tmp_path) as c:
        c.post(f"/host/{HOST}/games", data={"players": "2", "seed": "5", "seat0": "human", "seat1": "random"})
        me = seat_links(c.get(f"/host/{HOST}").text)[0]
        state = c.get(f"/api/seat/{me}").json()
        while not state["over"]:
            if state["your_turn"]:
                answer = c.post(f"/api/seat/{me}/act", json={"action": state["actions"][-1]["label"]})
                assert answer.status_code == 200, answer.text
                state = answer.json()
            else:
                state = c.get(f"/api/seat/{me}", params={"after": state["version"]}).json()
        assert state["scores"] and any(row["winner"] for row in state["scores"])
    log = next(p for p in tmp_path.glob("*.json") if not p.name.endswith(".seats.json"))
    ran = CliRunner().invoke(main, ["replay", str(log)])
    assert ran.exit_code == 0 and "identical" in ran.output, ran.output
    assert json.loads(log.read_text())["over"] is True


def test_a_restarted_server_resumes_every_game_where_it_stopped(tmp_path: Path) -> None:
    rules = ruleforge.load(NAISHI)

    async def play_some() -> tuple[str, str, list[str]]:
        tables = Tables(rules, NAISHI, tmp_path)
        table = tables.create(2, 9, {}, ["human", "human"])
        for _ in range(5):
            await table.act(table.game.current_player, table.game.legal_labels()[0])
        return table.id, table.game.digest(), table.tokens

    game_id, digest, tokens = asyncio.run(play_some())
    (tmp_path / "broken.seats.json").write_text("{not json", encoding="utf-8")
    warnings: list[str] = []
    again = Tables(rules, NAISHI, tmp_path, warn=warnings.append)
    resumed = again.resume_all()
    assert [t.id for t in resumed] == [game_id]
    assert resumed[0].game.digest() == digest and resumed[0].tokens == tokens
    assert again.seat_of(tokens[1]) == (resumed[0], 1)
    assert len(warnings) == 1 and "broken.seats.json" in warnings[0]
    # another game's rules: not resumed, and its files left as they were
    other = Tables(ruleforge.load(str(ROOT / "games" / "hagakure.rules")), "hagakure.rules", tmp_path,
                   warn=warnings.append)
    assert other.resume_all() == [] and any("other rules" in w and game_id in w for w in warnings)
    assert (tmp_path / f"{game_id}.json").exists()


def test_seat_files_are_private(tmp_path: Path) -> None:
    rules = ruleforge.load(NAISHI)
    table = Tables(rules, NAISHI, tmp_path).create(2, 1, {}, ["human", "random"])
    assert (tmp_path / f"{table.id}.seats.json").stat().st_mode & 0o077 == 0


def test_serve_fails_clearly(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["serve", str(tmp_path / "nope.rules"), "--games", str(tmp_path / "g")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output and "nope.rules" in missing.output
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        taken = runner.invoke(main, ["serve", NAISHI, "--port", str(port), "--games", str(tmp_path / "g")])
    assert taken.exit_code == 1 and f"cannot listen on 127.0.0.1:{port}" in taken.output, taken.output


def test_without_the_web_extra_serve_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    ran = CliRunner().invoke(main, ["serve", NAISHI, "--games", str(tmp_path / "g")])
    assert ran.exit_code == 1 and "pip install 'ruleforge[web]'" in ran.output and "Traceback" not in ran.output
    assert not (tmp_path / "g").exists()  # nothing made before it knew it could serve
