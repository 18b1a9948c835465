"""Linearising substitutions: a nonlinear equation that a change of the field makes linear.

The Cole-Hopf family (Polyanin & Zaitsev, "linearizable equations"): for one nonlinear equation in
two variables, the field is written through a new unknown ``phi`` as

- ``u = alpha*phi_v/phi + beta`` (``v`` a space variable; Burgers' ``u = -2*nu*phi_x/phi``),
- ``u = alpha*log(phi) + beta`` (the potential Burgers equation ``u_t = u_xx + u_x**2``),
- ``u = phi**alpha`` (``u_t = u_xx + k*u_x**2/u``),
- ``u = exp(phi) + beta`` (``u*(u_xx + u_yy) = u_x**2 + u_y**2``: ``log(u)`` harmonic; ``alpha`` is 1,
  since a multiple of a solution of the homogeneous linear equation is one),

with ``alpha`` and ``beta`` unknown constants.  Substituted, the equation is a rational function
of ``phi``'s derivatives with a power of ``phi`` as denominator; its numerator is cleared and the
constants are solved for (``sympy.solve`` on the coefficients of the terms nonlinear in ``phi``) so
that what is left is ``phi**k*A[phi]`` with ``A`` linear, or ``phi**(k-1)*(phi*D_v A - phi_v*A)``,
which is ``phi**(k+1)*D_v(A/phi)``: a total derivative (Burgers gives ``D_x((phi_t - nu*phi_xx)/phi)``),
integrated once to ``A[phi] = 0`` (the function of integration is a factor of ``phi`` that the
substitution does not see).  ``A`` must have constant coefficients.  Its solutions
(:mod:`desyr_sympy.shared.linear_families`) are mapped back through the substitution.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.shared.forms import jet_symbols, residuals

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

Key = tuple[int, int]

#: the highest derivative of the field tried: each order adds a power of 1/phi to clear, in the parent process
MAX_ORDER = 4


class PhiJets:
    """``phi`` and its derivatives as symbols, ``phi_i_j`` = d^i/d(first)^i d^j/d(second)^j phi."""

    def __init__(self) -> None:
        self._symbols: dict[Key, sp.Symbol] = {}

    def __getitem__(self, key: Key) -> sp.Symbol:
        if key not in self._symbols:
            self._symbols[key] = sp.Symbol(f"phi_{key[0]}_{key[1]}", real=True)
        return self._symbols[key]

    @property
    def phi(self) -> sp.Symbol:
        return self[(0, 0)]

    def keys(self) -> dict[sp.Symbol, Key]:
        return {s: k for k, s in self._symbols.items()}

    def total(self, expr: sp.Expr, axis: int) -> sp.Expr:
        """d expr / d(variable ``axis``) through the chain rule on every jet in ``expr``."""
        out = sp.Integer(0)
        for symbol, key in list(self.keys().items()):
            if symbol in expr.free_symbols:
                out += sp.diff(expr, symbol) * self[bump(key, axis)]
        return out


def bump(key: Key, axis: int) -> Key:
    return (key[0] + 1, key[1]) if axis == 0 else (key[0], key[1] + 1)


@dataclass(frozen=True)
class Substitution:
    """``u = form(phi)``, with ``operator`` the linear equation ``sum(c*phi_ij) = 0`` for ``phi``."""

    kind: str                       # "gradient", "log", "power" or "exp"
    axis: int                       # the variable of the gradient (index into problem.symbols)
    alpha: sp.Expr
    beta: sp.Expr
    operator: dict[Key, sp.Expr]

    def field(self, phi: sp.Expr, variables: list[sp.Symbol]) -> sp.Expr:
        """The field that ``phi`` (an expression in ``variables``) gives."""
        if self.kind == "gradient":
            return self.alpha * sp.diff(phi, variables[self.axis]) / phi + self.beta
        if self.kind == "log":
            return self.alpha * sp.log(phi) + self.beta
        if self.kind == "exp":
            return sp.exp(self.alpha * phi) + self.beta
        return phi**self.alpha

    def inverse(self, value: sp.Expr, v: sp.Symbol) -> sp.Expr | None:
        """``phi`` on a line of fixed time from the field's value there (``v`` the line's variable), up
        to a constant factor; None when SymPy cannot integrate it."""
        value = _hyperbolic_as_exp(value)
        if self.kind == "gradient":
            integral = sp.integrate(sp.cancel((value - self.beta) / self.alpha), v)
            return None if integral.has(sp.Integral) else _tidy(sp.exp(integral))
        return self.carried(value)

    def carried(self, value: sp.Expr) -> sp.Expr:
        """``phi`` at a point from the field's value there (not for a gradient: that needs an integral)."""
        if self.kind == "log":
            return _tidy(sp.exp((value - self.beta) / self.alpha))
        if self.kind == "exp":
            return _tidy(sp.log(value - self.beta) / self.alpha)
        return _tidy(value ** (1 / self.alpha))


def _tidy(expr: sp.Expr) -> sp.Expr:
    """``exp(-x + 2*log(exp(x) + 1))`` -> ``exp(x) + 2 + exp(-x)``: a sum whose terms can evolve one by one
    (no simplify: it would fold the sum back into ``4*cosh(x/2)**2``)."""
    return sp.expand(sp.powsimp(sp.expand(sp.powsimp(sp.expand_log(expr, force=True), force=True)), force=True))


def _hyperbolic_as_exp(expr: sp.Expr) -> sp.Expr:
    return sp.expand(expr.rewrite(sp.exp)) if expr.has(sp.sinh, sp.cosh, sp.tanh) else expr


def is_polynomial(expr: sp.Expr, symbols: object) -> bool:
    try:
        sp.Poly(expr, *symbols)       # type: ignore[misc]
    except sp.PolynomialError:
        return False
    return True


def substitutions(problem: Problem) -> list[Substitution]:
    """Every substitution of the family that makes the equation linear, gradients first."""
    out = []
    for kind, axis in _forms(problem):
        found = _linearise(problem, kind, axis)
        if found is not None:
            out.append(found)
    return out


def _forms(problem: Problem) -> Iterator[tuple[str, int]]:
    time = problem.vocabulary.var_symbols[problem.time] if problem.time is not None else None
    for axis, v in enumerate(problem.symbols):
        if v != time:
            yield "gradient", axis
    yield "log", 0
    yield "power", 0
    yield "exp", 0


#: ``exp(phi)`` in a substituted residual, so that it is a polynomial (``exp(2*phi)`` is its square)
EXP = sp.Symbol("exp_phi", positive=True)


def substituted(problem: Problem, kind: str, axis: int, jets: PhiJets,
                 alpha: sp.Symbol, beta: sp.Symbol) -> sp.Expr:
    """The residual with ``u = form(phi)``, as a fraction over ``phi``'s jets (and :data:`EXP`),
    before clearing."""
    phi = jets.phi
    form = {"gradient": alpha * jets[bump((0, 0), axis)] / phi + beta,
            "log": alpha * sp.log(phi) + beta, "power": phi**alpha, "exp": sp.exp(phi) + beta}[kind]
    index = {name: i for i, name in enumerate(problem.variable_names)}
    values = {}
    for symbol, jet in jet_symbols(problem).items():
        expr = form
        for name in jet.wrt:
            expr = jets.total(expr, index[name])
        values[symbol] = expr
    residual = residuals(problem)[0].xreplace(values)
    if kind == "power":      # an equation homogeneous in u: phi**alpha is a common factor
        residual = sp.powsimp(sp.expand(residual * phi ** (1 - alpha)), force=True)
    if kind == "exp":
        residual = residual.subs(sp.exp(phi), EXP)
    return residual


def _linearise(problem: Problem, kind: str, axis: int) -> Substitution | None:
    jets = PhiJets()
    alpha, beta = sp.Symbol("alpha"), sp.Symbol("beta")
    residual = substituted(problem, kind, axis, jets, alpha, beta)
    numerator, denominator = sp.fraction(sp.together(residual))
    symbols = list(jets.keys()) + ([EXP] if kind == "exp" else [])
    if not (is_polynomial(numerator, symbols) and is_polynomial(denominator, symbols)):
        return None                      # log(phi) or phi**alpha left over: no such substitution
    cleared = sp.Poly(numerator, *symbols)
    if kind == "exp":                    # exp(phi)**k*A: A has no phi of its own, only derivatives
        found = _plain(cleared, jets, cleared.degree(EXP), alpha, beta, EXP)
        return None if found is None else Substitution(kind, axis, sp.Integer(1), found[1], found[2])
    # phi**k*A and phi**(k-1)*(phi*D_v A - phi_v*A) are homogeneous of degree k + 1 in the jets
    k = cleared.total_degree() - 1
    found = _plain(cleared, jets, k, alpha, beta) or _total(cleared, jets, k, axis, alpha, beta, kind)
    return None if found is None else Substitution(kind, axis, *found)


def _plain(cleared: sp.Poly, jets: PhiJets, k: int, alpha: sp.Symbol, beta: sp.Symbol,
           base: sp.Symbol | None = None) -> tuple[sp.Expr, sp.Expr, dict[Key, sp.Expr]] | None:
    """The constants that make ``cleared`` equal to ``base**k*A[phi]`` (``base`` is ``phi`` unless
    given), ``A`` linear, and ``A``.  Where ``base`` is not ``phi`` (:data:`EXP`), ``alpha`` is no unknown."""
    conditions, linear = [], []
    owned = jets.keys()
    for monomial, coefficient in cleared.terms():
        key = _linear_factor(dict(zip(cleared.gens, monomial)), base or jets.phi, k)
        if key is None or key not in owned:
            conditions.append(coefficient)
        else:
            linear.append((key, coefficient))
    laws = solved_laws(conditions, [alpha, beta], alpha) if base is None else _gauged(conditions, alpha, beta)
    for law in laws:
        operator = _collect(jets, [(key, c.xreplace(law)) for key, c in linear])
        if _evolves(operator):
            return law[alpha], law[beta], operator
    return None


def _linear_factor(powers: dict[sp.Symbol, int], phi: sp.Symbol, k: int) -> sp.Symbol | None:
    """The jet ``J`` of a monomial ``phi**k*J``, or None when the monomial is not one."""
    rest = {s: e for s, e in powers.items() if e}
    rest[phi] = rest.get(phi, 0) - k
    if rest[phi] < 0:
        return None
    left = [s for s, e in rest.items() if e]
    return left[0] if len(left) == 1 and rest[left[0]] == 1 else None


def _total(cleared: sp.Poly, jets: PhiJets, k: int, axis: int, alpha: sp.Symbol, beta: sp.Symbol,
           kind: str) -> tuple[sp.Expr, sp.Expr, dict[Key, sp.Expr]] | None:
    """The constants and ``A`` that make ``cleared = phi**(k-1)*(phi*D_v A - phi_v*A)`` (``A`` linear,
    constant coefficients): ``phi**(k+1)*D_v(A/phi)``, integrated once along the gradient's variable."""
    if kind != "gradient" or k < 1:
        return None
    present = set(cleared.free_symbols) & set(jets.keys())
    keys = jets.keys()
    # A's jets: those whose derivative along v appears (phi itself is free: D_v(phi/phi) = 0)
    lower = [s for s, key in keys.items() if key[axis] >= 1 and s in present]
    below = [jets[(key[0] - (axis == 0), key[1] - (axis == 1))] for key in (keys[s] for s in lower)]
    below = [s for s in dict.fromkeys(below) if s != jets.phi]
    if not below:
        return None
    weights = [sp.Symbol(f"q{i}") for i in range(len(below))]
    a = sp.Add(*[w * s for w, s in zip(weights, below)])
    phi, slope = jets.phi, jets[bump((0, 0), axis)]
    gap = sp.expand(cleared.as_expr() - phi ** (k - 1) * (phi * jets.total(a, axis) - slope * a))
    symbols = list(jets.keys())
    conditions = sp.Poly(gap, *symbols).coeffs()
    for law in solved_laws(conditions, [alpha, beta, *weights], alpha):
        operator = _collect(jets, [(jets.keys()[s], w.xreplace(law)) for w, s in zip(weights, below)])
        if _evolves(operator):
            return law[alpha], law[beta], operator
    return None


def solved_laws(conditions: list[sp.Expr], unknowns: list[sp.Symbol], alpha: sp.Symbol) -> list[dict[sp.Symbol, sp.Expr]]:
    """Solutions with a real nonzero ``alpha``; an unknown left free is 0 (a free ``beta`` only moves
    the frame; a free weight of ``A`` is the factor of ``phi`` that the integration leaves)."""
    beta = unknowns[1]
    # beta = 0 first: where any beta will do, sympy might otherwise solve for it in terms of a weight
    for fixed in ({beta: sp.Integer(0)}, {}):
        found = _laws([c.xreplace(fixed) for c in conditions], [u for u in unknowns if u not in fixed], alpha)
        if found:
            return [{**law, **fixed} for law in found]
    return []


def _gauged(conditions: list[sp.Expr], alpha: sp.Symbol, beta: sp.Symbol) -> list[dict[sp.Symbol, sp.Expr]]:
    """The values of ``beta`` (0 first) where ``alpha`` is fixed to 1."""
    for fixed in ({beta: sp.Integer(0)}, {}):
        laws = _system([sp.expand(c.xreplace(fixed)) for c in conditions], [beta])
        if laws:
            return [{alpha: sp.Integer(1), beta: sp.Integer(0), **law, **fixed} for law in laws
                    if not law.get(beta, sp.Integer(0)).has(sp.I)]
    return []


def _laws(conditions: list[sp.Expr], unknowns: list[sp.Symbol], alpha: sp.Symbol) -> list[dict[sp.Symbol, sp.Expr]]:
    conditions = [sp.expand(c) for c in conditions if c != 0]
    found: list[dict[sp.Symbol, sp.Expr]] = []
    for value in _alphas(conditions, unknowns, alpha):
        rest = [c.xreplace({alpha: value}) for c in conditions]
        others = [u for u in unknowns if u != alpha]
        found += [{**law, alpha: value} for law in _system(rest, others)]
    out = []
    for law in found:
        zeros = {u: 0 for u in unknowns if u not in law}
        full = {u: sp.simplify(law.get(u, sp.Integer(0)).xreplace(zeros)) for u in unknowns}
        value = full[alpha]
        if value != 0 and value.is_real is not False and not value.has(sp.I) and alpha not in value.free_symbols:
            out.append(full)
    return out


def _alphas(conditions: list[sp.Expr], unknowns: list[sp.Symbol], alpha: sp.Symbol) -> list[sp.Expr]:
    """The nonzero real roots common to the conditions on ``alpha`` alone (the balance of the highest
    powers of ``1/phi``); solving for ``alpha`` first keeps the rest a small system (``solve`` on all
    of it at once costs tenths of a second for every nonlinear equation that goes through here)."""
    alone = [c for c in conditions if not (c.free_symbols & set(unknowns)) - {alpha}]
    if not any(c.has(alpha) for c in alone):
        return [v[alpha] for v in _system(conditions, unknowns) if alpha in v]
    common = alone[0]
    for c in alone[1:]:
        common = sp.gcd(common, c)
    if not common.has(alpha):
        return []
    return [r for r in sp.roots(sp.Poly(common, alpha)) if r != 0 and not r.has(sp.I)]


def _system(conditions: list[sp.Expr], unknowns: list[sp.Symbol]) -> list[dict[sp.Symbol, sp.Expr]]:
    conditions = [c for c in conditions if c != 0]
    if not conditions:
        return [{}]
    try:
        # exact polynomial conditions: no float to rationalise, no solution to check (the costly parts)
        return list(sp.solve(conditions, unknowns, dict=True, check=False, simplify=False, rational=False))
    except (NotImplementedError, ValueError):
        return []


def _collect(jets: PhiJets, pairs: list[tuple[Key | sp.Symbol, sp.Expr]]) -> dict[Key, sp.Expr]:
    keys = jets.keys()
    out: dict[Key, sp.Expr] = {}
    for key, c in pairs:
        k = keys[key] if isinstance(key, sp.Symbol) else key
        out[k] = sp.simplify(out.get(k, sp.Integer(0)) + c)
    return {k: c for k, c in out.items() if c != 0}


def _evolves(operator: dict[Key, sp.Expr]) -> bool:
    """A linear equation worth solving: some derivative in it, no unknown constant left."""
    leftover = {sp.Symbol("alpha"), sp.Symbol("beta")}
    return any(k != (0, 0) for k in operator) and not any(c.free_symbols & leftover for c in operator.values())
