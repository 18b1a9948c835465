"""Solutions of the linear equation a linearising substitution gives, mapped back to the field.

``A[phi] = 0`` (:mod:`desyr_sympy.shared.linearise`) has constant coefficients.  Where it is an evolution
equation ``p*phi_w = L[phi]`` (first order in ``w``, ``L`` in the other variable ``v`` alone) and the
field is given on a line of fixed ``w``, that value is carried back through the substitution
(``phi = exp(integral(u/alpha))`` for a gradient) and each of its terms evolved exactly: an
eigenfunction of ``L`` (``exp(k*v)``, ``sin(k*v)``, ``cosh(k*v)``) gets ``exp(lambda*(w - w0))``, a term
that a power of ``L`` annihilates (a polynomial under a heat operator) gets the finite series of
``exp((w - w0)*L)``: the heat polynomials.  Hyperbolic functions are written as exponentials where
that splits them into eigenfunctions (``4*cosh(x/2)**2 = exp(x) + 2 + exp(-x)``), products of sines and cosines as sums.  Where
the field's values on faces are formulas (an elliptic equation's boundary data; ``log``, ``power`` and
``exp`` substitutions, which carry a value back without an integration), ``phi`` is sought by
undetermined coefficients on the carried-back data's functions (:mod:`desyr_sympy.shared.coefficients`):
``u = -log(3 + exp(x)*cos(y))`` on the boundary of a square for ``u_xx + u_yy = u_x**2 + u_y**2`` gives
``phi = 3 + exp(x)*cos(y)``, harmonic, matched exactly; the combinations the data do not fix are free
constants for Stage B.  Without such
data, two families with free constants: the polynomial solutions of degree at most 1 and 2
(``1 + C1*x + C2*(x**2 + 2*a*t)`` for the heat equation, the harmonic ones for Laplace's), and for an
evolution equation a constant plus two exponential modes ``exp(k*v + lambda(k)*w)`` of free rates.
Through a gradient of its logarithm ``phi`` matters only up to a constant factor, so one coefficient
is fixed to 1 (else Stage B would have a free direction; ``log(phi)`` and ``phi**alpha`` see the factor,
which stays free there); the starting values keep ``phi`` away from 0 on the domain, and a candidate
that is not finite on a grid of the domain is left out.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import sympy as sp
from sympy.simplify.fu import TR8

from desyr_sympy.shared import coefficients, face_data
from desyr_sympy.shared.forms import rational, slice_data, terms
from desyr_sympy.shared.linearise import Key, Substitution

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: the highest power of L tried on a term before giving up on a finite series
_SERIES = 4
#: the largest carried-back value (operations) whose terms are evolved; beyond it simplify can take seconds
_LARGEST = 80
#: the starting factor of phi where the substitution sees it (log, power)
_FACTOR = 1.2
#: starting values of the free constants (distinct, away from 0 and +-1)
_STARTS = (0.5, 0.7, 1.3, 0.35, 0.85)


def evolution(substitution: Substitution) -> tuple[int, sp.Expr, dict[int, sp.Expr]] | None:
    """``(w, p, {i: c_i})`` of an operator ``p*phi_w + sum(c_i*d^i phi/dv^i)``, or None."""
    operator = substitution.operator
    for w in (1, 0):
        step: Key = (0, 1) if w == 1 else (1, 0)
        if step in operator and all(k[w] == 0 or k == step for k in operator):
            return w, operator[step], {k[1 - w]: c for k, c in operator.items() if k != step}
    return None


def from_data(problem: Problem, substitution: Substitution) -> list[sp.Expr]:
    """``phi`` evolved exactly from the field's value on a line of fixed ``w``, or nothing."""
    form = evolution(substitution)
    if form is None or (substitution.kind == "gradient" and substitution.axis == form[0]):
        return []
    w, p, spatial = form
    ws, v = problem.symbols[w], problem.symbols[1 - w]
    jet = problem.vocabulary.parse_jet(problem.fields[0])
    assert jet is not None      # a field's own name is always a jet
    own = problem.jet_symbol(jet)
    for data in slice_data(problem):
        if data.variable != ws or data.operator != own or data.value.free_symbols - {v}:
            continue
        start = substitution.inverse(data.value, v)
        if start is None:
            return []
        rate = -spatial.get(0, sp.Integer(0)) / p       # the zero-order part: a factor exp(rate*tau)

        def step(h: sp.Expr) -> sp.Expr:
            return sp.expand(-sp.Add(*[c * sp.diff(h, v, i) for i, c in spatial.items() if i]) / p)

        if sp.count_ops(start) > _LARGEST:
            return []
        for pieces in (terms(start), terms(TR8(start))):
            evolved = [_evolve(h, step, ws - data.at, v) for h in pieces]
            if all(e is not None for e in evolved):
                return [sp.exp(rate * (ws - data.at)) * sp.Add(*evolved)]
        return []
    return []


def from_faces(problem: Problem, substitution: Substitution) -> list[sp.Expr]:
    """``phi`` by undetermined coefficients on the functions of the field's data carried back (each
    constraint a value of the field on faces), matched to those data exactly where it can be, else with
    the free constants for Stage B; nothing where the data give no function beyond polynomials."""
    if substitution.kind == "gradient":
        return []            # phi only up to a factor, and the data's integral along a face is not phi's
    jet = problem.vocabulary.parse_jet(problem.fields[0])
    assert jet is not None      # a field's own name is always a jet
    own = problem.jet_symbol(jet)
    if not face_data.formulas(problem) or any(c.operator != own for c in problem.constraints):
        return []
    carried = {c: substitution.carried(rational(c.value)) for c in problem.constraints}
    variables = list(problem.symbols)
    if not face_data.closed(list(carried.values()), variables):
        return []

    def apply(phi: sp.Expr) -> sp.Expr:
        return sp.Add(*[c * (sp.diff(phi, *[(s, n) for s, n in zip(variables, key) if n]) if any(key) else phi)
                        for key, c in substitution.operator.items()])

    try:
        _, homogeneous = coefficients.solutions(apply, sp.Integer(0), variables, max(map(sum, substitution.operator)),
                                                list(carried.values()))
    except NotImplementedError:
        return []
    if not homogeneous:
        return []
    constants = list(sp.symbols(f"C1:{len(homogeneous) + 1}"))
    general = sp.Add(*[k * h for k, h in zip(constants, homogeneous)])
    matched = coefficients.match(face_data.on_faces(problem, lambda con: general - carried[con]), constants, variables)
    if matched is not None:
        general = general.xreplace(matched)
    return [general] if len(general.free_symbols & set(constants)) <= coefficients.MAX_FREE else []


def _evolve(h: sp.Expr, step: Callable[[sp.Expr], sp.Expr], tau: sp.Expr, v: sp.Symbol) -> sp.Expr | None:
    """``exp(tau*L) h`` where it is finite: an eigenfunction, or a term a power of ``L`` annihilates."""
    image = step(h)
    if image == 0:
        return h
    ratio = sp.simplify(image / h)
    if not ratio.has(v):
        return sp.exp(ratio * tau) * h
    series = [h, image]
    for _ in range(_SERIES):
        if series[-1] == 0:
            return sp.Add(*[tau**k / math.factorial(k) * s for k, s in enumerate(series)])
        series.append(step(series[-1]))
    return None


def families(problem: Problem, substitution: Substitution) -> list[sp.Expr]:
    """Data-free solutions of ``A[phi] = 0`` with free constants (floats for Stage B)."""
    out = [phi for degree in (1, 2) if (phi := polynomial(problem, substitution, degree)) is not None]
    form = evolution(substitution)
    if form is not None:
        w, p, spatial = form
        ws, v = problem.symbols[w], problem.symbols[1 - w]
        k = sp.Symbol("k")
        rate = -sp.Add(*[c * k**i for i, c in spatial.items()]) / p
        modes = [sp.Float(a) * sp.exp(s * v + rate.subs(k, s) * ws)
                 for a, s in ((_STARTS[0], sp.Float(_STARTS[1])), (_STARTS[2], -sp.Float(_STARTS[3])))]
        out.append(_unit(substitution) + sp.Add(*modes))
    return out


def _unit(substitution: Substitution) -> sp.Expr:
    """The gauge's fixed coefficient: exactly 1 where ``u`` does not see a factor of ``phi`` (a
    gradient of its logarithm), else a free float (``log(3*phi) = log(phi) + log(3)``, and beta is 0)."""
    return sp.Integer(1) if substitution.kind == "gradient" else sp.Float(_FACTOR)


def polynomial(problem: Problem, substitution: Substitution, degree: int) -> sp.Expr | None:
    """The polynomial solutions of degree at most ``degree``.  The scale gauge fixes the constant
    term to 1 where constants are solutions (``1 + C1*(x**2 - y**2) + C2*x*y + ...``: fixing a
    leading coefficient instead would exclude every solution without that term), else the highest
    free coefficient; the other coefficients start small enough that ``phi > 0`` on the domain."""
    s0, s1 = problem.symbols
    monomials = [s0**i * s1**j for i in range(degree + 1) for j in range(degree + 1 - i)]
    weights = sp.symbols(f"c0:{len(monomials)}")
    phi = sp.Add(*[c * m for c, m in zip(weights, monomials)])
    image = sp.Add(*[c * sp.diff(phi, s0, i, s1, j) for (i, j), c in substitution.operator.items()])
    conditions = sp.Poly(sp.expand(image), s0, s1).coeffs() if image != 0 else []
    law = sp.solve(conditions, weights, dict=True) if conditions else [{}]
    if not law:
        return None
    general = phi.xreplace(law[0])
    free = sorted(general.free_symbols & set(weights), key=lambda c: -sp.Poly(general.coeff(c), s0, s1).total_degree())
    if not free or sp.Poly(general.coeff(free[0]), s0, s1).total_degree() < degree:
        return None                      # no solution of this degree beyond the constants
    constant = [c for c in free if general.coeff(c).is_number]
    fixed = constant[0] if constant else free[0]
    others = [c for c in free if c != fixed]
    values = {fixed: _unit(substitution) / general.coeff(fixed)}
    for i, c in enumerate(others):
        size = _largest(general.coeff(c), problem) * len(others) if constant else 1.0
        values[c] = sp.Float(round(_STARTS[i % len(_STARTS)] / (2 * max(size, 1e-9)), 4))
    return general.xreplace(values)


def _grid(problem: Problem) -> list[dict[sp.Symbol, float]]:
    axes = [[lo + (hi - lo) * f for f in (0.0, 0.13, 0.37, 0.5, 0.71, 0.89, 1.0)] for lo, hi in problem.bounds]
    return [dict(zip(problem.symbols, point)) for point in itertools.product(*axes)]


def _largest(expr: sp.Expr, problem: Problem) -> float:
    f = sp.lambdify(problem.symbols, expr, "math")
    return max(abs(float(f(*point.values()))) for point in _grid(problem))


def finite(expr: sp.Expr, problem: Problem) -> bool:
    """Whether ``expr`` is a finite real number at every point of a grid of the domain."""
    f = sp.lambdify(problem.symbols, expr, "math")
    try:
        return all(math.isfinite(float(f(*point.values()))) for point in _grid(problem))
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, NameError):   # NameError: no math twin
        return False
