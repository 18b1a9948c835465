"""Separation of variables on a box: the heat and wave equations (damped too), Laplace's and Poisson's.

Evolution: ``u = w + sum_modes X*T`` with ``w`` the steady state or a lifting (:mod:`steady`), ``X`` the
products of the axes' eigenfunctions and ``T`` each mode's factor in time (:mod:`modal`), its constants
from the initial data's coefficients and, for a source or a lifting that moves, Duhamel's integral of the
source's coefficient.

Laplace and Poisson: a particular solution (a steady state in one variable where the source depends on at
most one, else the source's expansion over every axis divided by the eigenvalues: a nested sum), then,
face pair by face pair, the data on the faces of one axis expanded over the other axes' eigenfunctions,
each mode carried across by the two-point solutions of ``d*Y'' = Lambda*Y`` (``sinh(k*y)/sinh(k*b)``).
"""
from __future__ import annotations

import itertools
from dataclasses import replace

import sympy as sp

from desyr_sympy.series import assemble
from desyr_sympy.series.check import verify_expansion
from desyr_sympy.series.eigen import Family, interval
from desyr_sympy.series.layout import Axis, Declined, End, Layout
from desyr_sympy.series.modal import Motion, duhamel, first_underdamped, regime, responses, root, two_point
from desyr_sympy.series.project import Expansion, expand
from desyr_sympy.series.steady import box_lifting, end_operator, interval_steady


def evolution(layout: Layout, names: list[str]) -> sp.Expr:
    t = layout.time
    assert t is not None and layout.initial is not None
    w, _ = box_lifting(layout)
    motion = Motion(layout.mass, layout.damping, t, layout.start)
    spatial = layout.spatial
    source = sp.expand(layout.source - (layout.mass * sp.diff(w, t, 2) + layout.damping * sp.diff(w, t)
                                        - sum(a.diffusivity * sp.diff(w, a.symbol, 2) for a in layout.axes)
                                        - layout.reaction * w))
    first = sp.expand(layout.initial - w.subs(t, layout.start))
    velocity = (sp.expand(layout.velocity - sp.diff(w, t).subs(t, layout.start))
                if layout.velocity is not None else sp.Integer(0))
    if source.free_symbols - set(spatial) - {t}:
        raise Declined("a source with symbols other than the variables")
    total = w
    families = [interval(a, name) for a, name in zip(layout.axes, names)]
    siblings = [f for axis in families for f in axis]
    for combo in itertools.product(*families):
        total += _modes(layout, motion, combo, first, velocity, source, names, siblings)
    return total


def _modes(layout: Layout, motion: Motion, combo: tuple[Family, ...], first: sp.Expr, velocity: sp.Expr,
           source: sp.Expr, names: list[str], siblings: list[Family]) -> sp.Expr:
    t = motion.time
    tau = sp.Dummy("tau", nonnegative=True)
    data = [expand(first, combo, siblings), expand(velocity, combo, siblings), expand(source, combo, siblings)]
    middle = (t - motion.start) / 2 + motion.start if motion.start != 0 else sp.Rational(1, 3)
    for raw, expansion in zip((first, velocity, source), data):
        verify_expansion(raw, expansion, {t: middle})
    diffusivities = [a.diffusivity for a in layout.axes]
    rate = assemble.rate(combo, diffusivities, layout.reaction)
    indexed = [f for f in combo if f.index is not None]
    starts = [f.lower for f in combo]
    if len(indexed) == 1:
        i = combo.index(indexed[0])
        starts[i] = first_underdamped(motion, rate, indexed[0].index, indexed[0].lower)
    elif indexed and motion.mass != 0 and regime(motion, rate.subs({f.index: f.lower for f in indexed})) != "under":
        raise Declined("over-damped modes of a wave in several variables")
    starts = assemble.align(data, starts)
    generic: dict[tuple[int | None, ...], sp.Expr] = {}
    whole: tuple[int | None, ...] = (None,) * len(combo)
    if indexed and data[2].parts.get(whole, 0) != 0:
        # the source's resonances push the sum's start past them
        only = indexed[0].index if len(indexed) == 1 else None
        free = responses(motion, rate, tau)
        _, special = duhamel(motion, free.impulse, tau, data[2].parts[whole], only, indexed[0].lower)
        if special:
            i = combo.index(indexed[0])
            starts[i] = max(starts[i], max(special) + 1)
            starts = assemble.align(data, starts)
    for key in assemble.keys(data):
        subs = assemble.fixed(combo, key)
        mode_rate = rate.subs(subs)
        free_indices = [f.index for f, k in zip(combo, key) if f.index is not None and k is None]
        kind = "under" if free_indices else regime(motion, mode_rate)
        mode = responses(motion, mode_rate, tau, kind)
        a, b, q = (d.parts.get(key, sp.Integer(0)).subs(subs) for d in data)
        only = free_indices[0] if len(free_indices) == 1 else None
        forced, _ = duhamel(motion, mode.impulse, tau, q, only, 1) if q != 0 else (sp.Integer(0), set())
        factor = a * mode.free + b * motion.mass * mode.impulse + forced
        generic[key] = (assemble.product(combo).subs(subs) * factor).subs(tau, t - motion.start)
    return assemble.write(combo, starts, generic, names)


def elliptic(layout: Layout, names: list[str]) -> sp.Expr:
    particular, axes = _particular(layout, names)
    layout = replace(layout, axes=tuple(axes))
    total = particular
    for i, axis in enumerate(layout.axes):
        assert axis.low is not None and axis.high is not None
        if axis.periodic or (axis.low.homogeneous and axis.high.homogeneous):
            continue
        others = [a for j, a in enumerate(layout.axes) if j != i]
        own = [n for j, n in enumerate(names) if j != i]
        families = [interval(a, n) for a, n in zip(others, own)]
        for combo in itertools.product(*families):
            total += _faces(layout, axis, others, combo, own, [f for fs in families for f in fs])
    return total


def _faces(layout: Layout, axis: Axis, others: list[Axis], combo: tuple[Family, ...], names: list[str],
           siblings: list[Family]) -> sp.Expr:
    assert axis.low is not None and axis.high is not None
    data = [expand(axis.low.value, combo, siblings), expand(axis.high.value, combo, siblings)]
    for raw, expansion in zip((axis.low.value, axis.high.value), data):
        verify_expansion(raw, expansion)
    rate = assemble.rate(combo, [a.diffusivity for a in others], layout.reaction)
    starts = assemble.align(data)
    terms = {}
    for key in assemble.keys(data):
        subs = assemble.fixed(combo, key)
        mode_rate = rate.subs(subs)
        low, high = (d.parts.get(key, sp.Integer(0)).subs(subs) for d in data)
        across = _symmetric(axis, mode_rate, low, high)
        if across is None:
            rising, falling = two_point(mode_rate, axis.diffusivity, axis.symbol, axis.lo, axis.hi, axis.low, axis.high)
            across = sp.factor_terms(high * rising + low * falling)
        terms[key] = assemble.product(combo).subs(subs) * across
    return assemble.write(combo, starts, terms, names)


def _symmetric(axis: Axis, rate: sp.Expr, low: sp.Expr, high: sp.Expr) -> sp.Expr | None:
    """Data on both Dirichlet faces of an axis, carried across in its even and odd parts about the middle
    ``m``: ``(G_hi + G_lo)/2*cosh(k*(y - m))/cosh(k*L/2) + (G_hi - G_lo)/2*sinh(k*(y - m))/sinh(k*L/2)`` (the
    textbook's form, one quotient per part: no sum of two large sinh over a third); None elsewhere."""
    assert axis.low is not None and axis.high is not None
    if low == 0 or high == 0 or rate == 0 or axis.low.beta != 0 or axis.high.beta != 0:
        return None
    k = root(rate / axis.diffusivity)
    middle, half = (axis.lo + axis.hi) / 2, axis.length / 2
    even, odd = sp.factor_terms((high / axis.high.alpha + low / axis.low.alpha) / 2), \
        sp.factor_terms((high / axis.high.alpha - low / axis.low.alpha) / 2)
    y = axis.symbol - middle
    return (even * sp.cosh(k * y) / sp.cosh(k * half) if even != 0 else 0) + \
        (odd * sp.sinh(k * y) / sp.sinh(k * half) if odd != 0 else 0)


def _particular(layout: Layout, names: list[str]) -> tuple[sp.Expr, list[Axis]]:
    """A particular solution of the source and the axes with the data it leaves (``g - B[w]``)."""
    source, axes = layout.source, list(layout.axes)
    if source == 0:
        return sp.Integer(0), axes
    held = source.free_symbols & set(layout.spatial)
    if source.free_symbols - set(layout.spatial):
        raise Declined("a source with symbols other than the variables")
    for axis in axes:
        if held - {axis.symbol} or axis.periodic:
            continue
        assert axis.low is not None and axis.high is not None
        constant = not (axis.low.value.free_symbols | axis.high.value.free_symbols)
        low, high = (axis.low.value, axis.high.value) if constant else (sp.Integer(0), sp.Integer(0))
        w = interval_steady(axis, layout.reaction, source, low, high)
        if w is None:
            continue
        return w, [_less(a, w) for a in axes]
    return _source_series(layout, names), axes


def _less(axis: Axis, w: sp.Expr) -> Axis:
    """The axis with its ends' data less what ``w`` gives there."""
    assert axis.low is not None and axis.high is not None
    x = axis.symbol
    low = End(axis.low.alpha, axis.low.beta, sp.expand(axis.low.value - end_operator(axis.low, w, x, axis.lo, -1)))
    high = End(axis.high.alpha, axis.high.beta,
               sp.expand(axis.high.value - end_operator(axis.high, w, x, axis.hi, 1)))
    return replace(axis, low=low, high=high)


def _source_series(layout: Layout, names: list[str]) -> sp.Expr:
    """``sum f_modes/Lambda * X`` over every axis's eigenfunctions (homogeneous ends)."""
    total = sp.Integer(0)
    families = [interval(a, n) for a, n in zip(layout.axes, names)]
    for combo in itertools.product(*families):
        expansion: Expansion = expand(layout.source, combo, [f for fs in families for f in fs])
        verify_expansion(layout.source, expansion)
        rate = assemble.rate(combo, [a.diffusivity for a in layout.axes], layout.reaction)
        terms = {}
        for key, value in expansion.parts.items():
            subs = assemble.fixed(combo, key)
            mode_rate = rate.subs(subs)
            if mode_rate == 0:
                raise Declined("a zero mode of every axis: Poisson's equation with Neumann faces is singular")
            terms[key] = value * assemble.product(combo) / mode_rate
        total += assemble.write(combo, expansion.starts, terms, names)
    return total
