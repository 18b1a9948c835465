"""The eigenproblems of separated variables: ``-X'' = lambda*X`` on an interval with its two ends, and
Bessel's equation on a disk's radius.

A :class:`Family` is one sequence of eigenpairs, written in a symbolic integer index ``n >= lower``
(``sin(pi*n*x)``, ``n >= 1``), or one eigenpair alone (``index`` None: the zero mode of Neumann and
periodic ends, kept; a negative eigenvalue).  The eigenvalues are in closed form where they have one
(``(pi*n/L)**2``, ``((n - 1/2)*pi/L)**2``), else a named root (``robinroot``, ``besseljzero``,
``besseljpzero``), whose ``evalf`` gives any precision.  Every family's functions are orthogonal with the
weight, complete together (Sturm-Liouville theory: for separated self-adjoint ends the eigenvalues are
simple, increase to infinity and the eigenfunctions form an orthogonal basis of the weighted L2 space),
and ``norm`` is the weighted integral of ``X**2``.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from desyr_sympy.series.layout import Axis, Declined, End
from desyr_sympy.series.names import besseljpzero, besseljzero, computing_index, dinizero, robinroot, robinsinhroot


@dataclass(frozen=True)
class Family:
    variable: sp.Symbol
    index: sp.Symbol | None     # None: one eigenpair
    lower: int
    value: sp.Expr              # the eigenvalue lambda of -X'' = lambda*X (in the index)
    function: sp.Expr           # X (in the variable and the index)
    norm: sp.Expr               # the weighted integral of X**2
    lo: sp.Expr
    hi: sp.Expr
    weight: sp.Expr = sp.Integer(1)
    #: the eigenvalues are named roots (no closed form): coefficients are not matched to finite formulas
    named: bool = False
    #: a Fourier-Bessel family: its order, its root (in the index) and the rim's h (None: Dirichlet; 0: Neumann)
    bessel: tuple[int, sp.Expr, sp.Expr | None] | None = None

    def at(self, k: int) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
        """The eigenvalue, the function and the norm at index ``k``."""
        if self.index is None:
            return self.value, self.function, self.norm
        value, function, norm = (e.subs(self.index, k) for e in (self.value, self.function, self.norm))
        return value, function, norm


def interval(axis: Axis, name: str) -> list[Family]:
    """The eigenfamilies of ``-X'' = lambda X`` on the axis with its ends made homogeneous."""
    lo, hi, length, x = axis.lo, axis.hi, axis.length, axis.symbol
    xi = x - lo
    if axis.periodic:
        n = computing_index(name, 1)
        k = 2 * sp.pi * n / length
        return [Family(x, None, 0, sp.Integer(0), sp.Integer(1), length, lo, hi),
                Family(x, n, 1, k**2, sp.cos(k * xi), length / 2, lo, hi),
                Family(x, n, 1, k**2, sp.sin(k * xi), length / 2, lo, hi)]
    assert axis.low is not None and axis.high is not None
    kind = (_kind(axis.low), _kind(axis.high))
    n = computing_index(name, 1)
    # a quarter-wave family from 0, (n + 1/2)*pi: the square root of its eigenvalue is then plainly positive
    half = computing_index(name, 0)
    closed = {("D", "D"): (n, n * sp.pi, sp.sin), ("N", "N"): (n, n * sp.pi, sp.cos),
              ("D", "N"): (half, (half + sp.Rational(1, 2)) * sp.pi, sp.sin),
              ("N", "D"): (half, (half + sp.Rational(1, 2)) * sp.pi, sp.cos)}
    if kind in closed:
        index, s, trig = closed[kind]
        lower = 0 if index is half else 1
        families = [Family(x, index, lower, (s / length)**2, trig(s * xi / length), length / 2, lo, hi)]
        if kind == ("N", "N"):
            families.insert(0, Family(x, None, 0, sp.Integer(0), sp.Integer(1), length, lo, hi))
        return families
    return _robin(axis.low, axis.high, x, lo, hi, n)


def _kind(end: End) -> str:
    if end.beta == 0:
        return "D"
    if end.alpha == 0:
        return "N"
    return "R"


def _robin(low: End, high: End, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr, n: sp.Symbol) -> list[Family]:
    """Robin ends: ``alpha0*X(lo) - beta0*X'(lo) = 0`` and ``alpha1*X(hi) + beta1*X'(hi) = 0`` (``u_n`` is
    ``-u_x`` at the low end).  With ``s = mu*L`` the eigenvalues ``mu**2`` solve
    ``(a - b*s**2)*sin(s) + c*s*cos(s) = 0``, ``a = alpha0*alpha1*L**2``, ``b = beta0*beta1``,
    ``c = L*(alpha1*beta0 + alpha0*beta1)``, and ``X = beta0*(s/L)*cos(s*xi/L) + alpha0*sin(s*xi/L)``."""
    length = hi - lo
    a0, b0, a1, b1 = low.alpha, low.beta, high.alpha, high.beta
    a, b, c = a0 * a1 * length**2, b0 * b1, length * (a1 * b0 + a0 * b1)
    # one common sign, so that the root's arguments are the simplest ones (b >= 0 where it can be)
    if b < 0 or (b == 0 and c < 0):
        a, b, c = -a, -b, -c
    xi = x - lo
    s = robinroot(n, a, b, c)
    mu = s / length
    function = b0 * mu * sp.cos(mu * xi) + a0 * sp.sin(mu * xi)
    sym = sp.Dummy("s", positive=True)
    norm = _norm(b0 * sym / length * sp.cos(sym * xi / length) + a0 * sp.sin(sym * xi / length), x, lo, hi)
    norm = _at_root(norm, sym, a, b, c)
    families = [Family(x, n, 1, mu**2, function, norm.subs(sym, s), lo, hi, named=True)]
    if sp.simplify(a + c) == 0:                         # a zero eigenvalue: X = beta0 + alpha0*xi
        zero = b0 + a0 * xi
        families.insert(0, Family(x, None, 0, sp.Integer(0), zero, _norm(zero, x, lo, hi), lo, hi))
    families[:0] = _growing(a0, b0, (a, b, c), x, lo, hi)
    return families


def _growing(a0: sp.Expr, b0: sp.Expr, constants: tuple[sp.Expr, sp.Expr, sp.Expr], x: sp.Symbol, lo: sp.Expr,
             hi: sp.Expr) -> list[Family]:
    """The negative eigenvalues ``-(z/L)**2`` of the Robin ends, ``z = robinsinhroot(k, a, b, c)`` (at most two),
    each one eigenpair: ``X = beta0*(z/L)*cosh(z*xi/L) + alpha0*sinh(z*xi/L)``, an exponentially growing mode
    of the heat equation."""
    try:
        found = robinsinhroot.count(constants)
    except (ValueError, ArithmeticError) as exc:
        raise Declined(f"the Robin ends' negative eigenvalues cannot be laid out: {exc}") from None
    length, xi = hi - lo, x - lo
    out = []
    z = sp.Dummy("z", positive=True)
    norm = _norm(b0 * z / length * sp.cosh(z * xi / length) + a0 * sp.sinh(z * xi / length), x, lo, hi)
    norm = _at_root(norm, z, *constants, hyperbolic=True)
    for k in range(1, found + 1):
        root = robinsinhroot(k, *constants)
        mu = root / length
        function = b0 * mu * sp.cosh(mu * xi) + a0 * sp.sinh(mu * xi)
        out.append(Family(x, None, 0, -mu**2, function, norm.xreplace({z: root}), lo, hi, named=True))
    return out


def _at_root(expr: sp.Expr, s: sp.Symbol, a: sp.Expr, b: sp.Expr, c: sp.Expr, hyperbolic: bool = False) -> sp.Expr:
    """``expr`` with ``sin(s)**2``, ``cos(s)**2`` and ``sin(s)*cos(s)`` (and the double angles) written through the
    root's relation ``(a - b*s**2)*sin(s) = -c*s*cos(s)``: a rational function of ``s`` (its denominator
    plainly nonzero for the usual signs) where no odd power of ``sin(s)`` or ``cos(s)`` is left.  ``hyperbolic``:
    the same for ``sinh``, ``cosh`` at a root of ``(a + b*s**2)*sinh(s) + c*s*cosh(s)`` (``cosh**2 - sinh**2 = 1``)."""
    sine, cosine = sp.Dummy("sine"), sp.Dummy("cosine")
    odd, even = (sp.sinh(s), sp.cosh(s)) if hyperbolic else (sp.sin(s), sp.cos(s))
    flat = sp.expand(sp.expand(expr, trig=True).xreplace({odd: sine, even: cosine}))
    if hyperbolic:
        q = (a + b * s**2)**2 - c**2 * s**2
        values = {sine**2: c**2 * s**2 / q, cosine**2: (a + b * s**2)**2 / q, sine * cosine: -c * s * (a + b * s**2) / q}
    else:
        q = (a - b * s**2)**2 + c**2 * s**2
        values = {sine**2: c**2 * s**2 / q, cosine**2: (a - b * s**2)**2 / q, sine * cosine: -c * s * (a - b * s**2) / q}
    out = sp.Integer(0)
    for term in sp.Add.make_args(flat):
        rest, trig = term.as_independent(sine, cosine, as_Add=False)
        if trig not in values and trig != 1:
            return expr
        out += rest * values.get(trig, sp.Integer(1))
    return sp.factor(sp.cancel(out))


def _norm(function: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    value = sp.integrate(sp.expand(function**2), (x, lo, hi))
    return sp.factor_terms(sp.expand(sp.trigsimp(value) if value.has(sp.sin, sp.cos) else value))


def bessel(order: int, radius: sp.Expr, end: End, r: sp.Symbol, name: str) -> list[Family]:
    """The radial eigenfamilies of ``-(r R')'/r + order**2/r**2 R = lambda R`` on ``[0, radius]``, regular at
    the centre, with the rim's end made homogeneous: Dirichlet ``J_m(j_{m,k} r/a)``, Neumann
    ``J_m(j'_{m,k} r/a)`` (and the constant for ``m = 0``), Robin ``alpha*u + beta*u_r = 0``
    ``J_m(d_{m,k} r/a)`` with ``d = dinizero(m, alpha*a/beta, k)`` (Dini's series); weight ``r``."""
    k = computing_index(name, 1)
    kind = _kind(end)
    h = None if kind == "D" else sp.Integer(0) if kind == "N" else sp.nsimplify(end.alpha * radius / end.beta)
    if h is not None and h != 0 and not (h + order).is_positive:
        raise Declined(f"a Robin rim with h + m <= 0 (h = {h}, mode {order}): an eigenvalue <= 0 (r**m or I_m), "
                       "not handled")
    root = besseljzero(order, k) if h is None else besseljpzero(order, k) if h == 0 else dinizero(order, h, k)
    function = sp.besselj(order, root * r / radius)
    if h is None:
        norm = radius**2 / 2 * sp.besselj(order + 1, root)**2
    else:       # at a root of s*J_m'(s) + h*J_m(s): R**2/2*(J_m'**2 + (1 - m**2/s**2)*J_m**2), J_m' = -h*J_m/s
        norm = radius**2 / 2 * (1 + (h**2 - sp.Integer(order)**2) / root**2) * sp.besselj(order, root)**2
    families = [Family(r, k, 1, (root / radius)**2, function, norm, sp.Integer(0), radius, weight=r, named=True,
                       bessel=(order, root, h))]
    if kind == "N" and order == 0:
        families.insert(0, Family(r, None, 0, sp.Integer(0), sp.Integer(1), radius**2 / 2, sp.Integer(0), radius,
                                  weight=r))
    return families
