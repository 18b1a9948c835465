"""A linear initial-boundary value problem as separation of variables reads it (issue 46).

One field, one equation ``p2*u_tt + p1*u_t = sum_i d_i*u_{x_i x_i} + c*u + f`` with constant
coefficients (``d_i > 0``; no time derivative: Laplace's or Poisson's equation), on a box (an interval
per spatial variable) or on a disk or an annulus; on each face or rim a separated condition
``alpha*u + beta*u_n = g`` with constant ``alpha, beta`` (Dirichlet, Neumann, Robin), or a periodic
pair; the value and, for a wave, the velocity at the first time.  :func:`read` returns the
:class:`Layout` or the reason it is none; everything here is cheap (a linear split and a look at each
constraint), so it runs in the parent as the method's check.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import SPECIAL_CLASSES, Annulus, Disk, Face, Part
from desyr_sympy.shared.forms import exact_number, jet_symbols, rational, residuals, split_linear

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Constraint, Problem


class Declined(Exception):
    """Separation of variables does not apply (or not yet): the message says why, for the attempt record."""


@dataclass(frozen=True)
class End:
    """``alpha*u + beta*u_n = value`` on one face or rim, ``u_n`` the outward normal derivative."""

    alpha: sp.Expr
    beta: sp.Expr
    value: sp.Expr

    @property
    def homogeneous(self) -> bool:
        return bool(self.value == 0)


@dataclass(frozen=True)
class Axis:
    """A spatial variable on ``[lo, hi]`` with its diffusivity and its two ends (or a periodic pair)."""

    symbol: sp.Symbol
    lo: sp.Expr
    hi: sp.Expr
    diffusivity: sp.Expr
    low: End | None = None
    high: End | None = None
    periodic: bool = False

    @property
    def length(self) -> sp.Expr:
        return self.hi - self.lo


@dataclass(frozen=True)
class Round:
    """A disk (``inner`` 0, no inner end) or an annulus about ``(x0, y0)``, in the variables ``x, y``."""

    x: sp.Symbol
    y: sp.Symbol
    x0: sp.Expr
    y0: sp.Expr
    inner: sp.Expr
    outer: sp.Expr
    diffusivity: sp.Expr
    inner_end: End | None
    outer_end: End | None

    @property
    def disk(self) -> bool:
        return bool(self.inner == 0)


@dataclass(frozen=True)
class Layout:
    field: str
    time: sp.Symbol | None
    start: sp.Expr                  # the first time
    mass: sp.Expr                   # p2: the coefficient of u_tt (0 for the heat equation)
    damping: sp.Expr                # p1: the coefficient of u_t
    reaction: sp.Expr               # c
    source: sp.Expr                 # f, in the variables
    axes: tuple[Axis, ...] = ()     # a box
    round: Round | None = None      # or a disk / an annulus
    initial: sp.Expr | None = None  # u at the first time
    velocity: sp.Expr | None = None  # u_t at the first time (a wave)

    @property
    def evolution(self) -> bool:
        return self.time is not None

    @property
    def spatial(self) -> list[sp.Symbol]:
        if self.round is not None:
            return [self.round.x, self.round.y]
        return [a.symbol for a in self.axes]


def read(problem: Problem) -> Layout:
    """The problem as a separable linear problem, or :class:`Declined` with the reason."""
    if len(problem.fields) != 1 or len(problem.equations) != 1:
        raise Declined("not one field and one equation")
    if problem.parameters or problem.unknowns:
        raise Declined("a family or unknown coefficients: the eigenvalues would depend on them")
    names = problem.vocabulary.var_symbols
    time = names[problem.time] if problem.time else None
    geometry = problem.geometry
    shape = None if geometry is None else geometry.shape
    if shape is not None and not isinstance(shape, (Disk, Annulus)):
        raise Declined("the domain is not a box, a disk or an annulus (it does not separate)")
    spatial = [s for s in problem.symbols if s != time]
    layout = _equation(problem, time, spatial)
    if shape is not None:
        assert geometry is not None
        x, y = (names[v] for v in geometry.space)
        if {x, y} != set(spatial):
            raise Declined("variables beside the shape's two and time")
        d = _isotropic(layout, spatial)
        inner = exact_number(shape.r0) if isinstance(shape, Annulus) else sp.Integer(0)
        outer = exact_number(shape.r1 if isinstance(shape, Annulus) else shape.r)
        cx, cy = (exact_number(float(c)) for c in shape.c)
        layout = replace(layout, round=Round(x, y, cx, cy, inner, outer, d, None, None), axes=())
    layout = _constraints(problem, layout)
    _complete(layout)
    if not layout.evolution and layout.reaction > 0:
        raise Declined("a Helmholtz equation (a positive reaction term): its modes can resonate; not handled")
    if layout.round is not None and layout.reaction != 0:
        raise Declined("a reaction term on a round domain (modified Bessel functions): not handled")
    special = [e for e in _data(layout) if e.has(*SPECIAL_CLASSES)]
    if special:
        raise Declined("data or a source through special functions (erf, Bessel...): their coefficient integrals "
                       "have no closed form here")
    return layout


def _data(layout: Layout) -> list[sp.Expr]:
    ends = [e for a in layout.axes for e in (a.low, a.high) if e is not None]
    if layout.round is not None:
        ends += [e for e in (layout.round.inner_end, layout.round.outer_end) if e is not None]
    return [layout.source, *(e.value for e in ends), *(v for v in (layout.initial, layout.velocity) if v is not None)]


def _equation(problem: Problem, time: sp.Symbol | None, spatial: list[sp.Symbol]) -> Layout:
    jets = jet_symbols(problem)
    linear = split_linear(residuals(problem)[0], jets)
    if linear is None:
        raise Declined("the equation is not linear")
    every = set(problem.symbols)
    time_terms: dict[int, sp.Expr] = {}
    second: dict[sp.Symbol, sp.Expr] = {}
    reaction = sp.Integer(0)
    for jet_symbol, coefficient in linear.coefficients.items():
        if coefficient.free_symbols & every:
            raise Declined(f"a variable coefficient ({coefficient}) of {jet_symbol}: not separated here")
        if not coefficient.is_number:
            raise Declined("a symbolic coefficient")
        wrt = [problem.vocabulary.var_symbols[v] for v in jets[jet_symbol].wrt]
        if not wrt:
            reaction = coefficient
        elif time is not None and all(v == time for v in wrt) and len(wrt) <= 2:
            time_terms[len(wrt)] = coefficient
        elif len(wrt) == 2 and wrt[0] == wrt[1] and wrt[0] in spatial:
            second[wrt[0]] = coefficient
        else:
            raise Declined(f"the derivative {jet_symbol} (mixed, odd or of higher order) does not separate "
                           "into a symmetric eigenproblem")
    if not second or set(second) != set(spatial):
        raise Declined("not every spatial variable has its second derivative")
    forcing = linear.forcing
    if time is None:
        sign = -1 if all(c > 0 for c in second.values()) else 1
    else:
        lead = time_terms.get(2, time_terms.get(1))
        if lead is None:
            raise Declined("no time derivative in a problem with a time")
        sign = 1 if lead > 0 else -1
    d = {v: -sign * c for v, c in second.items()}
    if any(not c > 0 for c in d.values()):
        kind = "elliptic" if time is None else "parabolic or hyperbolic in the usual sense"
        raise Declined(f"the equation is not {kind} (the second derivatives' signs)")
    if time is not None and time_terms.get(2, 0) == 0 and time_terms.get(1, 0) * sign <= 0:
        raise Declined("a backward heat equation")
    start = _start(problem, time)
    axes = tuple(_axis(problem, v, d[v]) for v in spatial)
    return Layout(problem.fields[0], time, start, sign * time_terms.get(2, sp.Integer(0)),
                  sign * time_terms.get(1, sp.Integer(0)), -sign * reaction, sign * forcing, axes)


def _start(problem: Problem, time: sp.Symbol | None) -> sp.Expr:
    if time is None:
        return sp.Integer(0)
    i = problem.symbols.index(time)
    return _exact(problem, float(problem.bounds[i][0]))


def _exact(problem: Problem, value: float) -> sp.Expr:
    known = problem.numbers.get(value)
    return sp.sympify(known) if known is not None else exact_number(value)


def _axis(problem: Problem, v: sp.Symbol, d: sp.Expr) -> Axis:
    lo, hi = problem.bounds[problem.symbols.index(v)]
    return Axis(v, _exact(problem, float(lo)), _exact(problem, float(hi)), d)


def _isotropic(layout: Layout, spatial: list[sp.Symbol]) -> sp.Expr:
    values = {a.diffusivity for a in layout.axes if a.symbol in spatial}
    if len(values) != 1:
        raise Declined("different diffusivities in x and y on a disk (not rotation invariant)")
    return values.pop()


def _constraints(problem: Problem, layout: Layout) -> Layout:
    for con in problem.constraints:
        if con.kind == "integral":
            raise Declined("an integral constraint")
        if con.kind == "periodic":
            layout = _periodic(problem, layout, con)
            continue
        for where in con.faces:
            layout = _place(problem, layout, con, where)
    return layout


def _place(problem: Problem, layout: Layout, con: Constraint, where: Face | Part) -> Layout:
    if isinstance(where, Part):
        return _on_rim(problem, layout, con, where)
    names = problem.vocabulary.var_symbols
    if len(where.fixed) != 1:
        raise Declined(f"a condition at {where.describe()} (an edge or a point), not on a face")
    name, at = where.fixed[0]
    v, position = names[name], _exact(problem, at)
    if v in con.value.free_symbols:
        raise Declined("data written as a formula for the whole domain (reference data): the finite-formula "
                       "methods' problem")
    value = rational(con.value).subs(v, position)
    if v == layout.time:
        if position != layout.start:
            raise Declined(f"a condition at {name} = {at:g}, not at the first time")
        return _initial(problem, layout, con, value)
    if layout.round is not None:
        raise Declined(f"a condition on the line {where.describe()} inside a round domain")
    axes = list(layout.axes)
    i = next(k for k, a in enumerate(axes) if a.symbol == v)
    axis = axes[i]
    side = "low" if position == axis.lo else "high" if position == axis.hi else None
    if side is None:
        raise Declined(f"a condition on the inner line {where.describe()}")
    end = _end(problem, con.operator, value, {v: -1 if side == "low" else 1}, layout)
    if getattr(axis, side) is not None or axis.periodic:
        raise Declined(f"two conditions on {where.describe()}")
    axes[i] = replace(axis, low=end) if side == "low" else replace(axis, high=end)
    return replace(layout, axes=tuple(axes))


def _initial(problem: Problem, layout: Layout, con: Constraint, value: sp.Expr) -> Layout:
    jets = jet_symbols(problem)
    jet = jets.get(con.operator)
    order = None if jet is None else len(jet.wrt)
    if order == 0 and layout.initial is None:
        return replace(layout, initial=value)
    if order == 1 and jet is not None and jet.wrt[0] == problem.time and layout.velocity is None \
            and layout.mass != 0:
        return replace(layout, velocity=value)
    raise Declined(f"an initial condition on {con.operator} (only u, and u_t for a wave, once each)")


def _end(problem: Problem, operator: sp.Expr, value: sp.Expr, normals: dict[sp.Symbol, int],
         layout: Layout) -> End:
    """``operator`` as ``alpha*u + beta*u_n`` where ``u_n = sum normals[v]*u_v`` (a face of a box)."""
    jets = jet_symbols(problem)
    linear = split_linear(rational(operator), jets)
    if linear is None or linear.forcing != 0:
        raise Declined(f"the condition {operator} is not linear and homogeneous in the field")
    alpha, beta = sp.Integer(0), None
    for symbol, coefficient in linear.coefficients.items():
        wrt = [problem.vocabulary.var_symbols[w] for w in jets[symbol].wrt]
        if coefficient.free_symbols:
            raise Declined(f"a variable coefficient in the condition {operator}")
        if not wrt:
            alpha = coefficient
        elif len(wrt) == 1 and wrt[0] in normals:
            beta = coefficient * normals[wrt[0]]
        else:
            raise Declined(f"the condition {operator} holds a derivative along its face")
    return End(alpha, beta if beta is not None else sp.Integer(0), value)


def _on_rim(problem: Problem, layout: Layout, con: Constraint, part: Part) -> Layout:
    shape = layout.round
    if shape is None or part.condition is not None:
        raise Declined(f"a condition on part of a boundary ({part.describe()})")
    jets = jet_symbols(problem)
    linear = split_linear(rational(con.operator), jets)
    if linear is None or linear.forcing != 0:
        raise Declined(f"the condition {con.operator} is not linear and homogeneous in the field")
    inner = part.name == "inner"
    radius = shape.inner if inner else shape.outer
    X, Y = shape.x - shape.x0, shape.y - shape.y0
    alpha = sp.Integer(0)
    gradient = {shape.x: sp.Integer(0), shape.y: sp.Integer(0)}
    for symbol, coefficient in linear.coefficients.items():
        wrt = [problem.vocabulary.var_symbols[w] for w in jets[symbol].wrt]
        if not wrt and not coefficient.free_symbols:
            alpha = coefficient
        elif len(wrt) == 1 and wrt[0] in gradient:
            gradient[wrt[0]] = coefficient
        else:
            raise Declined(f"the condition {con.operator} is not alpha*u + beta*u_n on the rim")
    # u_n = (X*u_x + Y*u_y)/r on the outer rim and its negative on the inner one
    beta = sp.cancel(gradient[shape.x] / X) * radius * (-1 if inner else 1) if gradient[shape.x] != 0 else 0
    beta = sp.sympify(beta)
    if beta.free_symbols or sp.expand(gradient[shape.y] - gradient[shape.x] * Y / X) != 0:
        raise Declined(f"the condition {con.operator} holds a tangential derivative")
    end = End(alpha, beta, rational(con.value))
    if (shape.inner_end if inner else shape.outer_end) is not None:
        raise Declined(f"two conditions on {part.name}")
    key = "inner_end" if inner else "outer_end"
    return replace(layout, round=replace(shape, **{key: end}))


def _periodic(problem: Problem, layout: Layout, con: Constraint) -> Layout:
    names = problem.vocabulary.var_symbols
    moved = [(names[v], d) for v, d in zip(problem.variable_names, con.shift) if d]
    if len(moved) != 1 or rational(con.value) != 0 or layout.round is not None:
        raise Declined("a periodic condition that is not one homogeneous pair of opposite faces")
    v, _ = moved[0]
    axes = list(layout.axes)
    i = next((k for k, a in enumerate(axes) if a.symbol == v), None)
    if i is None:
        raise Declined("a periodic condition in time")
    jets = jet_symbols(problem)
    jet = jets.get(con.operator)
    if jet is None or len(jet.wrt) > 1 or (jet.wrt and names[jet.wrt[0]] != v):
        raise Declined(f"a periodic condition on {con.operator} (u and its derivative across are read)")
    axis = axes[i]
    key = "high" if jet.wrt else "low"     # marks which of the pair is given; read in _complete
    if axis.low is not None and not axis.periodic or getattr(axis, key) is not None:
        raise Declined("a periodic pair and another condition on the same faces")
    axes[i] = replace(axis, periodic=True, **{key: End(sp.Integer(1), sp.Integer(0), sp.Integer(0))})
    return replace(layout, axes=tuple(axes))


def _complete(layout: Layout) -> None:
    for axis in layout.axes:
        if axis.periodic and (axis.low is None or axis.high is None):
            raise Declined(f"periodic in {axis.symbol} needs both u and u_{axis.symbol} periodic")
        if axis.low is None or axis.high is None:
            raise Declined(f"no condition at one end of {axis.symbol}")
        for end in (axis.low, axis.high):
            if not axis.periodic and end.alpha == 0 and end.beta == 0:
                raise Declined("a condition without the field")
    shape = layout.round
    if shape is not None and (shape.outer_end is None or (not shape.disk and shape.inner_end is None)):
        raise Declined("no condition on a rim")
    if layout.evolution:
        if layout.initial is None:
            raise Declined("no initial value")
        if layout.mass != 0 and layout.velocity is None:
            raise Declined("a wave without its initial velocity")
