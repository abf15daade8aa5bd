"""The pytest plugin ruleforge installs (entry point `pytest11`): run `pytest` in a folder of
rules files and every scoring example beside them is a test item of its own.

- `foo.examples.json` is collected: one item per example `foo.rules` runs (a variant's
  inherited ones too); a variant with no examples file of its own is collected through its
  `.rules` file when its bases have examples. A recorded playthrough, `foo.playthroughs/NAME.txt`,
  is one item (ruleforge/testing/playthrough_items.py). Move counts, `foo.perft.json`, are an
  item per entry (ruleforge/testing/perft_items.py).
- Fixtures: `ruleforge_rules(path)` loads a rules file (relative to the test file, once per
  session), `ruleforge_position(rules, position)` builds a position, `ruleforge_example` runs a
  test once per example (of the rules files beside the test, or those a
  `@pytest.mark.ruleforge_rules("a.rules", ...)` names), and `breakdown_snapshot` is syrupy's
  `snapshot` storing score breakdowns as text (`pip install 'ruleforge[test]'`).
- `-p no:ruleforge` turns it all off; the ini option `ruleforge_collect = false` only the
  collection of examples files, recorded playthroughs and move counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from ..diagnostics import GameError, RulesError
from ..engine import Game
from ..inert import inert
from ..limits import LIMITS
from ..named_files import RefusedFile, read_bytes, real_path, refusal
from ..rules import Rules
from ..scoresheet import Breakdown, read_json
from .checks import Outcome, example_game, run_example
from .examples import EXAMPLES_SUFFIX, Example, examples_file, load_examples, rules_file_of
from .perft_files import PERFT_SUFFIX
from .perft_items import PerftFile
from .playthrough_items import RecordFile
from .playthroughs import is_record

EXTENDS = re.compile(r'^\s*extends\s+"([^"\n]+)"', re.M)
CACHE = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("ruleforge_collect", type="bool", default=True,
                  help="ruleforge: collect the scoring examples of rules files (foo.examples.json) and their "
                       "recorded playthroughs (foo.playthroughs/*.txt) and move counts (foo.perft.json) as tests")
    parser.addoption("--ruleforge-agents", metavar="NAME,...", default="",
                     help="ruleforge: agents of your own (module:Class, file.py:Class) that recorded playthroughs "
                          "may name; otherwise a record names only built-in agents, so that no record runs code")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[CACHE] = {}
    config.addinivalue_line("markers", "ruleforge_rules(*paths): the rules files whose examples the "
                                       "ruleforge_example fixture runs, relative to the test file")


def load_cached(config: pytest.Config, path: Path) -> Rules:
    """A rules file loaded once per session (RulesError as it is)."""
    cache = config.stash[CACHE]
    key = real_path(path)  # never Path.resolve: a loop of links raises RuntimeError on Python 3.11
    if key not in cache:
        try:
            cache[key] = Rules(path)
        except RulesError as err:
            cache[key] = err
    found = cache[key]
    if isinstance(found, RulesError):
        raise found
    return found


# --- collecting examples files ------------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not parent.config.getini("ruleforge_collect"):
        return None
    if is_record(file_path):
        return RecordFile.from_parent(parent, path=file_path)
    if file_path.name.endswith(PERFT_SUFFIX):
        return PerftFile.from_parent(parent, path=file_path)
    if file_path.name.endswith(EXAMPLES_SUFFIX):
        return ExamplesFile.from_parent(parent, path=file_path, rules_path=rules_file_of(file_path))
    if file_path.suffix == ".rules" and not examples_file(file_path).exists() and _bases_have_examples(file_path):
        return ExamplesFile.from_parent(parent, path=file_path, rules_path=file_path)
    return None


def _bases_have_examples(path: Path) -> bool:
    """Whether a file a rules file extends (read as text: no parse) has examples beside it. Only
    rules files are read (`named_files.refusal`), along a chain no longer than `extends_depth`
    that does not loop; anything else is no: loading the rules reports it."""
    seen = {real_path(path)}
    for _ in range(LIMITS.extends_depth):
        try:
            text = read_bytes(path, ".rules", "rules file").decode("utf-8-sig", errors="replace")
        except RefusedFile:
            return False
        match = EXTENDS.search(text)
        if match is None:
            return False
        base = path.parent / match.group(1)
        if refusal(base, ".rules") is not None or real_path(base) in seen:
            return False
        if examples_file(base).is_file():
            return True
        seen.add(real_path(base))
        path = base
    return False


class ExamplesFile(pytest.File):
    """The examples a rules file runs, each an item."""

    def __init__(self, *, rules_path: Path, **kwargs: Any):
        super().__init__(**kwargs)
        self.rules_path = rules_path

    def collect(self) -> Iterator[pytest.Item]:
        """An item per example; a file that cannot be read (a broken rules file, an examples
        file that is not one) is one failing item saying why, and the rest of the run goes on."""
        if not self.rules_path.is_file():
            yield ProblemItem.from_parent(self, name="examples", problem=(
                f"{self.path.name}: no rules file '{self.rules_path.name}' beside it "
                f"(an examples file foo{EXAMPLES_SUFFIX} belongs to foo.rules)"))
            return
        try:
            rules = load_cached(self.config, self.rules_path)
            own = self.path if self.path.name.endswith(EXAMPLES_SUFFIX) else None
            examples = load_examples(rules.files, own)
        except (RulesError, GameError) as err:
            yield ProblemItem.from_parent(self, name="examples", problem=_plain_problem(err) or str(err))
            return
        for example in examples:
            yield ExampleItem.from_parent(self, name=inert(example.name), example=example)  # a name shown raw by pytest


def _plain_problem(err: BaseException) -> str | None:
    """What a user must fix, without a traceback: a broken rules file, an examples file that
    is not one."""
    if isinstance(err, RulesError):
        return err.render()
    if isinstance(err, GameError):
        return str(err)
    return None


class Problem(Exception):
    """Why the examples of a file cannot run, worded for its author."""


class ProblemItem(pytest.Item):
    """Stands for the examples of a file that cannot be read: it fails with the reason."""

    def __init__(self, *, problem: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        raise Problem(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        return inert(self.problem) if isinstance(excinfo.value, Problem) else super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, "examples"


class ExampleFailed(Exception):
    def __init__(self, outcome: Outcome):
        super().__init__(outcome.example.name)
        self.outcome = outcome


class ExampleItem(pytest.Item):
    """One example: its expectations checked against what the rules score."""

    def __init__(self, *, example: Example, **kwargs: Any):
        super().__init__(**kwargs)
        self.example = example

    def runtest(self) -> None:
        assert isinstance(self.parent, ExamplesFile)
        outcome = run_example(load_cached(self.config, self.parent.rules_path), self.example)
        if not outcome.passed:
            raise ExampleFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ExampleFailed):
            ex = excinfo.value.outcome.example
            assert isinstance(self.parent, ExamplesFile)
            head = [f"{ex.name} ({ex.source}; {ex.origin.name} #{ex.index}) against {self.parent.rules_path.name}:"]
            return inert("\n".join(head + excinfo.value.outcome.report()))  # from files: shown inert
        problem = _plain_problem(excinfo.value)
        return inert(problem) if problem is not None else super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"example: {inert(self.example.name)}"


# --- fixtures --------------------------------------------------------------------------------


@attrs.frozen(eq=False)
class ExampleCase:
    """An example with the rules it runs against: what `ruleforge_example` gives a test."""

    rules: Rules
    example: Example

    def game(self) -> Game:
        return _or_fail(lambda: example_game(self.rules, self.example))

    def outcome(self) -> Outcome:
        return run_example(self.rules, self.example)

    def breakdown(self) -> Breakdown:
        """The full breakdown of the example's position (every item, every player)."""
        outcome = self.outcome()
        if outcome.breakdown is None:
            pytest.fail(f"{self.example.where}: {outcome.error}", pytrace=False)
        return outcome.breakdown

    def text(self) -> str:
        return self.breakdown().text()

    def __str__(self) -> str:
        return self.example.name

    def __repr__(self) -> str:
        return f"<example '{self.example.name}' of {self.rules.files[0].name}>"


def _or_fail(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except GameError as err:
        pytest.fail(str(err), pytrace=False)


def _folder(request: pytest.FixtureRequest) -> Path:
    return Path(request.node.path).parent


@pytest.fixture
def ruleforge_rules(request: pytest.FixtureRequest) -> Callable[[str | Path], Rules]:
    """`ruleforge_rules("my_variant.rules")`: a rules file, relative to the test file, loaded
    once per session; a broken one fails the test with its diagnostics."""
    folder = _folder(request)

    def load(path: str | Path) -> Rules:
        try:
            return load_cached(request.config, folder / path)
        except RulesError as err:
            pytest.fail(err.render(), pytrace=False)

    return load


@pytest.fixture
def ruleforge_position(request: pytest.FixtureRequest,
                       ruleforge_rules: Callable[[str | Path], Rules]) -> Callable[..., Game]:
    """`ruleforge_position(rules, "pos.json")` (or a dict, or a rules path): the position as
    a game, files relative to the test file (docs/positions.md)."""
    folder = _folder(request)

    def build(rules: Rules | str | Path, position: dict[str, Any] | str | Path) -> Game:
        loaded = rules if isinstance(rules, Rules) else ruleforge_rules(rules)
        data = position if isinstance(position, dict) else _or_fail(lambda: read_json(folder / position,
                                                                                      "position file"))
        return _or_fail(lambda: loaded.position(data))

    return build


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test asking for `ruleforge_example` runs once per example."""
    if "ruleforge_example" not in metafunc.fixturenames:
        return
    folder = Path(metafunc.definition.path).parent
    marker = metafunc.definition.get_closest_marker("ruleforge_rules")
    if marker is not None:
        paths = [folder / p for p in marker.args]
    else:
        paths = sorted({rules_file_of(f) for f in folder.glob(f"*{EXAMPLES_SUFFIX}")}
                       | {f for f in folder.glob("*.rules") if _bases_have_examples(f)})
    cases: list[Any] = []
    ids: list[str] = []
    for path in paths:
        try:
            rules = load_cached(metafunc.config, path)
            examples = load_examples(rules.files)
        except (RulesError, GameError) as err:  # the test fails saying why; the rest of the run goes on
            cases.append(UnreadableExamples(_plain_problem(err) or str(err)))
            ids.append(f"{path.stem}: examples")
            continue
        cases += [ExampleCase(rules, e) for e in examples]
        ids += [f"{path.stem}: {e.name}" if len(paths) > 1 else e.name for e in examples]
    if not cases:
        cases.append(UnreadableExamples(f"no scoring examples for {metafunc.definition.nodeid}: none beside it in "
                                        f"{folder} (name rules files with @pytest.mark.ruleforge_rules)"))
        ids.append("examples")
    metafunc.parametrize("ruleforge_example", cases, ids=ids)


class UnreadableExamples:
    """What `ruleforge_example` is when the examples cannot be read: using it fails the test
    with the reason."""

    def __init__(self, problem: str):
        self.problem = problem

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        pytest.fail(f"ruleforge_example: {self.problem}", pytrace=False)


@pytest.fixture
def breakdown_snapshot(request: pytest.FixtureRequest) -> Any:
    """syrupy's `snapshot`, storing score breakdowns as text (one line per player and item) in
    `__snapshots__/<test module>.scores`; `pytest --snapshot-update` records them."""
    try:
        from .snapshots import BreakdownExtension

        snapshot = request.getfixturevalue("snapshot")
    except (ImportError, pytest.FixtureLookupError):
        pytest.fail("breakdown_snapshot needs syrupy: pip install 'ruleforge[test]'", pytrace=False)
    return snapshot.use_extension(BreakdownExtension)
