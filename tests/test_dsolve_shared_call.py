"""dsolve and dsolve_ics of one ODE share one child and one ``sympy.dsolve`` call (issue 37, item 8),
each keeping its own record and proposing what the two separate calls did."""
import pytest
from desyr_sympy import propose
from test_sympy_sources import load


def test_dsolve_and_dsolve_ics_of_one_ode_share_one_child(monkeypatch):
    """The two solvers made the same sympy.dsolve call, in two children (0.4 s each for the logistic
    equation, a third of a stage-0 run's CPU); now one call, and each keeps its own record."""
    import importlib

    module = importlib.import_module("desyr_sympy.running")
    asked = []

    def here(calls, time_limit, **kw):
        asked.extend(fn.__name__ for fn, _ in calls)
        return [_in_process(fn, args) for fn, args in calls]

    monkeypatch.setattr(module, "run_bounded", here)
    result = propose(load("logistic"), solvers=["dsolve_ics", "dsolve"])
    assert asked == ["solve_both"]      # Dsolve.solve_both, answering dsolve_ics too
    assert [(a.solver, a.outcome) for a in result.attempts] == [("dsolve_ics", "candidates: 1"),
                                                                  ("dsolve", "candidates: 1")]
    assert result.origins == ["dsolve_ics", "dsolve"] and result.candidates[0] != result.candidates[1]


def _in_process(fn, args):
    from desyr_sympy.bounded import Outcome

    try:
        return Outcome("ok", fn(*args))
    except NotImplementedError as exc:
        return Outcome("no solution", None, str(exc))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["logistic", "damped_oscillator"])
def test_the_shared_dsolve_call_proposes_what_the_two_separate_calls_did(name):
    together = propose(load(name), solvers=["dsolve_ics", "dsolve"])
    ics, general = propose(load(name), solvers=["dsolve_ics"]), propose(load(name), solvers=["dsolve"])
    assert [(a.solver, a.outcome, a.detail) for a in together.attempts] == \
        [(a.solver, a.outcome, a.detail) for a in ics.attempts + general.attempts]
    assert together.candidates == ics.candidates + general.candidates
