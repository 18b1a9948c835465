"""Series on a disk: each angular mode's Fourier-Bessel family, and the data split into angular modes.

On a disk of radius ``R`` about ``(x0, y0)`` (polar ``x = x0 + r*cos(theta)``, ``y = y0 + r*sin(theta)``),
an equation whose spatial part is ``A*(u_xx + u_yy)`` separates into ``cos(m*theta)``, ``sin(m*theta)``
and the radial problem ``X'' + X'/r + (mu - m**2/r**2)*X = 0``, bounded at 0.  Its bounded solutions
are the multiples of ``J_m(s*r)`` (``Y_m`` is unbounded there), so with the rim condition ``X(R) = 0`` the
eigenvalues are exactly ``(besseljzero(m, k)/R)**2``, k = 1, 2, ... (every positive zero of ``J_m`` is
counted by the function), with ``X'(R) = 0`` they are ``(besseljpzero(m, k)/R)**2`` and, for
``m = 0``, the constant, and with a Robin rim ``R*X'(R) + h*X(R) = 0`` (``h + m > 0``) they are
``(dinizero(m, h, k)/R)**2``; ``mu <= 0`` gives ``r**m`` or ``I_m(sigma*r)``, positive and increasing, which
meet none of these conditions except the constant of a Neumann rim (``x*I_m'(x)/I_m(x) >= m``, so
``sigma*R*I_m' + h*I_m > 0`` when ``h + m > 0``).  Completeness: for each ``m`` the
Fourier-Bessel (rim value) and Dini (rim slope) families are complete and orthogonal in
``L2((0, R), r dr)`` (Watson, *A treatise on the theory of Bessel functions*, 18.24 and 18.3), and with
the angular Fourier basis complete in ``L2`` of the disk.

The data a target leaves, ``rho(r, theta)``, are split into angular modes by exact integrals over
``theta``, and shown to be the sum of those modes (so no other mode is present); each mode's radial
coefficients are then checked like an interval's (:func:`desyr.verify.series_expansion.check_coefficients`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from desyr.model.geometry import Part
from desyr.model.problem import Problem
from desyr.model.shapes import Disk
from desyr.symbolic.eigenvalues import EigenvalueFunction, besseljpzero, besseljzero, dinizero
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify.series_expansion import SECONDS_PER_INTEGRAL, Check, Expansion, Unproved, check_coefficients
from desyr.verify.series_form import Series
from desyr.verify.series_identity import Range, zero_for_all
from desyr.verify.series_modes import Mode, NotAnExpansion, Piece
from desyr.verify.series_sturm import Branch, Family, J, NoFamily
from desyr.verify.series_targets import Target, linear_coefficients

RADIUS = sp.Dummy("r", positive=True)
ANGLE = sp.Dummy("theta", real=True)
THEOREM = ("for each angular mode m, the Fourier-Bessel family J_m(j_(m,k)*r/R) (a rim value) or the Dini family "
           "J_m(j'_(m,k)*r/R) with the constant for m = 0 (a rim slope), J_m(d_(m,k)*r/R) (a Robin rim, h + m > 0) "
           "is complete and orthogonal in L2((0, R), r dr) "
           "(Watson, Bessel functions, 18.24, 18.3); with cos(m*theta), sin(m*theta) complete in L2 of the disk")


@dataclass(frozen=True)
class Round:
    x: sp.Symbol
    y: sp.Symbol
    x0: sp.Expr
    y0: sp.Expr
    radius: sp.Expr
    h: sp.Expr | None            # the rim condition: u (None), u_n (0) or h*u + R*u_n (Robin)
    rim: tuple[Target, ...]
    spatial_coefficient: sp.Expr  # A in A*(u_xx + u_yy)

    def polar(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` in ``r, theta``, each square root of ``r**2*(cos**2 + sin**2)`` written ``r`` (nothing else
        simplified: a Bessel function of the index stays as written)."""
        moved = expr.xreplace({self.x: self.x0 + RADIUS * sp.cos(ANGLE), self.y: self.y0 + RADIUS * sp.sin(ANGLE)})
        return moved.replace(lambda e: isinstance(e, sp.Pow) and e.base.has(ANGLE) and not e.exp.is_Integer,
                             lambda e: sp.trigsimp(sp.factor(e.base)) ** e.exp)

    @property
    def rim_kind(self) -> str:
        return "value" if self.h is None else "slope" if self.h == 0 else f"Robin (h = {self.h})"

    def family(self, m: int) -> Family:
        if self.h is None:
            name, s = "J", besseljzero(m, J) / self.radius
        elif self.h == 0:
            name, s = "J'", besseljpzero(m, J) / self.radius
        else:
            if not (self.h + m).is_positive:
                raise NoFamily(f"a Robin rim with h + m <= 0 (h = {self.h}, mode {m}) has an eigenvalue <= 0, which "
                               "this proof does not take")
            name, s = "Dini", dinizero(m, self.h, J) / self.radius
        branches = [Branch(f"{name}_{m}", 1, False, s, sp.besselj(m, s * RADIUS), None)]
        if self.h == 0 and m == 0:
            branches.insert(0, Branch("constant", 0, True, sp.Integer(0), sp.Integer(1), None))
        return Family(RADIUS, sp.Integer(0), self.radius, sp.Integer(0), tuple(branches),
                      f"mode {m}, rim {self.rim_kind}", THEOREM, measure=RADIUS)


def round_domain(problem: Problem, all_targets: list[Target]) -> Round:
    """The disk, its rim condition and the equation's spatial coefficient (raises :class:`NoFamily`)."""
    from desyr.verify.proof import exact_number
    assert problem.geometry is not None
    shape = problem.geometry.shape
    if not isinstance(shape, Disk):
        raise NoFamily("a series is proved on a box or a disk")
    x, y = (problem.vocabulary.var_symbols[v] for v in problem.geometry.space)
    x0, y0, radius = (exact_number(v, problem.numbers) for v in (*shape.c, shape.r))
    if x0 is None or y0 is None or radius is None:
        raise NoFamily("the disk is not at exact values")
    rim = tuple(t for t in all_targets if isinstance(t.face, Part))
    if len(rim) != 1 or rim[0].face.condition is not None:      # type: ignore[union-attr]
        raise NoFamily("the disk's rim needs one condition on the whole circle")
    return Round(x, y, x0, y0, radius, _rim_kind(problem, rim[0], x, y, x0, y0, radius), rim, _laplacian(problem, x, y))


def _laplacian(problem: Problem, x: sp.Symbol, y: sp.Symbol) -> sp.Expr:
    from desyr.verify.proof import config_exact
    coefficients = linear_coefficients(problem, config_exact(problem.equations[0].lhs)) or {}
    spatial = {j.wrt: c for j, c in coefficients.items() if set(j.wrt) & {str(x), str(y)}}
    a = spatial.get((str(x), str(x)))
    if a is None or a.free_symbols or spatial.get((str(y), str(y))) != a or len(spatial) != 2:
        raise NoFamily("the equation's spatial part is not a constant times u_xx + u_yy")
    return a


def _rim_kind(problem: Problem, rim: Target, x: sp.Symbol, y: sp.Symbol, x0: sp.Expr, y0: sp.Expr,
              radius: sp.Expr) -> sp.Expr | None:
    """The rim's condition ``alpha*u + beta*u_n`` (``u_n = ((x - x0)*u_x + (y - y0)*u_y)/R``, constants ``alpha``,
    ``beta``) as ``h = alpha*R/beta``: None for the value alone (``beta = 0``), 0 for the normal derivative alone."""
    coefficients = {j.wrt: c for j, c in (linear_coefficients(problem, rim.operator) or {}).items()}
    alpha = coefficients.get((), sp.Integer(0))
    if set(coefficients) == {()} and alpha != 0 and not alpha.free_symbols:
        return None
    if set(coefficients) - {()} == {(str(x),), (str(y),)} and not alpha.free_symbols:
        along = [sp.simplify(coefficients[(str(v),)] / (v - v0)) for v, v0 in ((x, x0), (y, y0))]
        if not along[0].free_symbols and along[0] != 0 and sp.simplify(along[0] - along[1]) == 0:
            return sp.simplify(alpha / along[0]) if alpha != 0 else sp.Integer(0)
    raise NoFamily("the rim's condition is not alpha*u + beta*u_n with constants alpha, beta")


def pieces(series: Series, rnd: Round, key: bytes) -> list[Piece]:
    """Each piece ``C(k, t) * X(r) * Theta(theta)``: ``Theta`` is ``cos(m*theta)`` or ``sin(m*theta)`` (up to a
    constant) and ``X`` proportional to the family's eigenfunction of index ``p*k + q``."""
    out = []
    for part in sp.Add.make_args(sp.expand(series.term)) if _split_needed(series.term, rnd) else [series.term]:
        out.append(_piece(part, series, rnd, key))
    return out


def _split_needed(term: sp.Expr, rnd: Round) -> bool:
    return not isinstance(sp.separatevars(rnd.polar(term), symbols=[RADIUS, ANGLE], dict=True), dict)


def _piece(term: sp.Expr, series: Series, rnd: Round, key: bytes) -> Piece:
    parts = sp.separatevars(rnd.polar(term), symbols=[RADIUS, ANGLE], dict=True)
    if not isinstance(parts, dict):
        raise NotAnExpansion(f"a term of the series, {sp.sstr(term)[:80]}, is not a radial times an angular factor")
    m, angle_scale = _angular(parts[ANGLE])
    fam = rnd.family(m)
    radial = parts[RADIUS]
    for branch in fam.branches:
        found = _match(radial, branch, series, key)
        if found is not None:
            index, scale = found
            mu = branch.frequency.xreplace({J: index}) ** 2
            mode = Mode(fam, branch, index, mu, radial, scale * angle_scale)
            return Piece(term, series.indices, (mode,), parts["coeff"], (m, "cos" if _is_cos(parts[ANGLE], m) else "sin"))
    raise NotAnExpansion(f"the radial factor {sp.sstr(radial)[:60]} is not an eigenfunction of the disk's mode {m}")


def _angular(theta: sp.Expr) -> tuple[int, sp.Expr]:
    if not theta.has(ANGLE):
        return 0, theta
    theta = sp.simplify(theta)
    square = sp.simplify(-sp.diff(theta, ANGLE, 2) / theta)
    if not (square.is_Integer and square >= 0 and sp.sqrt(square).is_Integer):
        raise NotAnExpansion("a term's angular factor is not cos(m*theta) or sin(m*theta)")
    m = int(sp.sqrt(square))
    base = sp.cos(m * ANGLE) if _is_cos(theta, m) else sp.sin(m * ANGLE)
    scale = sp.simplify(theta / base)
    if scale.has(ANGLE):
        raise NotAnExpansion("a term's angular factor is not cos(m*theta) or sin(m*theta)")
    return m, scale


def _is_cos(theta: sp.Expr, m: int) -> bool:
    return m == 0 or sp.simplify(theta.xreplace({ANGLE: 0})) != 0


def _match(radial: sp.Expr, branch: Branch, series: Series, key: bytes) -> tuple[sp.Expr, sp.Expr] | None:
    """The canonical index and the scale of ``radial`` as the branch's eigenfunction (None: it is not one)."""
    if branch.single:
        scale = sp.simplify(radial / branch.shape)
        return (sp.Integer(0), scale) if not scale.has(RADIUS) and scale != 0 else None
    (template,) = branch.frequency.atoms(EigenvalueFunction)
    for call in radial.atoms(EigenvalueFunction):
        if type(call) is not type(template) or call.constants != template.constants:
            continue
        scale = sp.simplify(radial / branch.at(call.index))
        if not scale.has(RADIUS) and scale != 0:
            return call.index, scale
    return None


def meet(problem: Problem, name: str, target: Target, finite: sp.Expr, found: list[Piece], rnd: Round,
         ranges: Mapping[sp.Symbol, Range], key: bytes) -> int:
    """The target holds on the disk: see :func:`desyr.verify.series_proof._meet` (the rim: every term vanishes
    there; elsewhere each angular mode's radial coefficients are the data's). Returns the index classes
    checked."""
    free = {s: r for s, r in ranges.items() if s not in target.fixed and s not in (rnd.x, rnd.y)}
    lowers = {i.symbol: i.lower for p in found for i in p.indices}
    rho = target.value - target.image(problem, name, finite)
    if isinstance(target.face, Part):
        along = {s for v in target.fixed.values() for s in v.free_symbols}      # the circle's parameter
        rim_free = {**free, **{s: (sp.Integer(0), 2 * sp.pi) for s in along}}
        for p in found:
            image = target.image(problem, name, p.term)
            image = image.replace(lambda e: isinstance(e, sp.Pow) and e.exp == sp.Rational(1, 2),
                                  lambda e: sp.sqrt(sp.trigsimp(e.base)))      # the rim's radius, sqrt(cos**2 + sin**2)
            if not zero_for_all(image, rim_free, lowers, key, f"rim {target.name}"):
                raise Unproved(f"{target.name}: the terms do not meet the rim's condition")
        return -1          # the rim's own data: checked by the caller like a face with no active expansion
    rs = [_coefficient(problem, target, p, rnd) for p in found]
    if all(zero_for_all(r, free, lowers, key, f"zero {target.name}") for r in rs):
        return -1
    polar_rho = sp.simplify(rnd.polar(rho))
    highest = max([p.angular[0] for p in found if p.angular] + [_degree(rho, rnd)])
    modes = _modes(polar_rho, highest, rnd.radius, free, key, target.name)
    count = 0
    for (m, kind), coefficient in modes.items():
        mine = [(p, r) for p, r in zip(found, rs) if p.angular == (m, kind)]
        if not mine:
            if not zero_for_all(coefficient, {RADIUS: (sp.Integer(0), rnd.radius), **free}, {}, key, f"mode {m}"):
                raise Unproved(f"{target.name}: the data's angular mode {kind}({m}*theta) has no term in the series")
            continue
        check = Check(target, Expansion((rnd.family(m),), tuple(p for p, _ in mine)), coefficient,
                      tuple(r for _, r in mine), free)
        count += check_coefficients(check, key, problem.numbers)
    return count


def _coefficient(problem: Problem, target: Target, piece: Piece, rnd: Round) -> sp.Expr:
    """``r`` with the target's operator of the term equal to ``r * X * Theta``: the Laplacian is ``-mu`` times
    the eigenfunction; the other derivatives act on the coefficient (time)."""
    coefficients = linear_coefficients(problem, target.operator) or {}
    r = sp.Integer(0)
    spatial = {str(rnd.x), str(rnd.y)}
    mode = piece.modes[0]
    for jet, c in coefficients.items():
        c = c.xreplace(dict(target.fixed))
        if c.has(rnd.x, rnd.y):
            raise Unproved(f"{target.name}: a coefficient depends on the position")
        if set(jet.wrt) & spatial:
            if target.face is not None or jet.wrt not in ((str(rnd.x),) * 2, (str(rnd.y),) * 2):
                raise Unproved(f"{target.name}: a spatial derivative other than the Laplacian")
            r += c * (-mode.eigenvalue) * piece.coefficient / 2    # u_xx and u_yy: half of the Laplacian each
            continue
        wrt = [problem.vocabulary.var_symbols[v] for v in jet.wrt]
        r += c * (sp.diff(piece.coefficient, *wrt) if wrt else piece.coefficient)
    return r.xreplace(dict(target.fixed)) if target.fixed else r


def _degree(rho: sp.Expr, rnd: Round) -> int:
    """The degree of ``rho`` in ``x, y`` (its highest angular mode), 0 where it is not a polynomial."""
    if rho.is_polynomial(rnd.x, rnd.y):
        return int(sp.Poly(rho, rnd.x, rnd.y).total_degree()) if rho.has(rnd.x, rnd.y) else 0
    return 0


def _modes(rho: sp.Expr, highest: int, radius: sp.Expr, free: Mapping[sp.Symbol, Range], key: bytes,
           where: str) -> dict[tuple[int, str], sp.Expr]:
    """``rho``'s angular Fourier coefficients up to ``highest``, shown to sum to ``rho`` (no other mode)."""
    out: dict[tuple[int, str], sp.Expr] = {}
    total = sp.Integer(0)
    try:
        with time_limit(SECONDS_PER_INTEGRAL * (highest + 1)):
            for m in range(highest + 1):
                for kind, f in (("cos", sp.cos), ("sin", sp.sin)):
                    if m == 0 and kind == "sin":
                        continue
                    weight = 1 / (2 * sp.pi) if m == 0 else 1 / sp.pi
                    value = sp.simplify(weight * sp.integrate(rho * f(m * ANGLE), (ANGLE, 0, 2 * sp.pi)))
                    out[(m, kind)] = value
                    total += value * f(m * ANGLE)
    except OutOfTime:
        raise Unproved(f"{where}: the data's angular modes were not computed in time") from None
    ranges = {RADIUS: (sp.Integer(0), radius), ANGLE: (sp.Integer(0), 2 * sp.pi), **free}
    if not zero_for_all(rho - total, ranges, {}, key, f"modes {where}"):
        raise Unproved(f"{where}: the data have angular modes beyond {highest} (not a polynomial in x, y)")
    return out
