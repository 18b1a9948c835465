"""``extends = SPEC or FILE``: a config laid over another, resolved on the run's side into one
complete TOML config that the verifier reads without resolving anything."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from desyr.config import reading
from desyr.config.loading import MAX_EXTENDS, load_problem, overlay, problem_from_dict, problem_from_toml
from desyr.config.spec import read_spec
from desyr.config.toml_text import TomlWriteError, dumps
from desyr.errors import ConfigError
from desyr.extension.registry import load_registry
from desyr.model.nesting import toml_loads
from desyr.plugin import hookimpl
from desyr.stages.run_components import component, searchers
from desyr.verify.child import VerifierError, request_verdict
from desyr.verify.request import make_request

ROOT = Path(__file__).resolve().parent.parent
SINE = 'extends = "paper:sine_poisson_1d"\n'


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _same_problem(a, b) -> None:
    assert (a.name, a.title, a.fields, a.time, a.points, a.sections) == (b.name, b.title, b.fields, b.time,
                                                                          b.points, b.sections)
    assert a.variables == b.variables
    assert [(e.lhs, e.forcing) for e in a.equations] == [(e.lhs, e.forcing) for e in b.equations]
    assert [(c.label, c.operator, c.value, c.faces, c.n_points) for c in a.constraints] == \
        [(c.label, c.operator, c.value, c.faces, c.n_points) for c in b.constraints]
    assert a.reference == b.reference


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{ROOT / 'plugins'}", "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "desyr", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


# ---------------------------------------------------------------- the overlay


def test_a_paper_config_with_the_searcher_swapped(tmp_path, registry, paper):
    child = _write(tmp_path / "child.toml", SINE + 'name = "sine_dictionary"\n\n[search]\nplugin = "dictionary"\n')
    problem = load_problem(child, registry)
    base = paper("sine_poisson_1d")
    assert problem.name == "sine_dictionary" and problem.title == base.title
    assert problem.source == str(child) and problem.config_format == "toml"
    search = problem.sections["search"]
    # everything else of [search] is the base's; operon's [search.options] do not follow to another searcher
    assert search == {**{k: v for k, v in base.sections["search"].items() if k != "options"}, "plugin": "dictionary"}
    for name in ("teacher", "refine", "selection", "paper"):
        assert problem.sections[name] == base.sections[name]
    assert problem.points == base.points and problem.reference == base.reference
    assert [e.lhs for e in problem.equations] == [e.lhs for e in base.equations]
    # the components build as desyr run builds them
    built = searchers(registry, read_spec(problem, registry))
    assert len(built) == 1 and type(built[0]).__module__.startswith("desyr_dictionary")
    assert type(component(registry, read_spec(problem, registry), "refiner", "refine")).__module__.startswith("desyr_scipy")


def test_the_same_plugin_keeps_the_base_options_and_merges_the_child_s(tmp_path, registry, paper):
    child = _write(tmp_path / "c.toml", SINE + '[search]\nmax_size = 9\n[search.options]\ngenerations = 7\n')
    search = load_problem(child, registry).sections["search"]
    assert search["plugin"] == "operon" and search["max_size"] == 9 and search["unary"] == ("sin",)
    assert search["options"] == {"generations": 7, "time_limit": 60}


@pytest.mark.slow
def test_desyr_verify_proves_a_candidate_against_an_extended_config(tmp_path):
    _write(tmp_path / "c.toml", SINE + '[search]\nplugin = "dictionary"\n')
    done = _cli("verify", "c.toml", "--candidate", "sin(pi*x)", "--require", "proved", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Proved") and "problem: c.toml" in done.stdout


@pytest.mark.slow
def test_the_verifier_reads_the_flattened_text_and_refuses_an_unresolved_one(tmp_path, registry):
    problem = load_problem(_write(tmp_path / "c.toml", SINE + 'title = "mine"\n'), registry)
    assert "extends" not in toml_loads(problem.config_text)
    verdict = request_verdict(make_request(problem, {"u": "sin(pi*x)"}, None, 0))
    assert verdict["verdict"] == "proved"
    request = make_request(problem, {"u": "sin(pi*x)"}, None, 0)
    request["config"]["text"] = SINE + problem.config_text.split("\n", 1)[1]
    with pytest.raises(VerifierError, match="extends") as info:
        request_verdict(request)
    assert "\n" not in str(info.value)


def test_the_verifier_process_refuses_extends_with_one_line(tmp_path, registry):
    problem = load_problem(_write(tmp_path / "c.toml", SINE), registry)
    request = make_request(problem, {"u": "sin(pi*x)"}, None, 0)
    request["config"]["text"] = SINE + problem.config_text
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                           "from desyr.verify.__main__ import main; sys.exit(main())", str(ROOT)],
                          input=json.dumps(request), capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "extends" in lines[0] and "resolved only by the run's loader" in lines[0]


def test_the_flattened_text_re_reads_to_the_same_problem(tmp_path, registry):
    child = _write(tmp_path / "c.toml", SINE + '[domain]\nx = [0, 2]\n\n[[constraints]]\non = "x = 0"\nvalue = 0\n'
                   '\n[[constraints]]\non = "x = 2"\nvalue = 0\n')
    problem = load_problem(child, registry)
    _same_problem(reading.problem_from_toml(problem.config_text, source=problem.source), problem)
    assert load_problem(child, registry).config_text == problem.config_text     # the same text every time


def test_arrays_are_replaced_as_a_whole(tmp_path, registry, paper):
    child = _write(tmp_path / "c.toml", SINE + '[[constraints]]\non = "x = 0"\nvalue = 0\nlabel = "left only"\n'
                   '\n[search]\nunary = ["cos"]\n')
    problem = load_problem(child, registry)
    assert [c.label for c in problem.constraints] == ["left only"]
    assert problem.sections["search"]["unary"] == ("cos",)
    assert len(problem.equations) == len(paper("sine_poisson_1d").equations)


def test_overlay_rules():
    base = {"name": "b", "a": {"x": 1, "y": {"p": 1, "q": 2}}, "eqs": [{"lhs": "u"}], "search": {
        "plugin": "operon", "runs": 2, "options": {"generations": 5}}, "teacher": {"options": {"k": 1}}}
    child = {"extends": "x", "a": {"y": {"q": 3}}, "eqs": [], "search": {"plugin": "dictionary"},
             "teacher": {"options": {"j": 2}}}
    out = overlay(base, child)
    assert out == {"name": "b", "a": {"x": 1, "y": {"p": 1, "q": 3}}, "eqs": [],
                   "search": {"plugin": "dictionary", "runs": 2}, "teacher": {"options": {"k": 1, "j": 2}}}
    assert base["a"]["y"] == {"p": 1, "q": 2}          # the base is not edited
    # plugin and plugins are alternatives: the child's one replaces the base's other
    pooled = {"search": {"plugins": ["operon", "dictionary"], "options": {"generations": 5}, "runs": 2}}
    assert overlay(pooled, {"search": {"plugin": "pysr"}}) == {"search": {"plugin": "pysr", "runs": 2}}
    single = {"search": {"plugin": "operon", "options": {"generations": 5}}}
    assert overlay(single, {"search": {"plugins": ["operon", "dictionary"]}}) == \
        {"search": {"plugins": ["operon", "dictionary"]}}
    assert overlay(single, {"search": {"plugin": "operon"}}) == single


# ---------------------------------------------------------------- files, chains, errors


def test_a_relative_file_is_read_from_the_child_s_folder(tmp_path, monkeypatch, registry):
    _write(tmp_path / "bases" / "base.toml", SINE + 'title = "from the base"\n')
    child = _write(tmp_path / "work" / "child.toml", 'extends = "../bases/base.toml"\nname = "child"\n')
    monkeypatch.chdir(tmp_path)
    problem = load_problem(child, registry)
    assert (problem.name, problem.title) == ("child", "from the base")


def test_a_chain_of_files_and_a_spec(tmp_path, registry):
    _write(tmp_path / "a.toml", SINE + '[search]\nruns = 5\n')
    _write(tmp_path / "sub" / "b.toml", 'extends = "../a.toml"\n[search]\nmax_size = 11\n')
    c = _write(tmp_path / "sub" / "c.toml", 'extends = "b.toml"\nname = "c"\n[search]\nruns = 3\n')
    problem = load_problem(c, registry)
    assert problem.name == "c"
    assert {k: problem.sections["search"][k] for k in ("runs", "max_size", "plugin")} == \
        {"runs": 3, "max_size": 11, "plugin": "operon"}


def test_a_file_chain_needs_no_plugins(tmp_path):
    base = load_problem("paper:sine_poisson_1d", load_registry())
    _write(tmp_path / "base.toml", base.config_text)
    problem = problem_from_toml('extends = "base.toml"\nname = "x"\n', source="<mine>", folder=tmp_path)
    assert problem.name == "x" and problem.config_format == "toml"


def test_a_cycle_is_one_line_naming_the_chain(tmp_path, registry):
    _write(tmp_path / "a.toml", 'extends = "b.toml"\n')
    _write(tmp_path / "b.toml", 'extends = "a.toml"\n')
    with pytest.raises(ConfigError, match=r"cycle: .*a\.toml -> b\.toml -> a\.toml$") as info:
        load_problem(tmp_path / "a.toml", registry)
    assert "\n" not in str(info.value)
    _write(tmp_path / "self.toml", 'extends = "self.toml"\n')
    with pytest.raises(ConfigError, match="cycle"):
        load_problem(tmp_path / "self.toml", registry)


def test_the_chain_is_bounded(tmp_path, registry):
    _write(tmp_path / "c0.toml", SINE)
    for i in range(1, MAX_EXTENDS + 3):
        _write(tmp_path / f"c{i}.toml", f'extends = "c{i - 1}.toml"\nname = "c{i}"\n')
    # c{n} stands on n files and the spec: n + 1 bases
    assert load_problem(tmp_path / f"c{MAX_EXTENDS - 1}.toml", registry).name == f"c{MAX_EXTENDS - 1}"
    with pytest.raises(ConfigError, match=f"more than {MAX_EXTENDS} configs deep") as info:
        load_problem(tmp_path / f"c{MAX_EXTENDS}.toml", registry)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("ref, message", [
    ("paper:no_such_problem", "unknown bundled problem 'paper:no_such_problem'"),
    ("nowhere:thing", "no config file or known problem called 'nowhere:thing'"),
    ("missing.toml", "config file not found"),
    ("", "extends must be a string"),
])
def test_an_unknown_base_is_one_line(tmp_path, registry, ref, message):
    child = _write(tmp_path / "c.toml", f"extends = {json.dumps(ref)}\n")
    with pytest.raises(ConfigError, match=message) as info:
        load_problem(child, registry)
    assert "\n" not in str(info.value)


def test_extends_must_be_a_string(tmp_path, registry):
    with pytest.raises(ConfigError, match="extends must be a string"):
        load_problem(_write(tmp_path / "c.toml", "extends = 3\n"), registry)


def test_an_invalid_result_of_the_overlay_is_the_usual_error(tmp_path, registry):
    with pytest.raises(ConfigError, match=r"c\.toml: unknown top-level key\(s\) colour"):
        load_problem(_write(tmp_path / "c.toml", SINE + 'colour = "red"\n'), registry)


# ---------------------------------------------------------------- from Python and from plugins


def test_from_python_a_spec_needs_a_registry(registry):
    data = {"extends": "paper:sine_poisson_1d", "name": "py"}
    with pytest.raises(ConfigError, match="needs the installed plugins"):
        problem_from_dict(data)
    with pytest.raises(ConfigError, match="resolved only by the run's loader"):
        reading.problem_from_dict(data)
    problem = problem_from_dict(data, registry=registry)
    assert problem.name == "py" and problem.config_format == "toml"
    assert reading.problem_from_toml(problem.config_text).name == "py"


def test_a_plugin_s_config_may_extend_a_spec():
    class Mine:
        @hookimpl
        def desyr_load_problem(self, spec):
            if spec == "mine:sine":
                from desyr.plugin import problem_from_toml as from_toml
                return from_toml(SINE + 'name = "mine"\n', source="mine:sine")
            if spec == "mine:loop":
                from desyr.plugin import problem_from_toml as from_toml
                return from_toml('extends = "mine:loop"\n', source="mine:loop")
            return None

    registry = load_registry(extra_plugins=[Mine()])
    for problem in (load_problem("mine:sine", registry), registry.load_problem("mine:sine")):   # bench asks the registry
        assert problem.name == "mine" and problem.source == "mine:sine" and problem.title == "Sine–Poisson 1D"
        assert "extends" not in toml_loads(problem.config_text)
    with pytest.raises(ConfigError, match="cycle: mine:loop -> mine:loop"):
        load_problem("mine:loop", registry)


# ---------------------------------------------------------------- the TOML writer


@pytest.mark.slow
def test_every_bundled_config_round_trips_through_the_writer(registry):
    specs = [spec for spec, _ in registry.problem_library()]
    assert len(specs) >= 30
    for spec in specs:
        problem = load_problem(spec, registry)
        data = toml_loads(problem.config_text)
        text = dumps(data)
        assert toml_loads(text) == data, spec
        _same_problem(reading.problem_from_toml(text, source=spec), problem)


def test_the_writer_keeps_awkward_values():
    data = {"a b": "quote \" back \\ tab \t nl \n del \x7f nul \x00 é ∂", "i": -(2**70), "f": 1e-8, "g": -0.0,
            "big": 1e300, "inf": math.inf, "ninf": -math.inf, "t": True, "empty": [], "none": {},
            "mixed": [1, "x", [2.5, {"k": [1]}]], "t2": {"x.y": {"z": [{"q": 1}, {}]}, "w": 1},
            "arr": [{"lhs": "u", "sub": {"deep": {"v": 1}}}, {"lhs": "v"}]}
    back = toml_loads(dumps(data))
    assert back == data
    assert math.isnan(toml_loads(dumps({"n": math.nan}))["n"])


@pytest.mark.parametrize("value", [None, object(), {1: 2}, "\ud800"])
def test_the_writer_refuses_what_toml_cannot_hold(value):
    with pytest.raises(TomlWriteError):
        dumps({"k": value})


@pytest.mark.slow
def test_a_refine_run_of_an_extended_config_carries_the_flattened_text(tmp_path):
    """``desyr refine`` loads the config as ``desyr run`` does; ``desyr verify RESULT`` reads the
    resolved text the result carries and finds it the same as the config's today (no warning)."""
    _write(tmp_path / "c.toml", SINE + 'name = "swapped"\n\n[search]\nplugin = "dictionary"\n')
    done = _cli("refine", "c.toml", "--candidate", "1.1*sin(3.2*x)", "--out", "out", "--no-plots", "--quiet",
                "--executor", "serial", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "out" / "result.json").read_text())["config"]
    assert config["format"] == "toml" and config["source"] == "c.toml"
    assert "extends" not in toml_loads(config["text"]) and toml_loads(config["text"])["search"]["plugin"] == "dictionary"
    done = _cli("verify", "out", "--require", "proved", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Proved"), done.stdout + done.stderr
    assert "warning" not in done.stderr
