"""The opt-in compiled build: a program's generated code built as a C extension with Cython.

A program runs the functions `exec` made from the trees the compiler generated. Asked for the
compiled build (`Rules.program(..., compiled=True)`, `Rules.new_game(..., compiled=True)`,
`ruleforge simulate --compiled`), the same trees, the block machine's and the generator back
end's, are written out as one Python module (`source.py`), compiled to C by Cython and built
by the C compiler (`build.py`, in a child process), kept in the user's private cache under a
digest of what it was built from (`cache.py`) and imported: its functions replace the ones
`exec` made wherever the program holds them, and its globals are the program's namespace. The
same rules and player count build once; later runs import the built module.

Without Cython or a working C compiler the program plays as it is, the ordinary build, and
one `CompiledBuildWarning` per process says why. Cython is the `compiled` extra.

A module too large to build (`compiled_source_bytes`) or a build past `build_seconds` is the
rules file's doing, not the machine's: a RulesError at the rules file, naming the limit
(`bounds.py`), and the next rules file is built as usual.
"""

from __future__ import annotations

import ast as py
import sys
import tempfile
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..ast import Pos
from ..diagnostics import Diagnostic, RulesError
from ..failed_operation import GENERATED_FILES
from . import cache
from .bounds import BuildTooLarge, BuildTooLong, check_size, run_bounded
from .build import BUILD_KEY, failure_line
from .source import defined_names, extension_source, provided_names, rule_lines

# the Program's fields not searched for functions to replace: the namespace is updated by name,
# the others are the compiler's records
_NOT_SEARCHED = frozenset({"model", "module", "namespace", "compiler"})


class CompiledBuildWarning(UserWarning):
    """The compiled build was asked for but cannot be made here: the ordinary build plays."""


class BuildFailed(Exception):
    """Why no compiled module could be had, in a few words."""


BUILD_SCRIPT = Path(__file__).with_name("build.py")  # run as a child process: FOLDER NAME
_unavailable: str | None = None  # why building failed in this process (said once, not tried again)
# told, when set, that a module is about to be built (a first build takes seconds to minutes):
# the command line says so on stderr, so that a long first build is not taken for a hang
on_build: Callable[[], None] | None = None


def compile_natively(program: Any) -> bool:
    """Give the program its compiled functions; False, with one warning per process, when the
    module cannot be built or imported here (the program then plays as it is). RulesError at
    the rules file when its module is past a limit of building (ruleforge/compiled/bounds.py)."""
    global _unavailable
    if _unavailable is not None:
        return False
    try:
        module, flow, first = _module_for(program)
    except (BuildTooLarge, BuildTooLong) as err:
        raise _at_rules_file(program, str(err)) from None
    except BuildFailed as err:
        _unavailable = str(err)
        warnings.warn(f"the compiled build is not available ({err}); playing the ordinary build",
                      CompiledBuildWarning, stacklevel=3)
        return False
    _link(program, module, flow)
    program.line_map = rule_lines(program.module, first, program.line_map)
    return True


def _at_rules_file(program: Any, message: str) -> RulesError:
    """An error about the rules file as a whole (`t.rules: error: ...`), as `check` reports one."""
    checker = getattr(program.compiler, "ck", None)
    file = checker.main_file() if checker is not None else "<rules>"
    return RulesError([Diagnostic(Pos(file, 0, 0), message)], checker.sources if checker is not None else {})


def _versions() -> str:
    """What a built module depends on besides its source (the name's digest covers it)."""
    try:
        import Cython
    except ImportError:
        raise BuildFailed("Cython is not installed: pip install 'ruleforge[compiled]'") from None
    from .. import __version__

    return f"ruleforge {__version__}, Cython {Cython.__version__}, {BUILD_KEY}"


def _module_for(program: Any) -> tuple[types.ModuleType, py.Module | None, int]:
    """The program's extension module, imported from the cache or built there first; the
    generators' tree in it (if any) and the line of its first generated statement."""
    versions = _versions()
    flow = _generators(program)
    modules = [program.module] + ([flow] if flow is not None else [])
    provided = provided_names(program.namespace, defined_names(*modules))
    text, first = extension_source(program.module, flow, provided)
    place = cache.folder()
    if place is None:
        raise BuildFailed("no private cache folder to keep it in (set RULEFORGE_CACHE to one of yours)")
    name = cache.module_name(text, versions)
    path = cache.built_path(place, name)
    module = _imported(path, name)
    if module is None:
        check_size(text, program.players)  # what was built once, under a limit raised then, is imported
        if on_build is not None:
            on_build()
        _build(place, name, text, path, program.players)
        module = _imported(path, name)
        if module is None:
            raise BuildFailed(f"the module built at {path} could not be imported")
    GENERATED_FILES.add(f"{name}.py")  # its frames name the rule that failed, as exec's do
    return module, flow, first


def _generators(program: Any) -> py.Module | None:
    """The generator back end's module (None when these rules play on the block machine only)."""
    from ..compiler.flow import compile_failed

    if program.flow is None or program.compiler is None:
        return None
    try:
        return program.compiler.compile_generators()
    except Exception as err:  # noqa: BLE001 - what the pass refuses plays on the block machine
        if not compile_failed(err):
            raise
        program.flow = None
        return None


def _imported(path: Path, name: str) -> types.ModuleType | None:
    try:
        return cache.load(path, name)
    except ImportError:  # a file cut short, built for another system: build it again
        return None


def _build(place: Path, name: str, text: str, path: Path, players: int) -> None:
    """Build the module in a folder of its own inside the cache, then rename it into place;
    the build is killed, and BuildTooLong, past `build_seconds`."""
    work = Path(tempfile.mkdtemp(dir=place, prefix=".build-"))
    try:
        (work / f"{name}.py").write_text(text, encoding="utf-8")
        try:
            done = run_bounded([sys.executable, str(BUILD_SCRIPT), str(work), name], players)
        except OSError as err:
            raise BuildFailed(f"the build could not start: {err}") from None
        built = work / path.name
        if done.returncode != 0 or not built.is_file():
            raise BuildFailed(f"building it failed: {failure_line(done.stderr + done.stdout)}")
        cache.install(built, path)
    finally:
        cache.discard(work)


def _link(program: Any, module: types.ModuleType, flow: py.Module | None) -> None:
    """The module's globals are the program's namespace; its functions replace exec's."""
    ns = program.namespace
    defined = defined_names(program.module)
    for name in provided_names(ns, defined | (defined_names(flow) if flow is not None else set())):
        if name in ns:
            setattr(module, name, ns[name])
    made = {name: getattr(module, name) for name in defined}
    replaced = {id(ns[name]): new for name, new in made.items() if callable(new)}
    ns.update(made)
    for field in attrs.fields(type(program)):
        if field.name not in _NOT_SEARCHED:
            setattr(program, field.name, _replace(getattr(program, field.name), replaced, 2))
    if flow is not None:  # as flowplay.flow_main links the generators into the namespace
        ns.update({name: getattr(module, name) for name in defined_names(flow)})
        from ..flowplay import action_generators, direct_actions

        ns["ACTF"] = module.ACTF = direct_actions(program)
        ns["ACTG"] = module.ACTG = action_generators(program, vars(module))
        program.flow = module.flow_main
    program.native = module


def _replace(value: Any, replaced: dict[int, Any], depth: int) -> Any:
    """`value` with each function in `replaced` swapped, inside lists (in place: the namespace
    may share them), tuples and dicts down to `depth`."""
    if callable(value) and not isinstance(value, type):
        return replaced.get(id(value), value)
    if depth == 0:
        return value
    if isinstance(value, list):
        value[:] = [_replace(v, replaced, depth - 1) for v in value]
    elif isinstance(value, tuple):
        return tuple(_replace(v, replaced, depth - 1) for v in value)
    elif isinstance(value, dict):
        for key, v in value.items():
            value[key] = _replace(v, replaced, depth - 1)
    return value
