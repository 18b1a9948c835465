"""The Sturm-Liouville problem a config implies along one direction, and its whole spectrum, exactly.

Along a spatial variable ``v`` on ``[lo, hi]`` (``L = hi - lo``) whose two ends carry one condition
each (or a periodic pair), the equation's part in ``v`` is ``A*u_vv + B*u_v`` with constant ``A != 0``
and ``B``; separating ``u = X(v)*T`` gives ``X'' + beta*X' + mu*X = 0`` (``beta = B/A``), the regular
problem ``(p X')' + mu*w*X = 0`` with ``p = w = exp(beta*v)``, and each end's condition is
``c0*X + c1*X' = 0`` with constants ``c0, c1`` (``u_n`` is already ``-u_v`` or ``u_v`` there).

Every solution of that constant-coefficient equation is ``exp(-beta*v/2)*Y`` with ``Y`` a combination
of ``cos(s*(v - lo))`` and ``sin(s*(v - lo))`` (``mu = s**2 + beta**2/4``, ``s > 0``), of ``1`` and
``v - lo`` (``s = 0``), or of ``cosh`` and ``sinh`` of ``s*(v - lo)`` (``mu = beta**2/4 - s**2``).  A
nonzero ``Y`` meets both conditions exactly when the 2x2 determinant ``D(s)`` of the conditions on
that basis vanishes, so the spectrum is the zero set of ``D``, computed here from the config:
``D = P(s)*sin(s*L)`` (roots ``j*pi/L``), ``D = P(s)*cos(s*L)`` (roots ``(j - 1/2)*pi/L``) or, for a
periodic pair, ``D = P(s)*(1 - cos(s*L))`` (double roots ``2*j*pi/L``: a cosine and a sine), with
``P`` a polynomial without positive roots; the ``s = 0`` determinant decides the zero mode, and the
hyperbolic one, shown of one sign for every ``s > 0``, rules out every eigenvalue below
``beta**2/4``.  Any other determinant (Robin ends, whose roots are ``robinroot``) is not handled
here, and nothing is proved along that direction.  Where the hyperbolic determinant is Robin's,
``(h0 + h2*s**2)*sinh(s*L) + h1*s*cosh(s*L)``, its positive roots are ``robinsinhroot``'s, counted with
proof (:mod:`desyr.symbolic.robin_growth`): each is one eigenvalue below ``beta**2/4``, a single branch.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.eigenvalues import robinroot, robinsinhroot, unit_constants
from desyr.verify.series_targets import Target, linear_coefficients

#: the canonical index of a family's eigenfunctions (an integer >= 0)
J = sp.Dummy("j", integer=True, nonnegative=True)
_S = sp.Dummy("s", positive=True)

SEPARATED = ("the Sturm-Liouville expansion theorem for a regular problem with separated conditions "
             "(Coddington & Levinson, Theory of Ordinary Differential Equations, ch. 7): simple eigenvalues, "
             "eigenfunctions orthogonal and complete in L2(w)")
PERIODIC = ("the completeness of the trigonometric system in L2 (Riesz-Fischer with Fejer's theorem); each "
            "eigenvalue (2*j*pi/L)**2 has a cosine and a sine")


class NoFamily(Exception):
    """Why no Sturm-Liouville family is proved along a direction (one line)."""


@dataclass(frozen=True)
class Branch:
    """Eigenfunctions ``shape`` (in :data:`J` and the variable) for ``J >= first``, or only ``J = first``
    when ``single``; ``index_of`` gives ``J`` from a frequency ``s`` (in :data:`_S`; None: single)."""

    label: str
    first: int
    single: bool
    frequency: sp.Expr
    shape: sp.Expr
    index_of: sp.Expr | None
    #: a Robin branch: the frequency is robinroot(J, a, b, c)/length, these (a, b, c, length)
    robin: tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr] | None = None
    #: a single eigenpair's ``mu - beta**2/4`` (0: the zero mode; ``-(z/L)**2``: a negative eigenvalue)
    square: sp.Expr = sp.Integer(0)

    def at(self, index: sp.Expr) -> sp.Expr:
        return self.shape.xreplace({J: index})


@dataclass(frozen=True)
class Family:
    variable: sp.Symbol
    lo: sp.Expr
    hi: sp.Expr
    beta: sp.Expr
    branches: tuple[Branch, ...]
    conditions: str
    theorem: str
    #: the weight of the inner product when it is not exp(beta*v) (a radius: r)
    measure: sp.Expr | None = None

    @property
    def weight(self) -> sp.Expr:
        return self.measure if self.measure is not None else sp.exp(self.beta * self.variable)

    def index(self, branch: Branch, frequency: sp.Expr) -> sp.Expr | None:
        """The canonical index of the eigenfunction of ``branch`` with ``frequency`` (None: single, or not
        one of the branch's frequencies)."""
        if branch.robin is not None:
            return _robin_index(frequency, *branch.robin)
        return None if branch.index_of is None else sp.expand(branch.index_of.xreplace({_S: frequency}))

    def describe(self) -> str:
        kinds = ", ".join(f"{b.label}(j >= {b.first})" if not b.single else f"{b.label}(j = {b.first})"
                          for b in self.branches)
        return f"{self.variable} on [{self.lo}, {self.hi}]: {kinds}"


# a condition row: (where, c0, c1): c0*X + c1*X' at lo or hi, or their difference between the ends
Row = tuple[str, sp.Expr, sp.Expr]


def family(problem: Problem, variable: str, conditions: list[Target]) -> Family:
    """The family along ``variable``, from the equation and the ``conditions`` at its two ends."""
    v = problem.vocabulary.var_symbols[variable]
    lo, hi = _ends(problem, variable)
    beta = _drift(problem, variable)
    rows, periodic = _rows(problem, variable, v, lo, conditions)
    rows.sort(key=lambda r: r[0] != "lo")          # the condition at lo first: its row names the eigenfunction
    if periodic and beta != 0:
        raise NoFamily(f"periodic conditions in {variable} with a first-derivative term are not self-adjoint")
    length = hi - lo
    trig = _matrix(rows, [sp.cos(_S * (v - lo)), sp.sin(_S * (v - lo))], v, lo, hi, beta)
    branches = _positive(trig, v, lo, length, beta, periodic)
    hyperbolic = _matrix(rows, [sp.cosh(_S * (v - lo)), sp.sinh(_S * (v - lo))], v, lo, hi, beta)
    growing = _negative(hyperbolic, v, lo, length, periodic, sp.exp(-beta * v / 2))
    zero = _zero_mode(_matrix(rows, [sp.Integer(1), v - lo], v, lo, hi, beta), v, lo, beta)
    if zero is not None:
        branches = _with_zero(branches, zero, v)
    branches = growing + branches
    said = "; ".join(t.name for t in conditions)
    return Family(v, lo, hi, beta, tuple(branches), said, PERIODIC if periodic else SEPARATED)


def _ends(problem: Problem, variable: str) -> tuple[sp.Expr, sp.Expr]:
    from desyr.verify.proof import exact_number
    var = next(x for x in problem.variables if x.name == variable)
    lo, hi = exact_number(var.lo, problem.numbers), exact_number(var.hi, problem.numbers)
    if lo is None or hi is None:
        raise NoFamily(f"the range of {variable} is not at exact values")
    return lo, hi


def _drift(problem: Problem, variable: str) -> sp.Expr:
    from desyr.verify.proof import config_exact
    coefficients = linear_coefficients(problem, config_exact(problem.equations[0].lhs))
    if coefficients is None:
        raise NoFamily("the equation is not linear in the field")
    second = first = sp.Integer(0)
    for jet, c in coefficients.items():
        if variable not in jet.wrt:
            continue
        if c.free_symbols:
            raise NoFamily(f"the equation's coefficient of {jet.field}_{''.join(jet.wrt)} is not constant")
        if jet.wrt == (variable, variable):
            second = c
        elif jet.wrt == (variable,):
            first = c
        else:
            raise NoFamily(f"the equation mixes {variable} with other derivatives ({jet.field}_{''.join(jet.wrt)})")
    if second == 0:
        raise NoFamily(f"the equation has no second derivative in {variable}")
    return sp.Integer(0) if first == 0 else first / second


def _rows(problem: Problem, variable: str, v: sp.Symbol, lo: sp.Expr,
          conditions: list[Target]) -> tuple[list[Row], bool]:
    rows: list[Row] = []
    for target in conditions:
        coefficients = linear_coefficients(problem, target.operator)
        if coefficients is None:
            raise NoFamily(f"{target.name} is not linear in the field")
        c0 = c1 = sp.Integer(0)
        for jet, c in coefficients.items():
            c = c.xreplace(dict(target.fixed))
            if c.free_symbols:
                raise NoFamily(f"{target.name} has a coefficient that is not constant")
            if jet.wrt == ():
                c0 = c
            elif jet.wrt == (variable,):
                c1 = c
            else:
                raise NoFamily(f"{target.name} takes {jet.field}_{''.join(jet.wrt)}: not a Sturm-Liouville condition")
        where = "periodic" if target.periodic else ("lo" if target.fixed.get(v) == lo else "hi")
        rows.append((where, c0, c1))
    kinds = sorted(r[0] for r in rows)
    if kinds not in (["hi", "lo"], ["periodic", "periodic"]):
        raise NoFamily(f"{variable} needs one condition at each end, or a periodic pair of the field and its "
                       f"derivative; it has {', '.join(kinds) or 'none'}")
    return rows, kinds[0] == "periodic"


def _matrix(rows: list[Row], basis: list[sp.Expr], v: sp.Symbol, lo: sp.Expr, hi: sp.Expr,
            beta: sp.Expr) -> sp.Matrix:
    """Each condition applied to each basis function ``exp(-beta*v/2)*b``, with the factor
    ``exp(-beta*end/2)`` of each entry taken out (it scales a row, never the determinant's zeros)."""
    def row(where: str, c0: sp.Expr, c1: sp.Expr) -> list[sp.Expr]:
        out = []
        for b in basis:
            functional = c0 * b + c1 * (sp.diff(b, v) - beta * b / 2)
            if where == "periodic":
                out.append(sp.expand(functional.xreplace({v: lo}) - functional.xreplace({v: hi})))
            else:
                out.append(sp.expand(functional.xreplace({v: lo if where == "lo" else hi})))
        return out
    return sp.Matrix([row(*r) for r in rows])


def _split(d: sp.Expr, odd: sp.Expr, even: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``d = a*odd + b*even + c`` with ``a, b, c`` polynomials in the frequency (raises if not)."""
    # sin**2 + cos**2 (and cosh**2 - sinh**2) left by expanding a periodic pair's determinant
    square = {odd**2: even**2 - 1} if isinstance(odd, sp.sinh) else {odd**2: 1 - even**2}
    parts = sp.collect(sp.expand(sp.expand(d).xreplace(square)), [odd, even], evaluate=False)
    if set(parts) - {odd, even, sp.S.One}:
        raise NoFamily("the conditions' determinant is not of the trigonometric kinds handled")
    a, b, c = (sp.expand(parts.get(k, sp.Integer(0))) for k in (odd, even, sp.S.One))
    if any(not p.is_polynomial(_S) or p.free_symbols - {_S} for p in (a, b, c)):
        raise NoFamily("the conditions' determinant is not of the trigonometric kinds handled")
    return a, b, c


def _no_positive_root(p: sp.Expr) -> bool:
    if p == 0:
        return False
    return not any(r.is_positive for r in sp.Poly(p, _S).real_roots())


def _positive(trig: sp.Matrix, v: sp.Symbol, lo: sp.Expr, length: sp.Expr, beta: sp.Expr,
              periodic: bool) -> list[Branch]:
    a, b, c = _split(trig.det(), sp.sin(_S * length), sp.cos(_S * length))
    damp = sp.exp(-beta * v / 2)
    if periodic:
        if not (a == 0 and sp.expand(b + c) == 0 and _no_positive_root(c)):
            raise NoFamily("the periodic conditions' determinant is not P(s)*(1 - cos(s*L))")
        s = 2 * sp.pi * J / length
        if any(sp.simplify(e.xreplace({_S: s})) != 0 for e in trig):
            raise NoFamily("a periodic eigenvalue does not carry both the cosine and the sine")
        return [Branch("cos", 1, False, s, damp * sp.cos(s * (v - lo)), _S * length / (2 * sp.pi)),
                Branch("sin", 1, False, s, damp * sp.sin(s * (v - lo)), _S * length / (2 * sp.pi))]
    if c != 0:
        raise NoFamily("the conditions' determinant has a constant part")
    if b == 0 and _no_positive_root(a):
        s, index = sp.pi * J / length, _S * length / sp.pi
    elif a == 0 and _no_positive_root(b):
        s, index = sp.pi * (J - sp.Rational(1, 2)) / length, _S * length / sp.pi + sp.Rational(1, 2)
    else:
        return [_robin_branch(a, b, trig, v, lo, length, damp)]
    shape = _null_shape(trig.xreplace({_S: s}), [sp.cos(s * (v - lo)), sp.sin(s * (v - lo))])
    return [Branch(_label(shape), 1, False, s, damp * shape, index)]


def _robin_branch(a: sp.Expr, b: sp.Expr, trig: sp.Matrix, v: sp.Symbol, lo: sp.Expr, length: sp.Expr,
                  damp: sp.Expr) -> Branch:
    """``D = (a0 + a2*s**2)*sin(s*L) + c1*s*cos(s*L)``: with ``sigma = s*L``, the positive roots are
    ``robinroot(j, a0, -a2/L**2, c1/L)`` (j = 1, 2, ...), the k-th root by the function's definition; the
    eigenfunction is the one the condition at ``lo`` leaves (its row never vanishes for s > 0)."""
    pa, pb = sp.Poly(a, _S), sp.Poly(b, _S)
    if pa.degree() > 2 or pa.coeff_monomial(_S) != 0 or pb.degree() != 1 or pb.coeff_monomial(1) != 0:
        raise NoFamily("the conditions' determinant is not (a - b*s**2)*sin(s) + c*s*cos(s)")
    constants = (pa.coeff_monomial(1), -pa.coeff_monomial(_S**2) / length**2, pb.coeff_monomial(_S) / length)
    if any(not (k.is_number and k.is_real) for k in constants):
        raise NoFamily("the Robin constants are not real numbers")
    constants = unit_constants(constants) or constants       # the form the answer is put in (series_proof)
    s = robinroot(J, *constants) / length
    first_row = trig.row(0)
    c_cos, c_sin = first_row[0], first_row[1]           # c0' and c1*s at lo, in the frequency _S
    c_sin = sp.cancel(c_sin / _S)
    if c_cos == 0:
        shape = sp.cos(s * (v - lo))
    elif c_sin == 0:
        shape = sp.sin(s * (v - lo))
    else:
        shape = sp.sin(s * (v - lo)) - (c_sin * s / c_cos) * sp.cos(s * (v - lo))
    return Branch("robin", 1, False, s, damp * shape, None, (*constants, length))


def _robin_index(frequency: sp.Expr, a: sp.Expr, b: sp.Expr, c: sp.Expr, length: sp.Expr) -> sp.Expr | None:
    """``k`` where ``frequency*length`` is ``robinroot(k, a', b', c')`` with ``(a', b', c')`` a multiple of
    ``(a, b, c)`` (the same roots)."""
    scaled = sp.simplify(frequency * length)
    if not isinstance(scaled, robinroot):
        return None
    mine = sp.Matrix([[a, b, c], list(scaled.args[1:])])
    if any(sp.simplify(m) != 0 for m in (mine[0, 0] * mine[1, 1] - mine[0, 1] * mine[1, 0],
                                        mine[0, 0] * mine[1, 2] - mine[0, 2] * mine[1, 0],
                                        mine[0, 1] * mine[1, 2] - mine[0, 2] * mine[1, 1])):
        return None
    return scaled.index


def _null_shape(m: sp.Matrix, basis: list[sp.Expr]) -> sp.Expr:
    """The combination of ``basis`` that ``m`` (rank 1) annihilates, scaled so its simpler part is 1."""
    m = m.applyfunc(sp.simplify)
    for r in range(m.rows):
        vector = [m[r, 1], -m[r, 0]]
        if any(e != 0 for e in vector):
            break
    else:
        raise NoFamily("an eigenvalue's conditions are all zero")
    if any(sp.simplify(m[r, 0] * vector[0] + m[r, 1] * vector[1]) != 0 for r in range(m.rows)):
        raise NoFamily("an eigenvalue's conditions have no common eigenfunction")
    if vector[0] == 0:
        return basis[1]
    if vector[1] == 0:
        return basis[0]
    return sp.simplify(vector[0] / vector[1]) * basis[0] + basis[1]


def _label(shape: sp.Expr) -> str:
    return "sin" if isinstance(shape, sp.sin) else "cos" if isinstance(shape, sp.cos) else "mixed"


def _negative(hyperbolic: sp.Matrix, v: sp.Symbol, lo: sp.Expr, length: sp.Expr, periodic: bool,
              damp: sp.Expr) -> list[Branch]:
    """The eigenvalues below ``beta**2/4``: none where the hyperbolic determinant keeps one sign for every
    s > 0; else, for Robin ends, ``D = (h0 + h2*s**2)*sinh(s*L) + h1*s*cosh(s*L)``, whose positive roots are
    ``robinsinhroot(k, h0, h2/L**2, h1/L)/L``, every one of them (their count is proved: at most two)."""
    a, b, c = _split(hyperbolic.det(), sp.sinh(_S * length), sp.cosh(_S * length))
    if periodic:
        ok = sp.expand(b + c) == 0 and a == 0 and _no_positive_root(b)      # b*(cosh(sL) - 1)
    else:
        coefficients = [k for p in (a, b) if p != 0 for k in sp.Poly(p, _S).coeffs()]
        ok = c == 0 and bool(coefficients) and (all(k.is_nonnegative for k in coefficients)
                                                 or all(k.is_nonpositive for k in coefficients))
    if ok:
        return []
    pa, pb = sp.Poly(a, _S), sp.Poly(b, _S)
    if periodic or c != 0 or pa.degree() > 2 or pa.coeff_monomial(_S) != 0 or pb.degree() > 1 \
            or pb.coeff_monomial(1) != 0:
        raise NoFamily("the conditions may admit an eigenvalue below the oscillating ones (a sinh/cosh "
                       "eigenfunction), which this proof does not rule out")
    constants = (pa.coeff_monomial(1), pa.coeff_monomial(_S**2) / length**2, pb.coeff_monomial(_S) / length)
    if any(not (k.is_number and k.is_real) for k in constants):
        raise NoFamily("the Robin constants are not real numbers")
    try:
        count = robinsinhroot.count(constants)
    except (ValueError, ArithmeticError) as exc:
        raise NoFamily(f"the negative eigenvalues are not laid out: {exc}") from None
    out = []
    for k in range(1, count + 1):
        s = robinsinhroot(k, *constants) / length
        row = hyperbolic.row(0).xreplace({_S: s})
        if all(sp.simplify(e) == 0 for e in row):
            raise NoFamily("the condition at the lower end leaves no growing eigenfunction")
        shape = row[1] * sp.cosh(s * (v - lo)) - row[0] * sp.sinh(s * (v - lo))
        out.append(Branch(f"growing{k}", 0, True, sp.Integer(0), damp * shape, None, square=-s**2))
    return out


def _zero_mode(flat: sp.Matrix, v: sp.Symbol, lo: sp.Expr, beta: sp.Expr) -> sp.Expr | None:
    if sp.simplify(flat.det()) != 0:
        return None
    return sp.exp(-beta * v / 2) * _null_shape(flat, [sp.Integer(1), v - lo])


def _with_zero(branches: list[Branch], zero: sp.Expr, v: sp.Symbol) -> list[Branch]:
    """The zero mode joins a branch whose ``J = 0`` member it is (``cos(0) = 1``), else stands alone."""
    out = []
    joined = False
    for b in branches:
        at0 = b.at(sp.Integer(0))
        if not joined and at0 != 0 and not sp.simplify(at0 / zero).has(v):
            out.append(Branch(b.label, 0, False, b.frequency, b.shape, b.index_of))
            joined = True
        else:
            out.append(b)
    if not joined:
        out.append(Branch("zero", 0, True, sp.Integer(0), zero, None))
    return out
