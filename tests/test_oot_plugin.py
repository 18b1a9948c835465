"""An out-of-tree plugin, installed for real with pip: one component per role and one problem.

``tests/third_party/oot_plugin`` is an ordinary source package (``desyr-oot-example 1.0``)
that imports nothing from DeSyR but ``desyr.plugin`` and ``desyr.testing``. A session
fixture pip-installs it into a temporary ``--target``; each test puts that folder on
``sys.path``, so ``importlib.metadata`` finds its dist-info and its ``desyr`` entry point
exactly as it would in a user's environment.
"""
from __future__ import annotations

import ast
import importlib
import importlib.metadata as md
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from helpers import pip_install

from desyr.cli.main import main
from desyr.extension.registry import IN_PROCESS, check_contract
from desyr.plugin import ComponentError, ConfigError
from desyr.testing import (
    SINE_POISSON_1D,
    isolated_registry,
    make_candidate,
    make_context,
    make_problem,
    make_task,
    refit_pool,
    run_gates_on,
    run_refiner,
    run_searcher,
    run_teacher,
)

SOURCE = Path(__file__).parent / "third_party" / "oot_plugin"
PACKAGE = "desyr_oot"
ORIGIN = "desyr-oot-example 1.0"
COMPONENTS = {("teacher", "polynomial"), ("searcher", "sparse"), ("refiner", "bfgs"), ("gate", "max_params")}
ALLOWED = {"desyr.plugin", "desyr.testing"}


@pytest.fixture(scope="session")
def oot_site(tmp_path_factory) -> Path:
    return pip_install(SOURCE, tmp_path_factory.mktemp("oot"))


@pytest.fixture
def oot(oot_site, monkeypatch):
    """The installed package on sys.path (its modules are forgotten afterwards)."""
    monkeypatch.syspath_prepend(str(oot_site))
    yield oot_site
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


@pytest.fixture
def mod(oot):
    """The package's modules, imported from the installed copy."""
    def load(name):
        module = importlib.import_module(f"{PACKAGE}.{name}")
        assert Path(module.__file__).is_relative_to(oot)
        return module
    return load


# ---------------------------------------------------------------- the package itself
def _desyr_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from desyr import testing` imports desyr.testing; count what is imported from desyr itself
            found += ([f"desyr.{alias.name}" for alias in node.names] if node.module == "desyr" else [node.module])
    return [name for name in found if name.split(".")[0] == "desyr"]


def test_package_imports_only_the_plugin_surface():
    files = sorted((SOURCE / PACKAGE).rglob("*.py"))
    assert len(files) >= 6
    used = {f.name: _desyr_imports(f) for f in files}
    bad = {name: [m for m in mods if m not in ALLOWED] for name, mods in used.items()}
    assert not any(bad.values()), f"imports outside desyr.plugin / desyr.testing: {bad}"
    assert {m for mods in used.values() for m in mods} == ALLOWED


@pytest.mark.slow
def test_installed_distribution_and_entry_point(oot, mod):
    dist = md.distribution("desyr-oot-example")
    assert dist.version == "1.0"
    (ep,) = [e for e in dist.entry_points if e.group == "desyr"]
    assert (ep.name, ep.value) == ("oot", "desyr_oot.plugin")
    assert ep.load() is mod("plugin")
    assert any(Path(f).name == "sine_poisson_1d.toml" for f in dist.files or [])


# ---------------------------------------------------------------- through the CLI
@pytest.mark.slow
def test_cli_plugins_lists_the_four_components(oot, capsys):
    assert main(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ours = {(r["role"], r["name"]): r for r in data["components"] if r["origin"] == ORIGIN}
    assert set(ours) == COMPONENTS
    assert all(r["entry_point"] == "oot" and r["qualified_name"] == f"oot:{r['name']}" for r in ours.values())
    limit = ours[("gate", "max_params")]["options"]["limit"]
    assert limit["type"] == "int" and limit["range"] == "[0, inf)" and limit["default"] == 4
    assert ours[("teacher", "polynomial")]["options"]["degree"]["default"] == 10
    assert not data["shadowed"] and not data["failures"]


@pytest.mark.slow
def test_cli_problems_lists_the_package_problem(oot, capsys):
    assert main(["problems"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("oot:"))
    assert line.split()[0] == "oot:sine_poisson_1d" and "out-of-tree" in line


@pytest.mark.slow
def test_cli_run_recovers_the_exact_solution(oot, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "oot:sine_poisson_1d", "--out", "out", "--quiet"]) == 0
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert result["exact"] is True
    assert result["errors"]["rel_l2"] <= 1e-10
    components = result["provenance"]["components"]
    assert (components["teacher"], components["searcher"], components["refiner"]) == ("polynomial", "sparse", "bfgs")
    assert components["gates"] == "convergence,max_params,physics_equivalence,complexity"
    assert sp.simplify(sp.sympify(result["expression"]["u"]) - sp.sin(sp.pi * sp.Symbol("x"))) == 0
    # the refiner did the work: the teacher (degree 6) is not exact, the refit is
    assert result["status"] == "converged"
    assert result["errors"]["teacher_rel_l2"] > 1e-8 and result["errors"]["pre_refit_rel_l2"] > 1e-9
    gates = [g["gate"] for g in result["selection"]["gates"]]
    assert gates == ["convergence", "max_params", "physics_equivalence", "complexity"]


# ---------------------------------------------------------------- in process, one component at a time
@pytest.mark.slow
def test_in_process_registration_and_contracts(mod):
    plugin = mod("plugin")
    registry = isolated_registry(plugin)
    assert not registry.failures
    assert {(i.role, i.name) for i in registry.listing()} == COMPONENTS
    assert {i.origin for i in registry.listing()} == {IN_PROCESS}
    for role, name in COMPONENTS:
        check_contract(registry.get(role, name), role)
    problem = registry.load_problem("oot:sine_poisson_1d")
    assert problem.sections["teacher"]["plugin"] == "polynomial"
    assert problem.sections["selection"]["gates"][1] == "max_params"
    assert plugin.desyr_load_problem(spec="paper:burgers") is None
    with pytest.raises(ConfigError, match="available: oot:sine_poisson_1d"):
        registry.load_problem("oot:nope")


@pytest.mark.slow
def test_teacher_solves_a_linear_pde_without_the_reference(mod):
    teacher_cls = mod("teacher").PolynomialTeacher
    no_reference = SINE_POISSON_1D.replace('[reference]\nu = "sin(pi*x)"\n', "")
    problem = make_problem(no_reference)
    assert problem.reference is None
    model, values = run_teacher(teacher_cls(degree=10), problem)
    X = make_context(problem).points.verify
    assert values.shape == (len(X), 1)
    assert np.max(np.abs(values[:, 0] - np.sin(np.pi * X[:, 0]))) < 1e-7
    assert model.info()["coefficients"] == 11 and model.info()["rms_residual"] < 1e-5


@pytest.mark.slow
def test_teacher_in_two_variables_and_a_nonlinear_equation(mod):
    teacher_cls = mod("teacher").PolynomialTeacher
    laplace = make_problem("""
name = "laplace"
[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_xx + u_yy"
[[constraints]]
on = "boundary"
value = "x**2 - y**2"
[points]
refine = 200
verify = 100
search = 50
validate = 50
constraint = 80
""")
    _, values = run_teacher(teacher_cls(degree=3), laplace)
    X = make_context(laplace).points.verify
    assert np.allclose(values[:, 0], X[:, 0] ** 2 - X[:, 1] ** 2, atol=1e-10)
    # u u_x = x on [0.5, 1], u(0.5) = 0.5: solution u = x; Gauss-Newton steps from zero reach it
    nonlinear = make_problem("""
name = "nonlinear"
[domain]
x = [0.5, 1]
[[equations]]
lhs = "u*u_x"
rhs = "x"
[[constraints]]
on = "x = 0.5"
value = 0.5
[points]
refine = 100
verify = 100
search = 50
validate = 50
""")
    _, values = run_teacher(teacher_cls(degree=2, steps=20), nonlinear)
    X = make_context(nonlinear).points.verify
    assert np.allclose(values[:, 0], X[:, 0], atol=1e-8)
    with pytest.raises(ComponentError, match="max_terms"):
        run_teacher(teacher_cls(degree=30, max_terms=20), laplace)


@pytest.mark.slow
def test_searcher_front_has_increasing_sparsity(mod):
    searcher_cls = mod("searcher").SparseSearcher
    problem = make_problem()
    probe = make_task(problem)
    X = probe.X[:, 0]
    y = 2 * np.sin(np.pi * X) + 0.5 * X ** 2 + 0.01 * np.cos(3 * np.pi * X)
    for method in ("omp", "stlsq"):
        result = run_searcher(searcher_cls(method=method), problem,
                              make_task(problem, y, unary=["sin", "cos"], max_size=40))
        front = result.front
        assert len(front) >= 2, method
        sizes, losses = [m.complexity for m in front], [m.loss for m in front]
        assert sizes == sorted(sizes) and losses == sorted(losses, reverse=True), method
        assert losses[-1] < 1e-20, method
        assert all(m.expression.free_symbols <= set(problem.symbols) for m in front)   # mapped onto the problem's
        assert all(m.expression.atoms(sp.Float) for m in front)
        assert result.info["method"] == method and result.info["dictionary"] > 20


@pytest.mark.slow
def test_searcher_vocabulary_and_budget(mod):
    searcher_cls = mod("searcher").SparseSearcher
    problem = make_problem()
    with pytest.raises(ComponentError, match="cannot express operator.*log"):
        searcher_cls().check_operators(["+"], ["sin", "log"])
    result = run_searcher(searcher_cls(), problem, make_task(problem, unary=["sin"], budget={"iterations": 5}))
    assert result.info["ignored_budget"] == ["iterations"]
    assert str(result.front[0].expression) == "1.0*sin(pi*x)"
    with pytest.raises(ComponentError, match="option 'method' must be one of"):
        searcher_cls(method="lasso")


@pytest.mark.slow
def test_refiner_recovers_constants_from_the_physics(mod):
    refiner_cls = mod("refiner").BFGSRefiner
    problem = make_problem()
    x = problem.symbols[0]
    outcome = run_refiner(refiner_cls(), problem, "0.9*sin(3.1*x)")
    assert outcome.converged and outcome.status == "converged" and outcome.nfev > 0
    (amplitude, rate) = sorted(outcome.params)
    assert abs(amplitude - 1) < 1e-8 and abs(rate - np.pi) < 1e-8
    assert outcome.expressions["u"].free_symbols == {x}
    fixed = run_refiner(refiner_cls(), problem, "sin(pi*x)")
    assert fixed.status == "fixed" and fixed.converged
    capped = run_refiner(refiner_cls(max_iterations=1), problem, "0.5*sin(2.0*x) + 0.3*x")
    assert capped.status == "not_converged" and not capped.converged and capped.reason


@pytest.mark.slow
def test_gate_keeps_candidates_within_the_limit(mod):
    refiner_cls, gate_cls = mod("refiner").BFGSRefiner, mod("gate").ParameterCountGate
    problem = make_problem()
    ctx = make_context(problem)
    pool = [make_candidate(problem, text, id=f"c{i}") for i, text in
            enumerate(["0.9*sin(3.1*x)", "1.1*sin(pi*x) + 0.2*x*(1.0 - x)", "sin(pi*x)"])]
    refit_pool(pool, refiner_cls(), ctx)
    selection = run_gates_on(list(pool), [gate_cls(limit=2)], ctx)
    (record,) = selection.records
    counts = {c.id: mod("gate").free_constants(c) for c in pool}
    assert set(record.kept) == {i for i, n in counts.items() if n <= 2} and record.kept
    assert all("free constants > 2" in reason for reason in record.removed.values())
    # nobody qualifies: everyone is kept, with a note (a gate never empties a non-empty pool)
    strict = [c for c in pool if counts[c.id] > 0]
    decision = gate_cls(limit=0).apply(strict, ctx)
    assert decision.kept == strict and not decision.removed and "all kept" in decision.note
    assert gate_cls().apply([], ctx).kept == []
    with pytest.raises(ComponentError, match="outside"):
        gate_cls(limit=-1)
