"""What the stage-0 path imports (issue 37, item 8): a problem that the exact solvers settle should
cost little more than the plain SymPy script that solves it (bench/logistic_latency.py). Timings
are not asserted; the modules that cost most and that this path does not need are."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LOGISTIC = Path(__file__).parent / "fixtures" / "logistic.toml"

#: modules a run that stage 0 settles needs in the main process only once a refit has constants to
#: fit (scipy.optimize), or never (the figures are drawn by a spare process; lambdify needs none of
#: numpy's submodules)
NOT_BEFORE_THE_REFIT = ("scipy", "matplotlib", "pandas", "numpy.testing", "numpy.f2py", "numpy.ma")

UP_TO_THE_SOLVERS = f"""
import json, sys
import sympy as sp
from desyr.config.loading import load_problem
from desyr.config.spec import read_spec
from desyr.extension.registry import load_registry
from desyr.model.points import make_point_sets
from desyr.report.figures import have_matplotlib
from desyr.stages.exact_search import exact_searchers
from desyr.symbolic.numeric import lambdify

registry = load_registry()
problem = load_problem({str(LOGISTIC)!r}, registry)
spec = read_spec(problem, registry)             # loads the default refiner, gates and executor
assert exact_searchers(registry, spec.solvers)
make_point_sets(problem, 0)
assert have_matplotlib() in (True, False)
t = sp.Symbol("t")
assert lambdify([t], [1 / (1 + sp.exp(-t))])(0.0)[0] == 0.5
print(json.dumps(sorted(m for m in {NOT_BEFORE_THE_REFIT!r} if m in sys.modules)))
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_stage0_path_up_to_the_solvers_imports_no_scipy_matplotlib_or_numpy_submodules():
    assert json.loads(_run(UP_TO_THE_SOLVERS)) == []


@pytest.mark.slow
def test_a_warm_verifier_imports_nothing_more_to_prove_an_answer_of_the_exact_solvers():
    code = f"""
import json, sys
from desyr.verify import make_request
from desyr.verify.__main__ import _warm_up
from desyr.verify.verdict import decide
from desyr.config.loading import load_problem
from desyr.extension.registry import load_registry

problem = load_problem({str(LOGISTIC)!r}, load_registry())
request = make_request(problem, {{"u": "1/(1 + exp(-t))"}}, None, 0)
_warm_up()
before = set(sys.modules)
verdict = decide(request)
assert verdict["verdict"] == "proved", verdict
print(json.dumps(sorted(set(sys.modules) - before)))
"""
    assert json.loads(_run(code)) == []
