"""The package builds into a wheel that holds every subpackage and the grammar (offline)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_wheel_holds_the_cli_package_and_the_grammar(tmp_path: Path) -> None:
    source = tmp_path / "src"  # a copy: building leaves build/ and *.egg-info where it runs
    shutil.copytree(ROOT / "ruleforge", source / "ruleforge", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next((tmp_path / "dist").glob("ruleforge-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ruleforge").rglob("*.py")}
    assert modules <= names, modules - names
    assert {"ruleforge/cli/__init__.py", "ruleforge/cli/play.py", "ruleforge/grammar/ruleforge.lark"} <= names
    assert "ruleforge/lsp/language_notes.json" in names  # the language server's hover notes
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    entries = zipfile.ZipFile(wheel).read(entry).decode()
    assert "ruleforge = ruleforge.__main__:run" in entries
    # the pytest plugin, found by pytest wherever ruleforge is installed (docs/testing.md)
    assert "[pytest11]\nruleforge = ruleforge.testing.plugin" in entries
    assert "ruleforge/testing/plugin.py" in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "Provides-Extra: test" in metadata
    assert 'Requires-Dist: syrupy>=4.6; extra == "test"' in metadata
