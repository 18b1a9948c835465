"""Separation of variables on a disk or an annulus, in polar coordinates about the centre.

The data on each circle are split into angular modes by writing ``x - x0 = r*(z + 1/z)/2``,
``y - y0 = r*(z - 1/z)/(2*i)`` (``z = exp(i*theta)``): data polynomial in ``x, y`` (or functions of the
radius times such polynomials) are Laurent polynomials in ``z``, with finitely many modes; data with
infinitely many angular modes are declined (the expression language has no ``atan2`` to write
``cos(m*theta)`` for a symbolic ``m``).  Mode ``m`` is written back in ``x, y`` as
``Re((X + i*Y)**m)/r**m`` and ``Im(...)/r**m``, ``X = x - x0``, ``Y = y - y0``.

Laplace's and Poisson's equations: a particular solution by undetermined coefficients (polynomial
sources), then each angular mode's radial part ``r**m`` (and ``r**-m``, or ``1`` and ``log(r)`` for
``m = 0``, on an annulus) fitted to the rims' conditions: a finite formula.  The heat and wave equations
on a disk: a lifting of the rim's data (the harmonic extension, or ``r**2`` for a Neumann flux), then, for
each angular mode of the remainder's data, the Fourier-Bessel series of the rim's eigenproblem
(``J_m(j_{m,k}*r/a)`` with ``besseljzero``; ``besseljpzero`` and the constant for Neumann).  On an annulus
the eigenfunctions are cross products of ``J_m`` and ``Y_m`` with eigenvalues no named function gives:
declined.
"""
from __future__ import annotations

import sympy as sp

from desyr_sympy.series import assemble
from desyr_sympy.series.check import verify_expansion
from desyr_sympy.series.eigen import bessel
from desyr_sympy.series.layout import Declined, End, Layout, Round
from desyr_sympy.series.modal import Motion, duhamel, first_underdamped, regime, responses
from desyr_sympy.series.project import expand
from desyr_sympy.shared.coefficients import solutions

Modes = dict[tuple[int, str], sp.Expr]


def solve(layout: Layout, names: list[str]) -> sp.Expr:
    assert layout.round is not None
    if layout.evolution:
        return _evolution(layout, names)
    return _particular(layout) + harmonic(layout.round, _rims_less(layout.round, _particular(layout)))


def frame(shape: Round) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``X = x - x0``, ``Y = y - y0`` and the radius in the problem's variables."""
    X, Y = shape.x - shape.x0, shape.y - shape.y0
    return X, Y, sp.sqrt(X**2 + Y**2)


def angular(data: sp.Expr, shape: Round, r: sp.Symbol) -> Modes:
    """The data's angular modes on the circle of radius ``r``: ``(m, "cos")`` and ``(m, "sin")`` -> the radial
    coefficient (a function of ``r`` and any other symbols)."""
    z = sp.Dummy("z")
    polar = data.xreplace({shape.x: shape.x0 + r * (z + 1 / z) / 2, shape.y: shape.y0 + r * (z - 1 / z) / (2 * sp.I)})
    polar = sp.expand(polar.replace(lambda e: isinstance(e, sp.Pow) and e.base.has(z),
                                    lambda e: sp.Pow(sp.expand(e.base), e.exp)))
    laurent: dict[int, sp.Expr] = {}
    for term in sp.Add.make_args(polar) if polar != 0 else ():
        coefficient, held = term.as_independent(z, as_Add=False)
        power = 0 if held == 1 else 1 if held == z else (
            int(held.exp) if isinstance(held, sp.Pow) and held.base == z and held.exp.is_Integer else None)
        if power is None:
            raise Declined("data with infinitely many angular modes (not polynomial in x and y on each circle)")
        laurent[power] = laurent.get(power, sp.Integer(0)) + coefficient
    modes: Modes = {}
    for m in range(max((abs(k) for k in laurent), default=0) + 1):
        up, down = laurent.get(m, sp.Integer(0)), laurent.get(-m, sp.Integer(0))
        pairs = [("cos", up)] if m == 0 else [("cos", up + down), ("sin", sp.I * (up - down))]
        for kind, value in pairs:
            value = sp.simplify(sp.expand(value))
            if value.has(sp.I):
                raise Declined("complex data")
            if value != 0:
                modes[(m, kind)] = value
    return modes


def angle(shape: Round, m: int, kind: str) -> sp.Expr:
    """``cos(m*theta)`` or ``sin(m*theta)`` in ``x, y`` (``Re((X + i*Y)**m)/r**m``)."""
    X, Y, rho = frame(shape)
    if m == 0:
        return sp.Integer(1)
    power = sp.expand((X + sp.I * Y)**m)
    part = sp.re(power) if kind == "cos" else sp.im(power)
    return sp.expand(part) / rho**m


def solid(shape: Round, m: int, kind: str, radial: str) -> sp.Expr:
    """``r**m``, ``r**-m`` or ``log(r)`` (``radial``: "up", "down", "log") times the angular factor, in ``x, y``:
    ``Re((X + i*Y)**m)``, divided by ``(X**2 + Y**2)**m`` for ``r**-m``; ``log(X**2 + Y**2)/2``."""
    X, Y, _ = frame(shape)
    if radial == "log":
        return sp.log(X**2 + Y**2) / 2
    power = sp.expand((X + sp.I * Y)**m)
    part = sp.expand(sp.re(power) if kind == "cos" else sp.im(power))
    return part if radial == "up" else part / (X**2 + Y**2)**m


def harmonic(shape: Round, ends: dict[str, End]) -> sp.Expr:
    """The harmonic function with the rims' data (each rim's data a function on its circle): finite."""
    r = sp.Symbol("r", positive=True)
    rims = {name: (end, shape.inner if name == "inner" else shape.outer) for name, end in ends.items()}
    data = {name: angular(end.value, shape, radius) for name, (end, radius) in rims.items()}
    total = sp.Integer(0)
    for mode in sorted({key for modes in data.values() for key in modes}):
        m, kind = mode
        shapes = ["up"] if shape.disk else (["up", "log"] if m == 0 else ["up", "down"])
        basis = [sp.log(r) if s == "log" else r**(m if s == "up" else -m) for s in shapes]
        constants = sp.symbols(f"H1:{len(basis) + 1}")
        radial = sp.Add(*[c * b for c, b in zip(constants, basis)])
        equations = []
        for name, (end, radius) in rims.items():
            sign = -1 if name == "inner" else 1
            value = data[name].get(mode, sp.Integer(0)).subs(r, radius)
            equations.append(end.alpha * radial.subs(r, radius) + sign * end.beta * sp.diff(radial, r).subs(r, radius)
                             - value)
        solved = sp.solve(equations, constants, dict=True)
        if not solved or any(c not in solved[0] for c in constants):
            raise Declined("the rims' conditions leave a harmonic mode undetermined (Neumann rims: only up to "
                           "a constant)")
        total += sp.Add(*[solved[0][c] * solid(shape, m, kind, s) for c, s in zip(constants, shapes)])
    return total


def _particular(layout: Layout) -> sp.Expr:
    """A polynomial particular solution of ``d*Lap(w) + f = 0`` (undetermined coefficients); 0 without a source."""
    shape = layout.round
    assert shape is not None
    source = layout.source
    if source == 0:
        return sp.Integer(0)
    if layout.time is not None and layout.time in source.free_symbols:
        return sp.Integer(0)
    d, x, y = shape.diffusivity, shape.x, shape.y
    try:
        w, _ = solutions(lambda b: d * (sp.diff(b, x, 2) + sp.diff(b, y, 2)), -source, [x, y], 2)
    except NotImplementedError:
        raise Declined("no particular solution of the source by undetermined coefficients") from None
    return sp.expand(w)


def _rims_less(shape: Round, w: sp.Expr) -> dict[str, End]:
    """Each rim's end with its data less what ``w`` gives there."""
    X, Y, rho = frame(shape)
    out = {}
    for name, end, radius, sign in (("outer", shape.outer_end, shape.outer, 1), ("inner", shape.inner_end, shape.inner, -1)):
        if end is None:
            continue
        normal = sign * (X * sp.diff(w, shape.x) + Y * sp.diff(w, shape.y)) / radius
        out[name] = End(end.alpha, end.beta, sp.expand(end.value - end.alpha * w - end.beta * normal))
    return out


def _evolution(layout: Layout, names: list[str]) -> sp.Expr:
    shape = layout.round
    t = layout.time
    assert shape is not None and t is not None and layout.initial is not None and shape.outer_end is not None
    if not shape.disk:
        raise Declined("the heat or wave equation on an annulus: its eigenvalues are roots of cross products of "
                       "J and Y, which no named function gives yet")
    w = _lifting(layout, shape)
    X, Y, rho = frame(shape)
    d = shape.diffusivity
    laplacian = sp.diff(w, shape.x, 2) + sp.diff(w, shape.y, 2)
    source = sp.expand(layout.source - layout.mass * sp.diff(w, t, 2) - layout.damping * sp.diff(w, t) + d * laplacian)
    first = sp.expand(layout.initial - w.subs(t, layout.start))
    velocity = (sp.expand(layout.velocity - sp.diff(w, t).subs(t, layout.start))
                if layout.velocity is not None else sp.Integer(0))
    r = sp.Symbol("r", positive=True)
    parts = [angular(e, shape, r) for e in (first, velocity, source)]
    motion = Motion(layout.mass, layout.damping, t, layout.start)
    rim = End(shape.outer_end.alpha, shape.outer_end.beta, sp.Integer(0))
    total = w
    for mode in sorted({key for modes in parts for key in modes}):
        for family in bessel(mode[0], shape.outer, rim, r, names[0]):
            # the angular factor outside the sum: a condition that mixes the index and the variables (the
            # division by the radius) cannot be checked when the sum is read back
            total += angle(shape, *mode) * _mode_series(motion, family, [p.get(mode, sp.Integer(0)) for p in parts],
                                                        d, names)
    return total.subs(r, rho)


def _lifting(layout: Layout, shape: Round) -> sp.Expr:
    """The steady state of the rim's data (and a steady source), or, for a Neumann flux with no steady
    state, the harmonic part plus ``g0*r**2/(2*a)`` for the mean flux ``g0``."""
    end = shape.outer_end
    assert end is not None
    if end.value == 0 and (layout.source == 0 or layout.time in layout.source.free_symbols):
        return sp.Integer(0)
    steady = _particular(layout)
    ends = _rims_less(shape, steady)
    if end.alpha != 0:
        return steady + harmonic(shape, ends)
    r = sp.Symbol("r", positive=True)
    modes = angular(ends["outer"].value, shape, r)
    mean = modes.pop((0, "cos"), sp.Integer(0)).subs(r, shape.outer)
    rest = sum((v * angle(shape, *k) for k, v in modes.items()), sp.Integer(0))
    X, Y, _ = frame(shape)
    flux = mean * (X**2 + Y**2) / (2 * shape.outer * end.beta)
    return sp.expand(steady + flux + (harmonic(shape, {"outer": End(end.alpha, end.beta, rest)}) if rest != 0 else 0))


def _mode_series(motion: Motion, family: object, data: list[sp.Expr], d: sp.Expr, names: list[str]) -> sp.Expr:
    from desyr_sympy.series.eigen import Family

    assert isinstance(family, Family)
    tau = sp.Dummy("tau", nonnegative=True)
    combo = (family,)
    expansions = [expand(v, combo) for v in data]
    middle = motion.start + sp.Rational(1, 3)
    for raw, expansion in zip(data, expansions):
        verify_expansion(raw, expansion, {motion.time: middle})
    rate = d * family.value
    starts = [first_underdamped(motion, rate, family.index, family.lower)]
    starts = assemble.align(expansions, starts)
    terms = {}
    for key in assemble.keys(expansions):
        subs = assemble.fixed(combo, key)
        mode_rate = rate.subs(subs)
        free = family.index is not None and key[0] is None
        response = responses(motion, mode_rate, tau, "under" if free else regime(motion, mode_rate))
        a, b, q = (e.parts.get(key, sp.Integer(0)).subs(subs) for e in expansions)
        forced, special = duhamel(motion, response.impulse, tau, q, family.index if free else None, family.lower)
        if special:
            raise Declined("a source resonant with a Fourier-Bessel mode")
        factor = a * response.free + b * motion.mass * response.impulse + forced
        terms[key] = (family.function.subs(subs) * factor).subs(tau, motion.time - motion.start)
    return assemble.write(combo, starts, terms, names)
