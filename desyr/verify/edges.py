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

from desyr.verify.intervals import Bounds, exact, sign_on

#: a face of the box: (variable, 0 for its lower end or 1 for its upper end)
Edge = tuple[sp.Symbol, int]
#: exact ends per variable
Exact = dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]
#: strip widths tried, as fractions of the variable's range
STRIPS = (sp.Rational(1, 4), sp.Rational(1, 32), sp.Rational(1, 512))


def positive_inside(q: sp.Expr, bounds: Bounds, closed: str | None = None) -> tuple[str, frozenset[Edge]]:
    """("positive", edges) when ``q > 0`` on the open box and ``q >= 0`` on the closed one, ``edges``
    holding every face where it may reach 0 (none: positive on the closed box); else ("changes" or
    "unknown", no edges).  ``closed``: the strict sign on the closed box, where the caller has it.
    A face is its variable set to the exact end (``x = 1/10``), substituted in ``q`` symbolically: an
    interval box around the end would hold points outside the domain, and "0 on the face" is exact."""
    box: Exact = {s: (exact(lo), exact(hi)) for s, (lo, hi) in bounds.items()}
    closed = closed or sign_on(q, box, strict=True)
    if closed != "unknown":
        return closed, frozenset()
    zero: list[Edge] = []
    others: list[Edge] = []
    for edge in _edges(box):
        there, rest = _face(q, box, edge)
        if not _at_least_zero(there, rest):
            return "unknown", frozenset()        # negative, or not shown at least 0, on a face
        (zero if sp.expand(there) == 0 else others).append(edge)
    for width in STRIPS:
        # a face where q only touches 0 at a corner another face's strip covers needs no strip of its own
        edges = zero + [e for e in others if sign_on(_face(q, box, e)[0], _clear_of(_face(q, box, e)[1], zero, width),
                                                     strict=True) != "positive"]
        if edges and _cut_proves(q, box, edges, width):
            return "positive", frozenset(edges)
    return "unknown", frozenset()


def _at_least_zero(q: sp.Expr, box: Exact) -> bool:
    """Whether ``q >= 0`` on the closed ``box``; where it reaches 0 on an end that no binary number is
    (``nu - 3/10`` on the face x = 0 of nu in [3/10, 1]), the outward box cannot show it, so the face is
    taken as a box of its own, one dimension down, with its own faces at exact values."""
    if sign_on(q, box, strict=False) == "positive":
        return True
    return bool(box) and positive_inside(q, box)[0] == "positive"


def _clear_of(box: Exact, edges: list[Edge], width: sp.Expr) -> Exact:
    """``box`` less the strips of ``width`` along ``edges`` (on the variables it still has)."""
    out = dict(box)
    for s, end in edges:
        if s not in out:
            continue
        lo, hi = out[s]
        step = width * (hi - lo)
        out[s] = (lo + step, hi) if end == 0 else (lo, hi - step)
    return out


def _edges(bounds: Exact) -> list[Edge]:
    return [(s, end) for s, (lo, hi) in bounds.items() if bool(lo < hi) for end in (0, 1)]


def _face(q: sp.Expr, bounds: Exact, edge: Edge) -> tuple[sp.Expr, Exact]:
    """``q`` on the face (its variable replaced by the exact end), and the face's other ranges."""
    s, end = edge
    return q.xreplace({s: bounds[s][end]}), {v: b for v, b in bounds.items() if v != s}


def _cut_proves(q: sp.Expr, bounds: Exact, edges: list[Edge], width: sp.Expr) -> bool:
    """Whether the core (``bounds`` less a strip of ``width`` of the range along each edge) has q > 0
    and q increases strictly into the domain across each strip."""
    core = dict(bounds)
    for s, end in edges:
        lo, hi = bounds[s]
        step = width * (hi - lo)
        inner = lo + step if end == 0 else hi - step
        if not (bool(lo < inner) and bool(inner < hi)):
            return False
        strip = {**bounds, s: (lo, inner) if end == 0 else (inner, hi)}
        inward = sp.diff(q, s) if end == 0 else -sp.diff(q, s)
        if sign_on(inward, strip, strict=True) != "positive":
            return False
        clo, chi = core[s]
        core[s] = (sp.Max(clo, inner), chi) if end == 0 else (clo, sp.Min(chi, inner))
    if any(bool(lo > hi) for lo, hi in core.values()):
        return False
    return sign_on(q, core, strict=True) == "positive"
