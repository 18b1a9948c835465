"""A constraint's data must be defined on its own sets: refused when the config is read, in one line.

A value ``1/x`` on the set ``x = 0``, ``log(x)`` there, or ``1/(y - 1/2)`` on a face that holds
``y = 1/2`` is no boundary condition: every candidate fails it, after the teacher has trained on
non-finite targets.  So each condition the parser recorded for the data of a constraint (its value, and
the part of its operator free of the fields: ``log(x)`` needs ``x > 0``, a division its denominator
``!= 0``) is checked on each set: exactly where the set fixes a variable,
and at sample points inside it, where a quantity that must not vanish and takes both signs has a zero (or a
pole) between them.  A failure only at a set's ends (``log(y)`` on a face that starts at ``y = 0``) is
allowed, as the verifier allows it: a constraint holds on the face's relative interior.
Refusing needs a certain failure: a condition that holds or cannot be decided here is left to the
verifier, which proves every condition for the candidate (``docs/verify.md``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from desyr.errors import ConfigError
from desyr.model.geometry import Part
from desyr.model.patches import exact_number
from desyr.model.problem import Constraint, Face, Problem
from desyr.model.sets import integral_rule, shape_set_points
from desyr.symbolic.conditions import Condition, decided
from desyr.symbolic.numeric import evaluate

#: sample points of each set where a condition is evaluated between its exact ends
SAMPLES = 256
#: a value counts as of one sign only beyond this fraction of the largest value seen (round-off aside)
MARGIN = 1e-9


def check_data_defined(problem: Problem) -> None:
    """Refuse (ConfigError, one line) a constraint whose data is undefined somewhere on one of its sets."""
    rng = np.random.default_rng(0)
    for con in problem.constraints:
        if con.value.has(sp.Sum):
            # its numbers would be a truncation that the verifier's checks of the data do not measure
            raise ConfigError(f"{problem.source}: constraint {con.label!r:.80}: its value {_short(con.value)} is an "
                              f"infinite series; write the data as a formula (series are answers, not data)")
        conditions = [c for c in con.conditions if not _dependent(problem, c.quantity)]
        sets: list[Face | Part | None] = list(con.faces) if con.kind != "integral" else [None]
        for where in sets:
            why = _undefined(problem, con, conditions, where, rng)
            if why:
                on = "the domain" if where is None else f"its set {where.describe()}"
                raise ConfigError(f"{problem.source}: constraint {con.label!r:.80}: its data is undefined on {on}: "
                                  f"{why}")


def _dependent(problem: Problem, expr: sp.Expr) -> bool:
    unknowns = {problem.unknown_symbol(n) for n in problem.unknown_names}
    return any(problem.vocabulary.jet_of(s) is not None or s in unknowns for s in expr.free_symbols)


def _undefined(problem: Problem, con: Constraint, conditions: list[Condition], where: Face | Part | None,
               rng: np.random.Generator) -> str:
    fixed = _fixed(problem, where)
    value = con.value.xreplace(fixed)
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return f"the value {_short(con.value)} is not a finite number there (it is {value})"
    if not conditions:
        return ""
    X = _samples(problem, where, rng)
    for c in conditions:
        q = c.quantity.xreplace(fixed)
        if not q.free_symbols:
            if decided(q, c.need) is False:
                return f"{c.describe()}, and it is {_short(q)} on the whole set"
        elif _fails_between(q, c.need, problem, X):
            return f"{c.describe()}, which fails inside the set"
    return ""


def _fixed(problem: Problem, where: Face | Part | None) -> dict[sp.Basic, sp.Expr]:
    """The variables a face fixes, as the exact numbers the config wrote."""
    if not isinstance(where, Face):
        return {}
    return {problem.vocabulary.var_symbols[n]: exact_number(v, problem.numbers) for n, v in where.fixed}


def _samples(problem: Problem, where: Face | Part | None, rng: np.random.Generator) -> np.ndarray:
    """Points inside the set (the domain's quadrature nodes for an integral's data)."""
    if where is None:
        return integral_rule(problem, rng)[0]
    if problem.geometry is not None:
        return shape_set_points(problem, [where], SAMPLES, rng, _uniform)
    assert isinstance(where, Face)
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    X: np.ndarray = lo + rng.random((SAMPLES, problem.dim)) * (hi - lo)
    for name, value in where.fixed:
        X[:, problem.variable_names.index(name)] = value
    return X


def _uniform(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    out: np.ndarray = rng.random((n, d))
    return out


def _fails_between(q: sp.Expr, need: str, problem: Problem, X: np.ndarray) -> bool:
    """Whether the sample values of ``q`` show it failing: of the wrong sign (beyond round-off), or, where it
    must not vanish, taking both signs (so it has a zero or a pole between them)."""
    with np.errstate(all="ignore"):
        values = evaluate(q, problem.symbols, X)
    values = values[np.isfinite(values)]
    if not values.size:
        return False
    margin = MARGIN * float(np.max(np.abs(values)))
    low, high = float(values.min()), float(values.max())
    if need in ("positive", "nonnegative"):
        return low < -margin
    return low < -margin and high > margin


def _short(expr: sp.Expr) -> str:
    text = str(expr)
    return text if len(text) <= 60 else text[:57] + "..."

