"""Signs on the open box: a quantity that is positive inside and reaches 0 only on the box's faces.

``sqrt(x)`` on [0, 4] is finite and continuous on the closed interval and smooth inside; only its
derivatives blow up at x = 0.  Whether such a branch point is allowed is the regularity rule's
business (:mod:`desyr.verify.regularity`); this module proves where it can sit.  A strict proof on
the closed box fails there, so the box is cut in a core and a strip along each face where the
quantity may vanish: the quantity must be strictly positive on the core, at least 0 on the face,
and strictly increasing into the domain across the strip.  Then every point inside the strip has
a value above the face's, so the quantity is positive on the whole open box, and 0 can only be
reached on the faces named.  Every step is an interval proof (:func:`desyr.verify.intervals.sign_on`).
"""
from __future__ import annotations

import sympy as sp

from desyr.verify.intervals import Bounds, sign_on

#: a face of the box: (variable, 0 for its lower end or 1 for its upper end)
Edge = tuple[sp.Symbol, int]
#: strip widths tried, as fractions of the variable's range
STRIPS = (1 / 4, 1 / 32, 1 / 512)


def positive_inside(q: sp.Expr, bounds: Bounds, closed: str | None = None) -> tuple[str, frozenset[Edge]]:
    """("positive", edges) when ``q > 0`` on the open box and ``q >= 0`` on the closed one, ``edges``
    holding every face where it may reach 0 (none: positive on the closed box); else ("changes" or
    "unknown", no edges).  ``closed``: the strict sign on the closed box, where the caller has it."""
    closed = closed or sign_on(q, bounds, strict=True)
    if closed != "unknown":
        return closed, frozenset()
    zero: list[Edge] = []
    others: list[Edge] = []
    for edge in _edges(bounds):
        if sign_on(q, _face(bounds, edge), strict=False) != "positive":
            return "unknown", frozenset()        # negative, or not shown at least 0, on a face
        s, end = edge
        vanishes = sp.expand(q.xreplace({s: sp.Rational(bounds[s][end])})) == 0
        (zero if vanishes else others).append(edge)
    for width in STRIPS:
        # a face where q only touches 0 at a corner another face's strip covers needs no strip of its own
        edges = zero + [e for e in others if sign_on(q, _clear_of(_face(bounds, e), zero, width), strict=True)
                        != "positive"]
        if edges and _cut_proves(q, bounds, edges, width):
            return "positive", frozenset(edges)
    return "unknown", frozenset()


def _clear_of(box: Bounds, edges: list[Edge], width: float) -> Bounds:
    """``box`` less the strips of ``width`` along ``edges`` (on the variables it does not fix)."""
    out = dict(box)
    for s, end in edges:
        lo, hi = out[s]
        if lo < hi:
            step = width * (hi - lo)
            out[s] = (lo + step, hi) if end == 0 else (lo, hi - step)
    return out


def _edges(bounds: Bounds) -> list[Edge]:
    return [(s, end) for s, (lo, hi) in bounds.items() if lo < hi for end in (0, 1)]


def _face(bounds: Bounds, edge: Edge) -> Bounds:
    s, end = edge
    at = bounds[s][end]
    return {**bounds, s: (at, at)}


def _cut_proves(q: sp.Expr, bounds: Bounds, edges: list[Edge], width: float) -> bool:
    """Whether the core (``bounds`` less a strip of ``width`` of the range along each edge) has q > 0
    and q increases strictly into the domain across each strip."""
    core = dict(bounds)
    for s, end in edges:
        lo, hi = bounds[s]
        step = width * (hi - lo)
        inner = lo + step if end == 0 else hi - step
        if not lo < inner < hi:
            return False
        strip = {**bounds, s: (lo, inner) if end == 0 else (inner, hi)}
        inward = sp.diff(q, s) if end == 0 else -sp.diff(q, s)
        if sign_on(inward, strip, strict=True) != "positive":
            return False
        clo, chi = core[s]
        core[s] = (max(clo, inner), chi) if end == 0 else (clo, min(chi, inner))
    if any(lo > hi for lo, hi in core.values()):
        return False
    return sign_on(q, core, strict=True) == "positive"
