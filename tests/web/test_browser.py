"""Whole games played by clicking on the seat pages of `ruleforge serve`, in headless Chromium:
two people at once, a person against a bot, a page closed and opened again, a server stopped
and started again mid-game, and a link that is nobody's.

Each decision is taken as a person would: a random clickable thing of the picture when the open
piece has any (`.rf-target`), else a random value button (`.rf-value`), waiting after each
click for the page to change. Screenshots of the pages mid-game go to the test's folder (and to
$RULEFORGE_SHOTS too, when set, to look at them)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from leak_check import body_text, leaks, replay_knowledge
from serve_helpers import (
    ROOT,
    api_of,
    create_game,
    decide,
    finished,
    need_chromium,
    snapshot,
    wait_ready,
)

import ruleforge

NAISHI = "games/naishi.rules"
NAKASENDO = "games/nakasendo.rules"
GUARD = 120.0  # seconds for a whole game: a hang guard, not a timing


pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _chromium() -> None:
    need_chromium()


def open_seat(browser: Any, link: str, heard: list[Any] | None = None) -> tuple[Any, Any]:
    """A new browser context (a person of their own) on a seat's link; every answer its page
    receives is added to `heard` when given."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if heard is not None:
        context.on("response", lambda response: heard.append(response))
    page = context.new_page()
    page.set_default_timeout(20_000)
    response = page.goto(link)
    assert response is not None and response.status == 200
    page.wait_for_selector("#title:not(:empty)")
    return context, page


def shot(page: Any, folder: Path, name: str) -> Path:
    path = folder / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000
    if os.environ.get("RULEFORGE_SHOTS"):
        out = Path(os.environ["RULEFORGE_SHOTS"])
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, out / name)
    return path


def play(pages: dict[str, Any], api: str, rng: random.Random, most_decisions: int = 10_000,
         on_decision: Any = None) -> int:
    """Play the people's pages (by seat name) by clicking until the game is over or
    `most_decisions` were taken; how many were taken. Who is to act is asked of the server
    (`api`: any seat's), as a page may be a moment behind it."""
    deadline = time.monotonic() + GUARD
    taken = 0
    with httpx2.Client(timeout=60) as client:
        while taken < most_decisions:
            assert time.monotonic() < deadline, f"the game did not end within {GUARD} s ({taken} decisions)"
            state = client.get(api).json()
            assert not state["failure"], state["failure"]
            if state["over"]:
                for page in pages.values():
                    wait_ready(page)
                return taken
            page = pages.get(state["to_act"])
            if page is None:  # a bot's turn: wait for its move as a page does
                client.get(api, params={"after": state["version"]})
                continue
            if wait_ready(page) == "over":
                return taken
            decide(page, rng)
            taken += 1
            if on_decision is not None:
                on_decision(taken)
    return taken


def assert_over(page: Any) -> None:
    page.wait_for_selector("#scores table.rf-breakdown")
    end = finished(page)
    assert end["table"] == 1
    assert "Winner:" in end["text"] or "Shared win:" in end["text"]
    assert "★" in end["text"]
    assert end["log"] > 10
    assert page.locator("#turn").text_content() == "The game is over."


@contextlib.contextmanager
def two_seats(browser: Any, links: list[str], heard: list[Any] | None = None) -> Iterator[dict[str, Any]]:
    """The pages of P1's and P2's links, each in a browser context of its own, closed after
    (every answer P1's page receives is added to `heard` when given)."""
    contexts = []
    try:
        pages = {}
        for seat, link in zip(("P1", "P2"), links):
            context, page = open_seat(browser, link, heard if seat == "P1" else None)
            contexts.append(context)
            pages[seat] = page
        yield pages
    finally:
        for context in contexts:
            context.close()


def test_naishi_two_people_click_to_the_end(serve: Any, browser: Any, tmp_path: Path) -> None:
    server = serve(NAISHI)
    with httpx2.Client(timeout=30) as client:
        game_id, links = create_game(client, server.host, 2, 11, ["human", "human"])
    heard: list[Any] = []
    with two_seats(browser, links, heard) as pages:

        def mid_game(taken: int) -> None:
            if taken == 8:
                shot(pages["P1"], tmp_path, "naishi-P1.png")
                shot(pages["P2"], tmp_path, "naishi-P2.png")

        taken = play(pages, api_of(links[0]), random.Random(1), on_decision=mid_game)
        assert taken > 20
        for page in pages.values():
            assert_over(page)
        shot(pages["P1"], tmp_path, "naishi-end.png")
        assert (tmp_path / "naishi-P1.png").exists()
        # both pages read the same end: the same table of scores
        tables = [p.locator("#scores table").inner_text() for p in pages.values()]
        assert tables[0] == tables[1]
        received = [(r.url, r.headers.get("content-type", ""), r.body()) for r in heard if r.status == 200]
    nothing_hidden_reached(received, tmp_path / "games" / f"{game_id}.json", seat=0)


def nothing_hidden_reached(received: list[tuple[str, str, bytes]], log_path: Path, seat: int) -> None:
    """The leak check over everything a browser received for a seat: every JSON answer at the
    step it says it shows, the page and its files at the start."""
    log = json.loads(log_path.read_text(encoding="utf-8"))
    every, known, _ = replay_knowledge(ruleforge.load(str(ROOT / "games" / "naishi.rules")), log, seat)
    found = []
    states = 0
    for url, kind, body in received:
        sent = body_text(kind, body)
        step = json.loads(body)["step"] if kind.startswith("application/json") else 0
        states += kind.startswith("application/json")
        if bad := leaks(every, known[step], sent):
            found.append(f"{url} at step {step}: {sorted(bad)}")
    assert states > 20 and len(received) > states  # the states, and the page with its files
    assert not found, "a browser received what its seat may not know:\n" + "\n".join(found[:20])


def test_nakasendo_two_people_click_to_the_end_each_seeing_their_own_seat(serve: Any, browser: Any,
                                                                          tmp_path: Path) -> None:
    server = serve(NAKASENDO)
    with httpx2.Client(timeout=30) as client:
        _, links = create_game(client, server.host, 2, 5, ["human", "human"])
    with two_seats(browser, links) as pages:

        def mid_game(taken: int) -> None:
            if taken == 30:
                for seat, page in pages.items():
                    shot(page, tmp_path, f"nakasendo-{seat}.png")
                    # a page is its own seat's: its title, and its own zones marked as yours
                    assert page.locator("#title").text_content() == f"Nakasendo: you are {seat}"
                    assert page.locator(".rf-view").get_attribute("data-viewer") == seat

        began = time.monotonic()
        taken = play(pages, api_of(links[0]), random.Random(2), on_decision=mid_game)
        print(f"Nakasendo: {taken} decisions clicked in {time.monotonic() - began:.1f} s")
        assert taken > 100
        for page in pages.values():
            assert_over(page)
        assert (tmp_path / "nakasendo-P2.png").exists()


def same_position(page: Any, expected: tuple[str, list[str]]) -> None:
    """Wait until the page shows `expected` (picture HTML, log lines), then check it."""
    picture, log = expected
    page.wait_for_function("(n) => document.querySelectorAll('#log li').length === n", arg=len(log))
    assert snapshot(page) == (picture, log)


def test_a_page_closed_and_opened_again_shows_the_same_position_and_plays_on(serve: Any, browser: Any) -> None:
    server = serve(NAISHI)
    with httpx2.Client(timeout=30) as client:
        _, links = create_game(client, server.host, 2, 21, ["human", "human"])
    contexts: list[Any] = []
    try:
        pages = {}
        for seat, link in zip(("P1", "P2"), links):
            context, pages[seat] = open_seat(browser, link)
            contexts.append(context)
        rng = random.Random(3)
        assert play(pages, api_of(links[0]), rng, most_decisions=7) == 7
        for page in pages.values():  # both pages caught up with the last decision
            page.wait_for_function("(n) => document.querySelectorAll('#log li').length >= n", arg=7)
        before = snapshot(pages["P1"])
        assert before[0] and before[1]
        contexts[0].close()  # P1 closes the page...
        context, pages["P1"] = open_seat(browser, links[0])  # ...and opens the link again, elsewhere
        contexts[0] = context
        same_position(pages["P1"], before)
        play(pages, api_of(links[0]), rng)
        for page in pages.values():
            assert_over(page)
    finally:
        for context in contexts:
            context.close()


def test_a_restarted_server_takes_the_game_up_where_it_stopped(serve: Any, browser: Any, tmp_path: Path) -> None:
    games = tmp_path / "kept"
    server = serve(NAISHI, games)
    with httpx2.Client(timeout=30) as client:
        _, links = create_game(client, server.host, 2, 31, ["human", "random"])
    context, page = open_seat(browser, links[0])
    try:
        rng = random.Random(4)
        assert play({"P1": page}, api_of(links[0]), rng, most_decisions=5) == 5
        assert wait_ready(page) == "mine"  # the bot has moved: nothing is left to save
        before = snapshot(page)
        old_port = int(server.base.rsplit(":", 1)[1].strip("/"))
        assert server.stop() is not None
        page.wait_for_selector("#connection:has-text('reconnecting')")
        try:  # the same port, so that the very links work; else the same links' paths on a new one
            again = serve(NAISHI, games, port=old_port)
        except Exception:  # noqa: BLE001 - the port was taken meanwhile (another test's server)
            again = serve(NAISHI, games)
        if again.base == server.base:  # the page left open finds the server again by itself
            page.wait_for_function("() => document.getElementById('connection').textContent === ''")
            same_position(page, before)
        links = [again.base + "seat/" + link.rsplit("/seat/", 1)[1] for link in links]
        context.close()
        context, page = open_seat(browser, links[0])
        same_position(page, before)
        assert wait_ready(page) == "mine"
        play({"P1": page}, api_of(links[0]), rng)
        assert_over(page)
        # the log in the games folder is the whole game, replayable
        logs = [p for p in games.glob("*.json") if not p.name.endswith(".seats.json") and p.name != "host-token.json"]
        assert len(logs) == 1 and '"over": true' in logs[0].read_text(encoding="utf-8")
    finally:
        context.close()


def test_a_link_that_is_nobodys_shows_so_and_acts_for_nobody(serve: Any, browser: Any) -> None:
    server = serve(NAISHI)
    with httpx2.Client(timeout=30) as client:
        _, links = create_game(client, server.host, 2, 41, ["human", "human"])
        version = client.get(api_of(links[0])).json()["version"]
        context = browser.new_context()
        try:
            page = context.new_page()
            response = page.goto(server.base + "seat/" + "x" * 32)
            assert response is not None and response.status == 404
            assert "No seat has this link" in page.locator("body").inner_text()
            answer = page.request.post(server.base + "api/seat/" + "x" * 32 + "/act",
                                       data={"action": "give Torii"})
            assert answer.status == 404 and "error" in answer.json()
        finally:
            context.close()
        for link in links:
            state = client.get(api_of(link)).json()
            assert state["version"] == version and state["log_count"] == 0
