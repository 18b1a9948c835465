"""The exact method ``pair``: reaction-diffusion equations with a cubic source through an overdetermined linear pair.

Polyanin & Zaitsev (Handbook of Nonlinear PDEs, "equations of the form u_t = u_xx + f(u)" with a cubic
``f``: Allen-Cahn, Newell-Whitehead, Nagumo/FitzHugh-Nagumo) write ``u = alpha*phi_x/phi + beta`` with
``phi`` a solution of two linear equations at once,

    phi_t = A*phi_xx + B*phi_x (+ D*phi),      phi_xxx = C2*phi_xx + C1*phi_x + C0*phi.

Substituted and cleared of its power of ``phi``, the equation is a polynomial in ``phi``'s jets; the
pair reduces every jet to ``phi``, ``phi_x`` and ``phi_xx`` (``phi_t -> A*phi_xx + ...``, ``phi_xxx ->
C2*phi_xx + ...``), and each coefficient of what is left must vanish: an algebraic system for
``alpha, beta, A, B, C0, C1, C2`` that ``sympy.solve`` settles (``D`` is 0: a factor ``exp(D*t)`` of
``phi`` is invisible to ``u``; ``beta`` is 0 first, since ``exp(c*x)*phi`` only shifts it).  The pair's
common solutions are ``sum c_i*exp(k_i*x + (A*k_i**2 + B*k_i)*t)`` over the real simple roots ``k_i``
of ``k**3 = C2*k**2 + C1*k + C0``: several fronts that merge (Allen-Cahn's
``sinh(x)/(cosh(x) + exp(-3*t))``).  Where the field is given at a fixed time, ``phi`` is carried back
from it (:meth:`~desyr_sympy.shared.linearise.Substitution.inverse`) and, where it is a combination of the
modes there, each mode keeps its coefficient; else the ``c_i`` are free
constants for Stage B, whose gauge fixing takes out ``phi``'s free factor.

A quadratic source (Fisher's) never balances: ``u_xx`` gives ``phi_x**3/phi**3``, which only a cubic
term cancels; so the solver applies to one equation in ``x`` and ``t``, linear in ``u_t``, ``u_x`` and
``u_xx`` with constant coefficients, and cubic in ``u`` otherwise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import linear_families
from desyr_sympy.shared.forms import jet_symbols, residuals, slice_data, terms
from desyr_sympy.shared.linearise import Key, PhiJets, Substitution, solved_laws, substituted

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: starting values of the free coefficients of phi's modes (distinct, positive: phi stays away from 0)
_STARTS = (0.8, 0.5, 0.7)
#: the unknowns of the pair
_A, _B, _C0, _C1, _C2 = sp.symbols("A B C0 C1 C2")
Vector = tuple[sp.Expr, sp.Expr, sp.Expr]


class Pair(ExactMethod):
    name = "pair"
    summary = "cubic reaction-diffusion equations: an overdetermined linear pair"
    problems = ("one equation `u_t = a*u_xx + b*u_x + f(u)` in `x` and `t`, constant coefficients, `f` a cubic "
                "polynomial (Allen-Cahn, Newell-Whitehead, Nagumo/FitzHugh-Nagumo)")
    proposes = ("Polyanin-Zaitsev's **overdetermined linear pair**: `u = alpha*phi_x/phi + beta` with `phi` solving "
                "both `phi_t = A*phi_xx + B*phi_x` and `phi_xxx = C2*phi_xx + C1*phi_x + C0*phi`; substituted and "
                "cleared of `phi`'s powers, every jet is reduced by the pair to `phi, phi_x, phi_xx` and the "
                "coefficients of what is left give an algebraic system for `alpha, beta, A, B, C0, C1, C2` "
                "(`sympy.solve`, `beta = 0` first, about 0.1 s). `phi` is `sum c_i*exp(k_i*x + (A*k_i**2 + "
                "B*k_i)*t)` over the real simple roots of `k**3 = C2*k**2 + C1*k + C0`: fronts that merge (`u_t = "
                "u_xx + 2*u - 2*u**3` gives `alpha = 1`, `phi = c0 + c1*exp(x + 3*t) + c2*exp(-x + 3*t)`, "
                "`sinh(x)/(cosh(x) + exp(-3*t))`). Where the field is given at a fixed time and its carried-back "
                "`phi` (`exp(integral(u/alpha))`) is a combination of the modes there, that combination, exact; else "
                "the `c_i` free for Stage B, whose gauge fixing takes out `phi`'s free factor (fixing one `c_i` to 1 "
                "would miss the solutions without that mode), one candidate per law. A quadratic source (Fisher's) "
                "never balances and is declined; no `dsolve` call")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or problem.time is None or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one field of x and t"
        residual = residuals(problem)[0]
        if residual.free_symbols & set(problem.symbols):
            return "coefficients depend on the variables"
        jets = jet_symbols(problem)
        own = [s for s, j in jets.items() if not j.wrt]
        time = problem.time
        allowed = {s for s, j in jets.items() if j.wrt in ((time,),) or (j.wrt and time not in j.wrt and len(j.wrt) <= 2)}
        if len(own) != 1 or set(jets) - allowed - set(own):
            return "derivatives beyond u_t, u_x, u_xx"
        if not residual.is_polynomial(*jets):
            return "not polynomial"
        poly = sp.Poly(residual, *jets)
        u = own[0]
        for monomial in poly.monoms():
            powers = dict(zip(poly.gens, monomial))
            if sum(e for s, e in powers.items() if s != u) > 1 or (powers.get(u, 0) and sum(monomial) > powers[u]):
                return "a derivative in a nonlinear term"
        if sp.degree(residual, u) != 3:
            return "the source is not cubic in u"
        if not any(jets[s].wrt == (time,) for s in jets) or not any(len(jets[s].wrt) == 2 for s in jets):
            return "not a reaction-diffusion equation (u_t and u_xx)"
        return ""

    def solve(self, problem: Problem) -> Solutions:
        field, variables = problem.fields[0], list(problem.symbols)
        found = pairs(problem)
        # the data's own phi where some law gives one (exact); else every law's modes with free constants
        phis = [(s, phi) for s, modes in found for phi in _from_data(problem, s, modes)]
        phis = phis or [(s, phi) for s, modes in found for phi in _families(modes)]
        out = [{field: u} for s, phi in phis if linear_families.finite(u := s.field(phi, variables), problem)]
        if not out:
            raise NotImplementedError("no solution of the linear pair gives a finite field")
        return out


def pairs(problem: Problem) -> list[tuple[Substitution, list[sp.Expr]]]:
    """Each law of the algebra as the substitution (``operator`` the pair's evolution equation) and the
    common solutions' modes ``exp(k*x + lambda*t)``."""
    x_axis, t_axis = _axes(problem)
    x, t = problem.symbols[x_axis], problem.symbols[t_axis]
    jets = PhiJets()
    alpha, beta = sp.Symbol("alpha"), sp.Symbol("beta")
    numerator = sp.fraction(sp.together(substituted(problem, "gradient", x_axis, jets, alpha, beta)))[0]
    basis = sp.symbols("phi0 phi1 phi2")
    reduced = numerator.xreplace({s: _combine(_reduce(key, x_axis), basis) for s, key in jets.keys().items()})
    conditions = sp.Poly(sp.expand(reduced), *basis).coeffs()
    out = []
    for law in solved_laws(conditions, [alpha, beta, _A, _B, _C0, _C1, _C2], alpha):
        if any(v.has(sp.I) for v in law.values()):
            continue
        operator: dict[Key, sp.Expr] = {_key(t_axis, 1): sp.Integer(1), _key(x_axis, 2): -law[_A]}
        if law[_B] != 0:
            operator[_key(x_axis, 1)] = -law[_B]
        k = sp.Symbol("k")
        roots = sp.roots(sp.Poly(k**3 - law[_C2] * k**2 - law[_C1] * k - law[_C0], k))
        modes = [sp.exp(r * x + (law[_A] * r**2 + law[_B] * r) * t)
                 for r, multiplicity in roots.items() if multiplicity == 1 and r.is_real]
        out.append((Substitution("gradient", x_axis, law[alpha], law[beta], operator), modes))
    return out


def _axes(problem: Problem) -> tuple[int, int]:
    t_axis = list(problem.variable_names).index(str(problem.time))
    return 1 - t_axis, t_axis


def _key(axis: int, order: int) -> Key:
    return (order, 0) if axis == 0 else (0, order)


def _dx(v: Vector) -> Vector:
    """d/dx of ``v[0]*phi + v[1]*phi_x + v[2]*phi_xx``, ``phi_xxx`` reduced by the pair."""
    return (_C0 * v[2], v[0] + _C1 * v[2], v[1] + _C2 * v[2])


def _dt(v: Vector) -> Vector:
    """d/dt by the pair's evolution equation (constant coefficients: it commutes with d/dx)."""
    once = _dx(v)
    twice = _dx(once)
    return (_A * twice[0] + _B * once[0], _A * twice[1] + _B * once[1], _A * twice[2] + _B * once[2])


def _reduce(key: Key, x_axis: int) -> Vector:
    v: Vector = (sp.Integer(1), sp.Integer(0), sp.Integer(0))
    for _ in range(key[1 - x_axis]):
        v = _dt(v)
    for _ in range(key[x_axis]):
        v = _dx(v)
    return v


def _combine(v: Vector, basis: tuple[sp.Symbol, ...]) -> sp.Expr:
    return sp.Add(*[sp.expand(c) * b for c, b in zip(v, basis)])


def _from_data(problem: Problem, substitution: Substitution, modes: list[sp.Expr]) -> list[sp.Expr]:
    """``phi`` from the field's value at a fixed time, carried back through the substitution, where it
    is a combination of the modes there: each mode then keeps its coefficient (the pair is linear)."""
    x_axis, t_axis = _axes(problem)
    x, t = problem.symbols[x_axis], problem.symbols[t_axis]
    own = [s for s, j in jet_symbols(problem).items() if not j.wrt][0]
    for data in slice_data(problem):
        if data.variable != t or data.operator != own or data.value.free_symbols - {x}:
            continue
        start = substitution.inverse(data.value, x)
        if start is None:
            return []
        phi = sp.Integer(0)
        for term in terms(start):
            weights = [sp.simplify(term / m.subs(t, data.at)) for m in modes]
            found = [(w, m) for w, m in zip(weights, modes) if not w.has(x)]
            if not found:
                return []
            phi += found[0][0] * found[0][1].subs(t, t - data.at)
        return [phi]
    return []


def _families(modes: list[sp.Expr]) -> list[sp.Expr]:
    """``sum c_i*mode_i``, every ``c_i`` a free float: Stage B's gauge fixing takes out ``phi``'s free
    factor (fixing one ``c_i`` to 1 here would miss every solution where that mode is absent)."""
    if len(modes) < 2:
        return []
    return [sp.Add(*[sp.Float(c) * m for c, m in zip(_STARTS, modes)])]
