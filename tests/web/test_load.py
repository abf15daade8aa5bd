"""Load on `ruleforge serve` over loopback: 20 games at once, in each a client plays P1 with
random legal actions through the API while a bot plays P2, to the end of every game. Asserts
that every game finished and every answer was a 200; prints the latency of the actions (no
timing is asserted, only a generous deadline for the whole run)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="ruleforge serve needs the web extra")
pytest.importorskip("httpx2", reason="the load's client is httpx2")

from serve_helpers import ServeProcess, load_serve  # noqa: E402

GAMES = 20
WITHIN = 180.0  # seconds for the whole run: a hang guard, not a timing


def test_twenty_games_at_once_play_to_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = ServeProcess("games/naishi.rules", tmp_path / "games")
    try:
        server.start()
        figures = load_serve.run_load(server.host, server.title, GAMES, 1000, 2, 7, WITHIN)
    finally:
        server.stop()
    results = figures["results"]
    assert len(results) == GAMES
    assert figures["finished"] == GAMES, [r for r in results if not r["over"]]
    for result in results:
        assert result["sent"] > 5  # the person's decisions of a whole game
        assert set(result["statuses"]) == {200}
    assert figures["actions"] == sum(r["sent"] for r in results)
    # every game's log is in the folder, whole
    logs = [p for p in (tmp_path / "games").glob("*.json") if p.name.count(".") == 1 and p.name != "host-token.json"]
    assert len(logs) == GAMES and all('"over": true' in p.read_text(encoding="utf-8") for p in logs)
    with capsys.disabled():
        print("\n" + load_serve.table(figures))


def test_the_bench_script_runs_with_small_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert load_serve.main(["--games", "2", "--actions", "3", "--within", "60"]) == 0
    out = capsys.readouterr().out
    assert "median ms" in out and "p99 ms" in out
    row = out.strip().splitlines()[-1].split()
    assert row[:3] == ["Naishi", "2", "6"]  # two games, three actions each
