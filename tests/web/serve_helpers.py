"""Helpers of the tests of `ruleforge serve`: the server as a child process (from
bench/load_serve.py, which the load test shares), Debian's Chromium, and a seat played by
clicking on its page as a person would."""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
CHROMIUM = "/usr/bin/chromium"  # Debian's package (CI: .ci/run installs it); never a downloaded browser
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
WAIT_MS = 20_000  # the longest wait for a page to change: a hang guard, not a timing


def _bench_module() -> Any:
    name = "load_serve"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "load_serve.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


load_serve = _bench_module()
ServeProcess = load_serve.ServeProcess
create_game = load_serve.create_game
api_of = load_serve.api_of


def need_chromium() -> str:
    """Debian's Chromium, or a skip saying why (a failure on CI, which installs it)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing on CI: .ci/run should have installed it (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium); CI installs it and runs these tests")
    pytest.importorskip("playwright.sync_api", reason="Playwright for Python is in the dev extra")
    return CHROMIUM


# --- playing a seat's page by clicking -------------------------------------------------------------

# What changes on a seat's page when it changes: the decision panel, whose turn, the log, the scores.
SIGNATURE = """() => {
  const d = document.getElementById('decide');
  return [d.innerHTML, d.className, document.getElementById('turn').textContent,
          document.getElementById('log').children.length, document.getElementById('scores').innerHTML].join('\\u0001');
}"""

# 'over', 'mine' (a decision to click, the page not busy sending), or null (wait)
READY = """() => {
  if (document.querySelector('#scores table.rf-breakdown')) return 'over';
  const d = document.getElementById('decide');
  if (d.classList.contains('rf-busy')) return null;
  if (!document.getElementById('turn').classList.contains('rf-your-turn')) return null;
  if (d.querySelector('.rf-value') || document.querySelector('#picture .rf-target')) return 'mine';
  return null;
}"""

CHANGED = f"""(old) => {{
  const now = ({SIGNATURE})();
  return now !== old && !document.getElementById('decide').classList.contains('rf-busy');
}}"""


def ready(page: Any) -> str | None:
    return page.evaluate(READY)


def wait_ready(page: Any, timeout: float = WAIT_MS) -> str:
    """Wait until it is this page's turn to click (or the game is over): 'mine' or 'over'."""
    return page.wait_for_function(READY, timeout=timeout).json_value()


def click_piece(page: Any, rng: random.Random) -> None:
    """One click of a person at their turn: a random clickable thing of the picture if the open
    piece has any, else a random value button; then wait for the page to change."""
    before = page.evaluate(SIGNATURE)
    targets = page.locator("#picture .rf-target")
    count = targets.count()
    if count:  # near its top left corner: a card of a crowded pile shows only its left edge
        targets.nth(rng.randrange(count)).click(position={"x": 4, "y": 6})
    else:
        values = page.locator("#decide .rf-value")
        values.nth(rng.randrange(values.count())).click()
    page.wait_for_function(CHANGED, arg=before, timeout=WAIT_MS)
    error = page.locator("#decide .rf-error")
    if error.count():
        raise AssertionError(f"the page refused a click: {error.first.text_content()}")


def decide(page: Any, rng: random.Random, most_clicks: int = 20) -> None:
    """Click pieces until this page's decision is sent (its turn is over, or a new decision of
    the same turn shows: the log grows)."""
    log_before = page.locator("#log li").count()
    for _ in range(most_clicks):
        click_piece(page, rng)
        state = ready(page)
        if state != "mine" or page.locator("#log li").count() != log_before:
            return
        if not page.locator("#decide .rf-back").count():  # no piece chosen: a new decision began
            return
    raise AssertionError(f"a decision took more than {most_clicks} clicks")


def to_act(page: Any) -> str:
    """Who is to act, as the page's bar says ('P1'), or '' when the game is over."""
    text = page.locator("#turn").text_content() or ""
    if page.locator("#turn.rf-your-turn").count():
        return page.evaluate("() => document.title.split('(').pop().replace(')', '')")
    return text.split(" to act", 1)[0] if " to act" in text else ""


def snapshot(page: Any) -> tuple[str, list[str]]:
    """The picture's HTML and the log's lines, as the page shows them."""
    return page.locator("#picture").inner_html(), page.locator("#log li").all_text_contents()


def finished(page: Any) -> dict[str, Any]:
    """The end of a game as a page shows it: its scores table, the winner's line, the log."""
    scores = page.locator("#scores")
    return {"table": scores.locator("table.rf-breakdown").count(), "text": scores.text_content() or "",
            "log": page.locator("#log li").count()}
