"""Fixtures of the tests of `ruleforge serve`: servers as child processes in a test's folder,
always stopped, and one headless Chromium per test module."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import CHROMIUM_ARGS, ServeProcess, need_chromium


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`serve(rules, games=None, port=0)`: a started `ruleforge serve` (stopped at the end)."""
    started: list[Any] = []

    def start(rules: str, games: Path | None = None, port: int = 0) -> Any:
        server = ServeProcess(rules, games or tmp_path / "games", port=port)
        started.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
