"""A log's rules and an example's position file are read only if they are regular files of
their kind (`.rules`, `.json`), outside /proc, /sys and /dev; what is refused is named, never
quoted. The pytest plugin, looking for a base's examples, reads only rules files too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ruleforge.cli import main

ROOT = Path(__file__).parents[2]
PICK = ROOT / "tests" / "synthetic" / "pick.rules"


def up_to_root(folder: Path) -> str:
    return "../" * len(folder.resolve().parts)


def test_a_log_naming_files_that_are_no_rules_reads_none_of_them(tmp_path: Path) -> None:
    (tmp_path / "folder.rules").mkdir()
    log = tmp_path / "game.json"
    log.write_text(json.dumps({
        "format": "ruleforge-log/2", "rules": "/proc/self/environ", "players": 2, "seed": 1, "steps": [],
        "rules_absolute": "/etc/passwd", "rules_from_log": "folder.rules"}))
    result = CliRunner().invoke(main, ["replay", str(log)])
    assert result.exit_code == 1
    assert "'/proc/self/environ' is not a rules file: it is a file of /proc" in result.stderr
    assert "'/etc/passwd' is not a rules file: its name does not end in .rules" in result.stderr
    assert f"'{tmp_path / 'folder.rules'}' is not a rules file: it is a folder" in result.stderr
    assert "give the rules file with --rules FILE" in result.stderr
    assert "PATH=" not in result.output and "root:" not in result.output


def test_an_example_names_only_a_json_file_as_its_position(tmp_path: Path) -> None:
    (tmp_path / "pick.rules").write_text(PICK.read_text())
    os.mkfifo(tmp_path / "pipe.json")  # reading it would wait for ever
    names = {"/proc/self/environ": "it is a file of /proc",
             up_to_root(tmp_path) + "etc/passwd": "its name does not end in .json",
             "/dev/zero": "it is a device",  # reading it would fill the memory
             "pipe.json": "it is a named pipe"}
    examples = [{"name": f"e{k}", "source": "ours", "position": name, "expect": {"P1": 0}}
                for k, name in enumerate(names)]
    (tmp_path / "pick.examples.json").write_text(json.dumps({"format": "ruleforge-examples/1",
                                                             "examples": examples}))
    result = CliRunner().invoke(main, ["test", str(tmp_path / "pick.rules")])
    assert result.exit_code == 1
    for k, (name, why) in enumerate(names.items()):
        assert f"example #{k + 1} 'e{k}': position: '{name}' is not a position file: {why}" in result.output
    assert "PATH=" not in result.output and "root:" not in result.output


def test_the_plugin_reads_no_base_that_is_no_rules_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.rules")
    (tmp_path / "v.rules").write_text('extends "pipe.rules"\n')
    (tmp_path / "a.rules").write_text('extends "b.rules"\n')  # a loop: followed once round, no more
    (tmp_path / "b.rules").write_text('extends "a.rules"\n')
    code = ("import sys; from pathlib import Path; from ruleforge.testing.plugin import _bases_have_examples; "
            "print([_bases_have_examples(Path(p)) for p in sys.argv[1:]])")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "v.rules"), str(tmp_path / "a.rules")],
                          capture_output=True, text=True, timeout=120)  # a pipe opened would wait: killed then
    assert done.stdout == "[False, False]\n", done.stderr
