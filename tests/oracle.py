"""A differential oracle for the verifier (issue 35): a second, independent reading of a problem.

The oracle shares no code with the verifier's path (no desyr loader, parser, residuals, points or
intervals).  A problem is plain Python data here: equations as text in jets (``u_xx``), the domain
as ranges, an inside test and boundary parts as parametrisations, each constraint with the set it
lives on.  :func:`toml` renders it as the config text the verifier reads; :func:`look` evaluates
each residual and constraint of a candidate at 50 digits with mpmath (SymPy's own ``sympify``,
``diff`` and ``lambdify``) at random interior points, on every boundary part, near corners, along
periodic pairs and at *probe points* (where an argument of abs/sqrt/log/exp has a zero or an extremum
along a line: kinks, branch points, spike centres), and checks that every value is real.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath as mp
import sympy as sp

from tests.oracle_model import DIGITS, Con, Part, Point, Problem, toml  # noqa: F401  (re-exported)


# ------------------------------------------------------------------ reading text
def symbols(p: Problem) -> dict[str, sp.Symbol]:
    return {n: sp.Symbol(n, real=True) for n in [*p.variables, *p.unknowns]}


def read(p: Problem, text: str) -> sp.Expr:
    """The oracle's own reading of expression text: SymPy's, with every problem name a real symbol."""
    return sp.sympify(text, locals={**symbols(p), "E": sp.E, "I": sp.I, "pi": sp.pi})


def jets(p: Problem, text: str, sol: dict[str, sp.Expr], normal: Point | None = None) -> sp.Expr:
    """``text`` with each jet (``u_xt``, ``u_n``) replaced by the derivative of the candidate."""
    syms = symbols(p)
    names = sorted(p.variables, key=len, reverse=True)

    def jet(m: re.Match[str]) -> str:
        f, suffix = m.group(1), m.group(2)
        if f not in p.fields:
            return m.group(0)
        if suffix == "n":
            return "(" + " + ".join(f"__n_{v}*{f}_{v}" for v in p.spatial) + ")"
        order = []
        while suffix:
            v = next(v for v in names if suffix.startswith(v))
            order.append(v)
            suffix = suffix[len(v):]
        return f"__d_{f}_{'__'.join(order)}"

    body = re.sub(r"\b([A-Za-z]\w*?)_(\w+)\b", jet, text)
    body = re.sub(r"\b([A-Za-z]\w*?)_(\w+)\b", jet, body)      # the u_x of a u_n
    local: dict[str, Any] = {**syms, "E": sp.E, "I": sp.I, "pi": sp.pi}
    for f in p.fields:
        local[f] = sol[f]
    for v in normal or {}:
        local[f"__n_{v}"] = normal[v]      # type: ignore[index]
    for token in set(re.findall(r"__[dn]_\w+", body)):
        if token.startswith("__n_"):
            continue
        f, _, rest = token[4:].partition("_")
        local[token] = sp.diff(sol[f], *[syms[v] for v in rest.split("__")])
    return sp.sympify(body, locals=local)


def _mpmath(expr: sp.Expr, names: list[str], syms: dict[str, sp.Symbol]) -> Callable[..., Any]:
    expr = expr.replace(sp.DiracDelta, lambda *a: sp.Integer(0))
    return sp.lambdify([syms[n] for n in names], expr, modules="mpmath")


# ------------------------------------------------------------------ where the oracle looks
NEAR = mp.mpf("1e-7")          # how far inside a corner or a boundary point the near points lie


def _num(x: Any) -> Any:
    return mp.mpf(sp.Rational(str(x)).p) / sp.Rational(str(x)).q if isinstance(x, (int, float, str)) else x


def _draw(p: Problem, rng: random.Random, fixed: Point | None = None) -> Point:
    """A uniform point of the domain (time and parameters included), ``fixed`` variables held."""
    fixed = fixed or {}
    test = _inside(p)
    for _ in range(2000):
        pt = {v: _num(fixed[v]) if v in fixed else _uniform(rng, *p.ranges.get(v) or p.parameters[v])
              for v in p.variables}
        if test(pt):
            return pt
    raise AssertionError(f"{p.name}: no point found inside")


def _uniform(rng: random.Random, lo: Any, hi: Any) -> Any:
    lo, hi = _num(lo), _num(hi)
    return lo + mp.mpf(rng.random()) * (hi - lo) + mp.mpf(rng.random()) * (hi - lo) * mp.mpf(2) ** -53


def _inside(p: Problem) -> Callable[[Point], bool]:
    if not p.inside:
        return lambda pt: True
    syms = symbols(p)
    rel = sp.sympify(p.inside, locals=syms)
    fn = sp.lambdify([syms[v] for v in p.spatial], rel, modules="mpmath")
    return lambda pt: bool(fn(*[pt[v] for v in p.spatial]))


def _on(p: Problem, part: Part, s: Any, rng: random.Random, inward: Any = 0) -> Point:
    pt = _draw(p, rng)
    xy, n = part.at(s), part.normal(s)
    pt.update({v: xy[v] - inward * n[v] for v in xy})
    return pt


def interior(p: Problem, rng: random.Random, n: int) -> list[Point]:
    """Random interior points, and points just inside every corner of every boundary part."""
    pts = [_draw(p, rng) for _ in range(n)]
    for part in p.parts.values():
        for s in (mp.mpf(0), mp.mpf(1), mp.mpf("1e-9"), 1 - mp.mpf("1e-9")):
            pt = _on(p, part, s, rng, NEAR)
            if _inside(p)(pt):
                pts.append(pt)
    return pts


def set_points(p: Problem, c: Con, rng: random.Random, n: int) -> list[tuple[Point, Point | None]]:
    """Points of a constraint's sets with the outward normal where there is one: uniform on each part
    and at its ends (the corners), uniform on held faces, or the listed points."""
    if c.at is not None:
        return [(_draw(p, rng, dict(zip(p.variables, a))), None) for a in c.at]
    pts: list[tuple[Point, Point | None]] = []
    for kind, what in c.sets:
        if kind == "part":
            ss = [mp.mpf(0), mp.mpf(1)] + [mp.mpf(rng.random()) for _ in range(n)]
            pts += [(_on(p, p.parts[what], s, rng), p.parts[what].normal(s)) for s in ss]
        else:
            pts += [(_draw(p, rng, what), None) for _ in range(n)]
    return pts


# ------------------------------------------------------------------ evaluating
def value(fn: Callable[..., Any], args: list[Any]) -> Any:
    try:
        with mp.workdps(DIGITS):
            return mp.mpmathify(fn(*args))
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        return mp.nan


def bad(z: Any) -> bool:
    """Not a finite number (a complex value is reported apart)."""
    return not (mp.isfinite(mp.re(z)) and mp.isfinite(mp.im(z)))


def imag(z: Any) -> bool:
    return isinstance(z, mp.mpc) and abs(z.imag) > mp.mpf(10) ** (-DIGITS + 10) * (1 + abs(z.real))


def _show(pt: Point) -> str:
    return ", ".join(f"{k}={mp.nstr(v, 8)}" for k, v in pt.items())


@dataclass
class Look:
    """What the oracle saw of one expression set: the worst absolute residuals, and where."""

    eq: Any = mp.mpf(0)               # equations, at interior and near-corner points
    con: Any = mp.mpf(0)              # constraints on their sets, periodic pairs and integrals
    probe: Any = mp.mpf(0)            # equations at the probe points
    complex_at: str = ""              # where a value is not real ("" if none)
    rough: str = ""                   # a jump, across a kink, of a derivative the equations take
    where: str = ""

    def worst(self, probes: bool = True) -> Any:
        return max(self.eq, self.con, self.probe if probes else mp.mpf(0))

    def note(self, what: str, z: Any, pt: Point, attr: str) -> None:
        size = mp.inf if bad(z) else abs(z)
        if imag(z) and not self.complex_at:
            self.complex_at = f"{what} at {_show(pt)}"
        if size > getattr(self, attr):
            setattr(self, attr, size)
            self.where = f"{what} at {_show(pt)}"


class Candidate:
    """A candidate in the oracle's reading: fields with the unknowns' values put in."""

    def __init__(self, p: Problem, texts: dict[str, str]):
        self.p, self.syms = p, symbols(p)
        sol = {k: read(p, v) for k, v in texts.items()}
        self.sub = {self.syms[u]: sol[u] for u in p.unknowns}
        self.fields = {f: sol[f].subs(self.sub) for f in p.fields}
        self.normal = {v: sp.Dummy(f"n{v}", real=True) for v in p.spatial}
        self.args = [self.syms[v] for v in p.variables] + list(self.normal.values())

    def fn(self, text_or_expr: Any) -> Callable[..., Any]:
        expr = text_or_expr if isinstance(text_or_expr, sp.Basic) else jets(self.p, text_or_expr, self.fields,
                                                                            self.normal)
        expr = sp.sympify(expr).subs(self.sub).replace(sp.DiracDelta, lambda *a: sp.Integer(0))
        return sp.lambdify(self.args, expr, modules="mpmath")

    def at(self, fn: Callable[..., Any], pt: Point, normal: Point | None = None) -> Any:
        z = self._value(fn, pt, normal)
        return self._limit(fn, pt, normal) if bad(z) else z

    def _value(self, fn: Callable[..., Any], pt: Point, normal: Point | None) -> Any:
        return value(fn, [pt[v] for v in self.p.variables] + [(normal or {}).get(v, mp.nan) for v in self.p.spatial])

    def _limit(self, fn: Callable[..., Any], pt: Point, normal: Point | None) -> Any:
        """Where a formula is 0/0 (``sin(sqrt(x))/sqrt(x)`` at 0), its limit from inside the domain: the values
        at 1e-30 and 1e-36 away, along the first direction that stays inside, must agree to 1e-20."""
        inside = _inside(self.p)
        for d in _directions(self.p, normal):
            near = [{**pt, **{v: pt[v] + h * d.get(v, 0) for v in d}} for h in (mp.mpf("1e-30"), mp.mpf("1e-36"))]
            if not all(inside(q) and _in_ranges(self.p, q) for q in near):
                continue
            a, b = (self._value(fn, q, normal) for q in near)
            if bad(a) or bad(b) or abs(a - b) > mp.mpf("1e-20") * (1 + abs(a)):
                return mp.nan
            return b
        return mp.nan


def _directions(p: Problem, normal: Point | None) -> list[Point]:
    """Directions to approach a point from: into the domain along its normal, else along each variable."""
    out = [{v: -normal[v] for v in normal}] if normal and all(not mp.isnan(c) for c in normal.values()) else []
    diagonal = {v: mp.mpf(1) / (k + 2) for k, v in enumerate(p.spatial)}
    for v in p.ranges:
        out += [{v: mp.mpf(1)}, {v: mp.mpf(-1)}]
    return out + [diagonal, {v: -c for v, c in diagonal.items()}]


def _in_ranges(p: Problem, pt: Point) -> bool:
    return all(_num(lo) <= pt[v] <= _num(hi) for v, (lo, hi) in {**p.ranges, **p.parameters}.items())


def _digits(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` at 50 digits: its points and normals too, not only its residuals."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with mp.workdps(DIGITS):
            return fn(*args, **kwargs)
    return wrapped


@_digits
def look(p: Problem, texts: dict[str, str], seed: int, n: int = 12) -> Look:
    """Evaluate the candidate ``texts`` (fields and unknowns) everywhere the oracle looks."""
    rng = random.Random(seed)
    cand, seen = Candidate(p, texts), Look()
    inner = interior(p, rng, n)
    found = probe_points(p, cand, rng)
    probes = [pt for pt, _, _ in found]
    for f, expr in cand.fields.items():
        fn = cand.fn(expr)
        for pt in inner:
            z = cand.at(fn, pt)                                  # the field itself must be real
            if imag(z) and not seen.complex_at:
                seen.complex_at = f"{f} = {mp.nstr(z, 5)} at {_show(pt)}"
    for i, (lhs, rhs) in enumerate(p.equations):
        fn = cand.fn(f"({lhs}) - ({rhs})")
        for pt in inner:
            seen.note(f"equation {i}", cand.at(fn, pt), pt, "eq")
        for pt in probes:
            seen.note(f"equation {i} (probe)", cand.at(fn, pt), pt, "probe")
    for i, c in enumerate(p.constraints):
        if c.integral:
            _integral(p, cand, c, f"constraint {i}", rng, seen)
            continue
        fn = cand.fn(c.operator if c.periodic else f"({c.operator}) - ({c.value})")
        for pt, normal in set_points(p, c, rng, n):
            z = cand.at(fn, pt, normal)
            if c.periodic:
                z = z - cand.at(fn, {**pt, c.periodic[1]: _num(c.periodic[2])}, normal)
            seen.note(f"constraint {i}", z, pt, "con")
    _jumps(p, cand, found, seen)
    return seen


# ------------------------------------------------------------------ probes: kinks, branch points, spikes
ROUGH = (sp.Abs, sp.sign, sp.Heaviside)
SCAN = 48


def _arguments(expr: sp.Expr) -> list[tuple[sp.Expr, bool]]:
    """(argument, kink?) of every call whose zeros or extrema matter: abs/sign (kinks), log, roots,
    asin/acos (branch points), exp (spike centres at its argument's extrema), tan (poles)."""
    out: list[tuple[sp.Expr, bool]] = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, ROUGH):
            out.append((node.args[0], True))
        elif isinstance(node, (sp.log, sp.exp, sp.asin, sp.acos, sp.atan)):
            out.append((node.args[0], False))
        elif isinstance(node, sp.tan):
            out.append((sp.cos(node.args[0]), False))
        elif isinstance(node, sp.Pow) and not node.exp.is_integer:
            out.append((node.base, False))
    return out[:12]


def probe_points(p: Problem, cand: Candidate, rng: random.Random) -> list[tuple[Point, str, bool]]:
    """Points where an argument vanishes (a kink, a branch point) or has an extremum (a spike's centre)
    along one variable from a random point: (point, variable, kink?)."""
    out: list[tuple[Point, str, bool]] = []
    inside = _inside(p)
    for expr in cand.fields.values():
        for g, kink in _arguments(expr):
            for v in p.ranges:
                syms = cand.syms
                if syms[v] not in g.free_symbols:
                    continue
                base = _draw(p, rng)
                for what, h in ((kink, g), (False, sp.diff(g, syms[v]))):
                    fn = sp.lambdify([syms[w] for w in p.variables], h, modules="mpmath")
                    for x in _roots(lambda t, fn=fn, v=v, base=base: value(fn, [t if w == v else base[w] for w in p.variables]),
                                    *map(_num, p.ranges[v])):
                        pt = {**base, v: x}
                        if inside(pt):
                            out.append((pt, v, what))
    return out[:60]


def _roots(f: Callable[[Any], Any], lo: Any, hi: Any) -> list[Any]:
    """Sign changes of ``f`` on a grid over [lo, hi], each refined to 50 digits by bisection."""
    grid = [lo + (hi - lo) * mp.mpf(i) / SCAN for i in range(SCAN + 1)]
    vals = [mp.re(f(t)) if not bad(f(t)) else mp.nan for t in grid]
    out = []
    for a, b, fa, fb in zip(grid, grid[1:], vals, vals[1:]):
        if mp.isnan(fa) or mp.isnan(fb) or fa * fb > 0:
            continue
        with mp.workdps(DIGITS):
            for _ in range(180):
                m = (a + b) / 2
                fm = mp.re(f(m))
                if mp.isnan(fm):
                    break
                a, b, fa = (m, b, fm) if fa * fm > 0 else (a, m, fa)
        out.append((a + b) / 2)
    return out[:4]


def _order(p: Problem) -> int:
    """The highest derivative order the equations take."""
    best = 0
    for lhs, rhs in p.equations:
        for f, suffix in re.findall(r"\b([A-Za-z]\w*?)_(\w+)\b", f"{lhs} {rhs}"):
            if f in p.fields:
                names, k = sorted(p.variables, key=len, reverse=True), 0
                while suffix and any(suffix.startswith(v) for v in names):
                    suffix = suffix[len(next(v for v in names if suffix.startswith(v))):]
                    k += 1
                best = max(best, k)
    return best


def _jumps(p: Problem, cand: Candidate, found: list[tuple[Point, str, bool]], seen: Look) -> None:
    """At each kink, the derivatives below the equations' order along the line must not jump."""
    order, eps = _order(p), mp.mpf("1e-20")
    for pt, v, kink in found:
        if not kink or seen.rough:
            continue
        for f, expr in cand.fields.items():
            for k in range(order):
                fn = cand.fn(sp.diff(expr, cand.syms[v], k))
                left, right = cand.at(fn, {**pt, v: pt[v] - eps}), cand.at(fn, {**pt, v: pt[v] + eps})
                if bad(left) or bad(right) or abs(left - right) > mp.mpf("1e-15") * (1 + abs(left)):
                    seen.rough = f"d^{k}{f}/d{v}^{k} jumps at {_show(pt)}"
                    seen.probe = mp.inf
                    return


# ------------------------------------------------------------------ integrals
def _integral(p: Problem, cand: Candidate, c: Con, label: str, rng: random.Random, seen: Look) -> None:
    """The integral of the operator over the space (a box or a disk) at a random time and parameter."""
    fn, target, pt = cand.fn(c.operator), cand.fn(read(p, c.value)), _draw(p, rng)

    def at(**xy: Any) -> Any:
        return cand.at(fn, {**pt, **xy})
    with mp.workdps(30):
        if p.regions:
            total = sum(sign * _region_integral(region, at, p.spatial) for sign, region in p.regions)
        elif p.disk is not None:
            cx, cy, r = map(_num, p.disk)
            x, y = p.spatial
            total = mp.quad(lambda rho, th: rho * at(**{x: cx + rho * mp.cos(th), y: cy + rho * mp.sin(th)}),
                            [0, r], [0, 2 * mp.pi])
        else:
            spans = [[_num(a) for a in p.ranges[v]] for v in p.spatial]
            total = mp.quad(lambda *xs: at(**dict(zip(p.spatial, xs))), *spans)
    seen.note(label, total - cand.at(target, pt), pt, "con")




def _region_integral(region: tuple[Any, ...], at: Callable[..., Any], names: list[str]) -> Any:
    """The integral of ``at`` over one signed piece of the domain: a box, a disk (polar), or a convex
    polygon (a fan of triangles, each the unit square collapsed onto it)."""
    kind, *data = region
    x, y = names
    if kind == "box":
        (ax, ay), (bx, by) = [[_num(v) for v in corner] for corner in data]
        return mp.quad(lambda u, v: at(**{x: u, y: v}), [ax, bx], [ay, by])
    if kind == "disk":
        cx, cy, r = [_exact_text(v) for v in data]
        return mp.quad(lambda rho, th: rho * at(**{x: cx + rho * mp.cos(th), y: cy + rho * mp.sin(th)}),
                       [0, r], [0, 2 * mp.pi])
    vertices = [[_exact_text(v) for v in corner] for corner in data]
    total = mp.mpf(0)
    a = vertices[0]
    for b, c in zip(vertices[1:], vertices[2:]):
        area2 = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

        def on(s: Any, t: Any, b: Any = b, c: Any = c) -> Any:
            px = a[0] + s * (b[0] - a[0]) + (1 - s) * t * (c[0] - a[0])
            py = a[1] + s * (b[1] - a[1]) + (1 - s) * t * (c[1] - a[1])
            return at(**{x: px, y: py}) * (1 - s)
        total += area2 * mp.quad(on, [0, 1], [0, 1])
    return total


def _exact_text(text: Any) -> Any:
    """A number written as text (``1 - 1/10**9``) at the working precision, through SymPy's exact reading."""
    value = sp.sympify(str(text))
    return mp.mpf(sp.N(value, mp.mp.dps + 10)) if value.is_number else value
