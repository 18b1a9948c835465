"""The peer problem sets of ``bench/peers/`` (read by ``bench/peers.py``): every file loads, and its
reference solves its equations and constraints, symbolically or, where simplify gives up, to 1e-9
on sample points.  This catches typos in transcription.

    python -m pytest tests/test_peer_problems.py
"""
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from desyr.config.loading import load_problem

PEERS = Path(__file__).resolve().parent.parent / "bench" / "peers"
FILES = sorted(PEERS.glob("*/*.toml"))


def test_the_sets_are_there():
    counts = {d.name: len(list(d.glob("*.toml"))) for d in PEERS.iterdir() if d.is_dir()}
    assert counts == {"lagaris": 23, "ssde": 9}       # ssde: the eight 1-D Poisson problems and Jin-1 (2-D)


def _zero(expr: sp.Expr, problem, fixed: dict[str, float]) -> bool:
    """0 symbolically, or |expr| <= 1e-9 (relative to the scale of its terms) on points of the set."""
    if sp.simplify(expr) == 0:
        return True
    syms = problem.vocabulary.var_symbols
    rng = np.random.default_rng(0)
    f = sp.lambdify([syms[v.name] for v in problem.variables], expr, "mpmath")
    for _ in range(20):
        point = [fixed.get(v.name, v.lo + (v.hi - v.lo) * rng.uniform(0.05, 0.95)) for v in problem.variables]
        if abs(complex(f(*point))) > 1e-9:
            return False
    return True


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_reference_solves_the_problem(path):
    problem = load_problem(path)
    assert problem.reference and set(problem.reference) == set(problem.fields)
    for eq in problem.equations:
        residual = problem.apply(eq.residual, problem.reference)
        assert _zero(residual, problem, {}), f"{path.name}: {eq.text} = {eq.forcing_text} fails"
    for con in problem.constraints:
        residual = problem.apply(con.residual, problem.reference)
        for face in con.faces:
            fixed = dict(face.fixed)
            on_face = residual.subs({problem.vocabulary.var_symbols[n]: sp.nsimplify(v) for n, v in fixed.items()})
            assert _zero(on_face, problem, fixed), f"{path.name}: constraint {con.label} fails on {face.describe()}"
