"""The games folder of `ruleforge serve` holds secrets: the host page's token (which lists every
seat's link), the seats' tokens, and logs that tell every hidden card. So it must be the user's
own and private (else refused, saying why), a file in it is believed only if no one else could
have put it there, every file written there is 0600, and a bad file in it (nested 100,000 deep,
a named pipe, a folder) is skipped with a warning naming it: the server starts anyway.

The tests run as root, so "another user" is a file or folder given to uid 65534 (nobody)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from click.testing import CliRunner  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.cli import main  # noqa: E402
from ruleforge.private_folders import UnsafeFolder, private_folder  # noqa: E402
from ruleforge.web.tables import Tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAISHI = str(ROOT / "games" / "naishi.rules")
NOBODY = 65534
PLANTED = "planted-token-known-to-the-attacker-0123"
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")


@pytest.fixture()
def busy_port() -> Iterator[int]:
    """A port already taken: `serve` checks its folder and token, then fails to listen and ends."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def serve_until_listening(games: Path, port: int) -> Any:
    ran = CliRunner().invoke(main, ["serve", NAISHI, "--port", str(port), "--games", str(games)])
    assert "Traceback" not in ran.output and not isinstance(ran.exception, (AssertionError, RecursionError))
    return ran


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --- the folder -------------------------------------------------------------------------------


@needs_root
def test_a_games_folder_of_another_user_is_refused(tmp_path: Path, busy_port: int) -> None:
    games = tmp_path / "games"
    games.mkdir(mode=0o700)
    os.chown(games, NOBODY, NOBODY)
    ran = serve_until_listening(games, busy_port)
    assert ran.exit_code == 1 and "belongs to another user (uid 65534)" in ran.output, ran.output
    assert list(games.iterdir()) == []  # no token written there


@pytest.mark.parametrize("folder_mode", [0o777, 0o770, 0o702])
def test_a_games_folder_others_may_write_is_refused(tmp_path: Path, busy_port: int, folder_mode: int) -> None:
    games = tmp_path / "games"
    games.mkdir()
    games.chmod(folder_mode)
    (games / "host-token.json").write_text(json.dumps({"token": PLANTED}))
    ran = serve_until_listening(games, busy_port)
    assert ran.exit_code == 1 and "others may write to the games folder" in ran.output, ran.output
    assert mode(games) == folder_mode  # left as it was, for its owner to look into


def test_a_games_folder_that_is_a_symbolic_link_is_refused(tmp_path: Path, busy_port: int) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "games").symlink_to(real)
    ran = serve_until_listening(tmp_path / "games", busy_port)
    assert ran.exit_code == 1 and "is a symbolic link" in ran.output, ran.output
    assert list(real.iterdir()) == []


def test_a_games_folder_where_others_could_swap_it_is_refused(tmp_path: Path, busy_port: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # anyone may rename what is in it
    ran = serve_until_listening(shared / "games", busy_port)
    assert ran.exit_code == 1 and "which others may write to" in ran.output, ran.output
    shared.chmod(0o1777)  # as /tmp: only a thing's owner may rename it
    ran = serve_until_listening(shared / "games", busy_port)
    assert ran.exit_code == 1 and "cannot listen" in ran.output and mode(shared / "games") == 0o700, ran.output


@needs_root
def test_a_games_folder_inside_another_users_folder_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    (theirs / "games").mkdir(parents=True, mode=0o700)
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(UnsafeFolder, match="belongs to another user"):
        private_folder(theirs / "games", "games folder")


def test_the_users_own_folder_that_others_may_read_is_made_private(tmp_path: Path, busy_port: int) -> None:
    games = tmp_path / "games"
    games.mkdir()
    games.chmod(0o755)
    ran = serve_until_listening(games, busy_port)
    assert ran.exit_code == 1 and "cannot listen" in ran.output, ran.output  # it got as far as listening
    assert "made the games folder" in ran.output and "it was 0755" in ran.output
    assert mode(games) == 0o700 and mode(games / "host-token.json") == 0o600
    again = serve_until_listening(games, busy_port)  # private now: nothing more to say
    assert "made the games folder" not in again.output


# --- the host token ---------------------------------------------------------------------------


def token_of(games: Path) -> str:
    return json.loads((games / "host-token.json").read_text())["token"]


@needs_root
def test_a_host_token_planted_by_someone_else_is_never_used(tmp_path: Path, busy_port: int) -> None:
    games = tmp_path / "games"
    games.mkdir(mode=0o700)
    token_file = games / "host-token.json"
    token_file.write_text(json.dumps({"token": PLANTED}))
    token_file.chmod(0o600)
    ran = serve_until_listening(games, busy_port)  # the user's own file: kept, so the check can fail
    assert token_of(games) == PLANTED and "warning" not in ran.output, ran.output
    for plant in ("other owner", "others write", "link"):
        token_file.unlink()
        if plant == "link":
            ours = tmp_path / "token-elsewhere.json"
            ours.write_text(json.dumps({"token": PLANTED}))
            ours.chmod(0o600)
            token_file.symlink_to(ours)
        else:
            token_file.write_text(json.dumps({"token": PLANTED}))
            token_file.chmod(0o666 if plant == "others write" else 0o644)
            if plant == "other owner":
                os.chown(token_file, NOBODY, NOBODY)
        ran = serve_until_listening(games, busy_port)
        assert "a new host token replaces it" in ran.output and "host-token.json" in ran.output, plant
        assert token_of(games) != PLANTED, plant
        info = os.lstat(token_file)
        assert stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and mode(token_file) == 0o600, plant
    assert json.loads((tmp_path / "token-elsewhere.json").read_text())["token"] == PLANTED  # not written through


def test_a_broken_host_token_file_is_replaced_with_a_warning(tmp_path: Path, busy_port: int) -> None:
    games = tmp_path / "games"
    games.mkdir(mode=0o700)
    token_file = games / "host-token.json"
    for text in ['{"token": ' + "[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"token": "short"}', "\xff"]:
        token_file.write_text(text, encoding="latin-1")
        token_file.chmod(0o600)
        ran = serve_until_listening(games, busy_port)
        assert ran.exit_code == 1 and "cannot listen" in ran.output, ran.output
        assert "a new host token replaces it" in ran.output
        assert len(token_of(games)) >= 32
    token_file.unlink()
    os.mkfifo(token_file)  # a named pipe: read, it would wait for ever
    ran = serve_until_listening(games, busy_port)
    assert "a new host token replaces it" in ran.output and "cannot listen" in ran.output, ran.output
    token_file.unlink()
    token_file.mkdir()  # a folder cannot be replaced by a file: refused, saying so
    ran = serve_until_listening(games, busy_port)
    assert ran.exit_code == 1 and "cannot write the host token file" in ran.output, ran.output


# --- the games' files -------------------------------------------------------------------------


def play_a_game(folder: Path, steps: int = 3) -> tuple[str, list[str]]:
    rules = ruleforge.load(NAISHI)

    async def play() -> tuple[str, list[str]]:
        table = Tables(rules, NAISHI, folder).create(2, 9, {}, ["human", "human"])
        for _ in range(steps):
            await table.act(table.game.current_player, table.game.legal_labels()[0])
        return table.id, table.tokens

    return asyncio.run(play())


def resume(folder: Path) -> tuple[Tables, list[str]]:
    warnings: list[str] = []
    tables = Tables(ruleforge.load(NAISHI), NAISHI, folder, warn=warnings.append)
    tables.resume_all()
    return tables, warnings


def plant_copy(folder: Path, game_id: str, new_id: str) -> tuple[Path, Path]:
    """A copy of a game's two files under another id, with tokens of its own (PLANTED the first):
    what a stranger who knew the format would write to get seat links they know."""
    seats = json.loads((folder / f"{game_id}.seats.json").read_text())
    seats["tokens"] = [PLANTED, f"{new_id}-second-seat-token-0123456789"]
    seats_path, log_path = folder / f"{new_id}.seats.json", folder / f"{new_id}.json"
    seats_path.write_text(json.dumps(seats))
    shutil.copy(folder / f"{game_id}.json", log_path)
    seats_path.chmod(0o600)
    log_path.chmod(0o600)
    return seats_path, log_path


@needs_root
@pytest.mark.parametrize("plant", ["seats of another owner", "seats others may write", "seats a link",
                                   "log of another owner", "log others may write", "log a link"])
def test_planted_seat_files_give_no_seat(tmp_path: Path, plant: str) -> None:
    game_id, tokens = play_a_game(tmp_path)
    seats_path, log_path = plant_copy(tmp_path, game_id, "planted")
    control, control_warnings = resume(tmp_path)  # the user's own copy: resumed, so the check can fail
    assert control.seat_of(PLANTED) is not None and control_warnings == []
    target = seats_path if plant.startswith("seats") else log_path
    if plant.endswith("another owner"):
        os.chown(target, NOBODY, NOBODY)
    elif plant.endswith("others may write"):
        target.chmod(0o666)
    else:
        moved = tmp_path.parent / f"{tmp_path.name}-{target.name}"
        target.rename(moved)
        target.symlink_to(moved)
    tables, warnings = resume(tmp_path)
    assert tables.seat_of(PLANTED) is None and tables.seat_of(tokens[0]) is not None
    assert len(warnings) == 1 and "planted.seats.json" in warnings[0], warnings
    reason = {"another owner": "another user", "others may write": "others may write", "a link": "symbolic link"}
    assert next(why for end, why in reason.items() if plant.endswith(end)) in warnings[0], warnings


def test_every_file_of_a_game_in_play_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)  # the widest: a file made by the umask's mode would be 0666
    try:
        game_id, _ = play_a_game(tmp_path)
        for name in (f"{game_id}.json", f"{game_id}.seats.json"):
            assert mode(tmp_path / name) == 0o600, name
        # files of an older server, readable by others: private again once the game resumes
        (tmp_path / f"{game_id}.json").chmod(0o644)
        (tmp_path / f"{game_id}.seats.json").chmod(0o644)
        tables, warnings = resume(tmp_path)
        assert list(tables.by_id) == [game_id] and warnings == []
        for name in (f"{game_id}.json", f"{game_id}.seats.json"):
            assert mode(tmp_path / name) == 0o600, name
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    finally:
        os.umask(old)


def test_a_resumed_log_keeps_only_its_steps_fields(tmp_path: Path) -> None:
    """A step's other keys, nested as deep as Python's JSON reader goes, are not carried into the
    log the server writes again (nor walked by it)."""
    game_id, _ = play_a_game(tmp_path)
    log_path = tmp_path / f"{game_id}.json"
    log = json.loads(log_path.read_text())
    deep: Any = []
    for _ in range(900):
        deep = [deep]
    log["steps"][0]["extra"] = deep
    log_path.write_text(json.dumps(log))
    log_path.chmod(0o600)
    tables, warnings = resume(tmp_path)
    assert list(tables.by_id) == [game_id] and warnings == []
    assert "extra" not in json.loads(log_path.read_text())["steps"][0]


# --- a bad file does not stop start-up --------------------------------------------------------


def load_serve() -> Any:
    if "load_serve" not in sys.modules:
        spec = importlib.util.spec_from_file_location("load_serve", ROOT / "bench" / "load_serve.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["load_serve"] = module
        spec.loader.exec_module(module)
    return sys.modules["load_serve"]


def test_bad_files_in_the_games_folder_are_skipped_and_the_server_starts(tmp_path: Path) -> None:
    pytest.importorskip("httpx2")
    import httpx2

    games = tmp_path / "games"
    games.mkdir(mode=0o700)
    game_id, tokens = play_a_game(games)
    bad = {
        "deep.seats.json": "[" * 100_000 + "]" * 100_000,
        "object.seats.json": '{"a":' * 100_000,
        "nested-log.seats.json": None,  # a good seats file whose log is nested 100,000 deep
        "list.seats.json": json.dumps([1, 2]),
        "tokens.seats.json": json.dumps({"format": "ruleforge-seats/1", "tokens": {"a" * 20: 1}}),
    }
    for name, text in bad.items():
        if text is not None:
            (games / name).write_text(text)
    plant_copy(games, game_id, "nested-log")[1].write_text('{"format": "ruleforge-log/2", "steps": ' + "[" * 100_000)
    plant_copy(games, game_id, "pipelog")[1].unlink()
    os.mkfifo(games / "pipelog.json")  # a good seats file whose log is a named pipe
    os.mkfifo(games / "pipe.seats.json")
    (games / "folder.seats.json").mkdir()
    (games / "zero.seats.json").symlink_to("/dev/zero")
    (games / "host-token.json").write_text('{"token": ' + "[" * 100_000)
    (games / "host-token.json").chmod(0o600)
    for path in games.iterdir():
        if path.is_file() and not path.is_symlink():
            path.chmod(0o600)
    skipped = ["deep", "object", "nested-log", "list", "tokens", "pipe", "pipelog", "folder", "zero"]
    with load_serve().ServeProcess("games/naishi.rules", games, start_within=120.0) as server:
        output = "\n".join(server.lines)
        assert "Traceback" not in output and "startup failed" not in output, output
        for name in skipped:
            assert f"not resuming {name}.seats.json" in output, (name, output)
        assert "a new host token replaces it" in output and "host-token.json" in output
        with httpx2.Client(timeout=30.0) as client:
            page = client.get(server.host)
            assert page.status_code == 200 and f"game-{game_id}" in page.text
            assert client.get(server.base + f"api/seat/{tokens[0]}").status_code == 200
