"""An independent check of every integral the proof relies on: high-precision numerical quadrature.

SymPy's ``integrate`` is not trusted alone: it returns 0 for the integral over [0, 2*pi] of
rho/(3 + rho*cos(theta)) (the true value is 2*pi*rho/sqrt(9 - rho**2)), and that made a formula
whose integral over the unit disk misses its value by 1e-10 Proved.  So the claimed exact value
is compared with a quadrature of the integrand evaluated with mpmath, on rules built here from the
shape's numbers (tensor Gauss-Legendre, the trapezoid rule in a periodic angle, collapsed triangles),
at levels that double the nodes.  The comparison is decisive relative to the VALUE: the quadrature and
the claimed value must agree to :data:`MATCH` times ``1 + |value|``, and the quadrature's error
estimate (two levels' difference, plus round-off, which grows with the integral of ``|f|``: a large
term that integrates to 0 cancels digits) must be :data:`MARGIN` times smaller.  The working precision
starts at :data:`DIGITS` digits and is raised, up to :data:`MAX_DIGITS`, until it is; a red team had
widened the old allowance (relative to the integral of ``|f|``) with a ``5*10**7*x`` term and got a
formula whose integral is off by 5e-18 Proved.  An integrand the rules do not resolve (a spike, a
singularity near the shape), one that needs more digits, a shape without a rule here, or a failed
evaluation leaves the integral unchecked, so unproved: never a crash, never a refutation.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr.model.containment import exact_triangles
from desyr.model.csg import Combined, signed_parts
from desyr.model.patches import exact_number
from desyr.model.shapes import Annulus, Ball, Box, Cylinder, Disk, Ellipse, Polygon, Shape
from desyr.model.written import Numbers
from desyr.symbolic.special import MPMATH

#: working precisions, in decimal digits: the first, and the most a quadrature is raised to
DIGITS, MAX_DIGITS = 40, 120
#: the claimed value and the quadrature must agree to this, relative to 1 + |value| (never to the
#: integral of |f|: a large term integrating to 0 must not widen it)
MATCH = 1e-30
#: the quadrature's error estimate must be this far below :data:`MATCH` before it decides
MARGIN = 10
#: round-off of a sum at ``d`` digits, as a fraction of the integral of |f|: 10**(ROUNDING - d)
ROUNDING = 5
#: nodes per coordinate at the first level by the region's dimension; each further level doubles them,
#: up to :data:`LEVELS` levels, until two in a row agree. A region of more dimensions has no rule (its
#: integrals stay unproved)
_NODES = {1: 32, 2: 16, 3: 8}
LEVELS = 4

# one coordinate of a rule: ("gl", a, b) Gauss-Legendre on [a, b], ("trap", a, b) the trapezoid rule
# for a periodic coordinate; a region is coordinates plus the map to the shape's points and its Jacobian
Axis = tuple[str, mpmath.mpf, mpmath.mpf]
Region = tuple[list[Axis], Callable[..., tuple[list[mpmath.mpf], mpmath.mpf]]]


def matches(shape: Shape, f: sp.Expr, xs: Sequence[sp.Symbol], numbers: Numbers, claimed: sp.Expr) -> bool:
    """Whether the integral of ``f`` (free in ``xs`` only) over ``shape`` is ``claimed``, by quadrature:
    to :data:`MATCH` of ``1 + |claimed|``, with an error estimate (the levels' difference plus round-off,
    which grows with the integral of |f|) below that; the precision is raised until it is, up to
    :data:`MAX_DIGITS` digits, and an integral that does not get there is not confirmed."""
    if f.free_symbols - set(xs) or claimed.free_symbols:
        return False
    digits = DIGITS
    try:
        while True:
            with mpmath.workdps(digits):
                target = mpmath.mpmathify(sp.N(claimed, digits + 10))
                bound = MATCH * (1 + abs(target))
                found = _converged(sp.lambdify(list(xs), f, modules=[MPMATH, "mpmath"]),
                                   list(_regions(shape, len(xs), numbers, digits)), digits, bound)
                if found is None:
                    return False
                value, error, mass = found
                if error <= bound / MARGIN:
                    return bool(abs(value - target) <= bound)
                # round-off (cancellation in a large |f|) is what is left: more digits, if any help
                need = int(mpmath.ceil(mpmath.log10(MARGIN * mass / bound))) + ROUNDING + 1
            if digits >= MAX_DIGITS:
                return False
            digits = min(MAX_DIGITS, max(need, digits + 20))
    except (ArithmeticError, ValueError, TypeError, NameError, AttributeError, _NoRule):
        return False


def _converged(g: Callable[..., object], regions: list[tuple[int, Region]], digits: int,
               bound: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf] | None:
    """The finest level's value, its error estimate and the integral of |g|, once two levels agree to the
    bound or to the round-off at ``digits`` (None: the rules do not resolve g)."""
    if any(len(axes) not in _NODES for _, (axes, _) in regions):
        return None
    previous = None
    for level in range(LEVELS):
        fine, mass = _level(g, regions, level)
        rounding = mass * mpmath.mpf(10) ** (ROUNDING - digits)
        if previous is not None:
            error = abs(fine - previous) + rounding
            if error <= max(bound / MARGIN, 10 * rounding):
                return fine, error, mass
        previous = fine
    return None


class _NoRule(Exception):
    pass


def _level(g: Callable[..., object], regions: list[tuple[int, Region]], level: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The integral of g over the signed regions, and of |g|, with the rules of ``level``."""
    total, mass = mpmath.mpf(0), mpmath.mpf(0)
    for sign, (axes, place) in regions:
        value, size = _sum(g, axes, place, _NODES[len(axes)] * 2**level)
        total, mass = total + sign * value, mass + size
    return total, mass


def _sum(g: Callable[..., object], axes: list[Axis], place: Callable[..., tuple[list[mpmath.mpf], mpmath.mpf]],
         n: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The rule with ``n`` nodes per coordinate: the integral of g and of |g|."""
    rules = [_rule(kind, a, b, n) for kind, a, b in axes]
    total, mass = mpmath.mpf(0), mpmath.mpf(0)
    for node in _product(rules):
        point, weight = place(*[t for t, _ in node])
        for _, w in node:
            weight *= w
        value = mpmath.mpmathify(g(*point))
        if not mpmath.isfinite(value) or isinstance(value, mpmath.mpc):
            raise ValueError("not a finite real value")
        total += weight * value
        mass += abs(weight * value)
    return total, mass


def _product(rules: list[list[tuple[mpmath.mpf, mpmath.mpf]]]) -> Iterator[list[tuple[mpmath.mpf, mpmath.mpf]]]:
    if not rules:
        yield []
        return
    for head in rules[0]:
        for tail in _product(rules[1:]):
            yield [head, *tail]


def _rule(kind: str, a: mpmath.mpf, b: mpmath.mpf, n: int) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    if kind == "trap":
        h = (b - a) / n
        return [(a + k * h, h) for k in range(n)]
    half, mid = (b - a) / 2, (a + b) / 2
    return [(mid + half * t, half * w) for t, w in _legendre(n, mpmath.mp.prec)]


@functools.lru_cache(maxsize=16)
def _legendre(n: int, prec: int) -> tuple[tuple[mpmath.mpf, mpmath.mpf], ...]:
    """Gauss-Legendre nodes and weights on [-1, 1]: numpy's double nodes, polished by Newton's method on
    P_n (each step doubles the digits), the symmetric half mirrored."""
    with mpmath.workprec(prec + 20):
        half = []
        for guess in np.polynomial.legendre.leggauss(n)[0][n // 2:]:
            t = mpmath.mpf(float(guess))
            for _ in range(2 + max(0, (prec // 53).bit_length())):
                p, dp = _legendre_value(n, t)
                t -= p / dp
            _, dp = _legendre_value(n, t)
            half.append((t, 2 / ((1 - t**2) * dp**2)))
        out = [(-t, w) for t, w in half if t != 0] + half
    return tuple((+t, +w) for t, w in out)


def _legendre_value(n: int, t: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    p0, p1 = mpmath.mpf(1), t
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * t * p1 - (k - 1) * p0) / k
    return p1, n * (t * p1 - p0) / (t**2 - 1)


def _regions(shape: Shape, dim: int, numbers: Numbers, digits: int = DIGITS) -> Iterator[tuple[int, Region]]:
    """The shape as signed regions with a rule each (A - B: A's regions, then B's with sign -1)."""
    def e(value: float) -> mpmath.mpf:
        return mpmath.mpmathify(sp.N(exact_number(value, numbers), digits + 10))
    if isinstance(shape, Combined):
        # signed primitives (A - B: A's, then B's with -1) where every containment is decided exactly
        signed = signed_parts(shape, numbers)
        if signed is None or signed.why:
            raise _NoRule
        for k, part in signed.parts:
            yield from ((k * s, r) for s, r in _regions(part, dim, numbers, digits))
        return
    if isinstance(shape, Box):
        axes = [("gl", e(a), e(b)) for a, b in zip(shape.lo, shape.hi)]
        yield 1, (axes, lambda *t: (list(t), mpmath.mpf(1)))
    elif isinstance(shape, (Disk, Annulus, Ellipse)):
        yield 1, _polar(shape, e)
    elif isinstance(shape, Cylinder):
        cx, cy, r = e(shape.c[0]), e(shape.c[1]), e(shape.r)
        yield 1, ([("gl", mpmath.mpf(0), r), ("trap", mpmath.mpf(0), 2 * mpmath.pi), ("gl", e(shape.z[0]), e(shape.z[1]))],
                  lambda p, q, z: ([cx + p * _cos_sin(q)[0], cy + p * _cos_sin(q)[1], z], p))
    elif isinstance(shape, Ball):
        c, r = [e(v) for v in shape.c], e(shape.r)
        # z = cos(polar angle) as a coordinate: the Jacobian is rho**2, smooth, and GL resolves it
        yield 1, ([("gl", mpmath.mpf(0), r), ("gl", mpmath.mpf(-1), mpmath.mpf(1)), ("trap", mpmath.mpf(0), 2 * mpmath.pi)],
                  lambda p, z, q: ([c[0] + p * mpmath.sqrt(1 - z**2) * _cos_sin(q)[0],
                                    c[1] + p * mpmath.sqrt(1 - z**2) * _cos_sin(q)[1], c[2] + p * z], p**2))
    elif isinstance(shape, Polygon):
        triangles = exact_triangles(shape, numbers)
        if triangles is None:
            raise _NoRule
        for tri in triangles:
            yield 1, _triangle([[mpmath.mpmathify(sp.N(v, digits + 10)) for v in p] for p in tri])
    else:
        raise _NoRule


def _polar(shape: Disk | Annulus | Ellipse, e: Callable[[float], mpmath.mpf]) -> Region:
    cx, cy = e(shape.c[0]), e(shape.c[1])
    if isinstance(shape, Ellipse):
        a, b, r0, r1 = e(shape.ab[0]), e(shape.ab[1]), mpmath.mpf(0), mpmath.mpf(1)
    else:
        a = b = mpmath.mpf(1)
        r0, r1 = (mpmath.mpf(0), e(shape.r)) if isinstance(shape, Disk) else (e(shape.r0), e(shape.r1))
    return ([("gl", r0, r1), ("trap", mpmath.mpf(0), 2 * mpmath.pi)],
            lambda p, q: ([cx + a * p * _cos_sin(q)[0], cy + b * p * _cos_sin(q)[1]], a * b * p))


@functools.lru_cache(maxsize=512)
def _cos_sin_at(q: mpmath.mpf, prec: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    return mpmath.cos(q), mpmath.sin(q)


def _cos_sin(q: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """cos and sin of an angle node: the same nodes recur for every radius."""
    return _cos_sin_at(q, mpmath.mp.prec)


def _triangle(tri: list[list[mpmath.mpf]]) -> Region:
    (ax, ay), (bx, by), (cx, cy) = tri
    area2 = abs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))

    def place(s: mpmath.mpf, w: mpmath.mpf) -> tuple[list[mpmath.mpf], mpmath.mpf]:
        # the square [0, 1]**2 collapsed onto the triangle: u = s, v = (1 - s)*w, Jacobian (1 - s)
        u, v = s, (1 - s) * w
        return [ax + u * (bx - ax) + v * (cx - ax), ay + u * (by - ay) + v * (cy - ay)], area2 * (1 - s)
    return [("gl", mpmath.mpf(0), mpmath.mpf(1)), ("gl", mpmath.mpf(0), mpmath.mpf(1))], place
