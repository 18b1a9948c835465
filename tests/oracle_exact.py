"""The oracle's problems and candidates for exact decisions (issue 44, items 3 and 5).

Four categories, each with its own problems (plain data, as :mod:`tests.oracle_problems`):

- ``period``: periodic pairs on [0.1, 0.3], whose shift 1/5 no float difference gives, on a box, on a
  polygon and in time; candidates with the true period, the float's, and periods a little off;
- ``containment``: integrals over A - B and A & B with B inside A, or poking out of it, by 1e-5 to 1e-9;
  candidates are constants fitted to the right area, to the area with the whole of B taken out, and
  a little off (the oracle integrates each signed polygon or disk itself);
- ``part``: constraints on part of a curve (an arc cut by a box, an arc chosen by a predicate, an edge
  from x = 0.3) whose values hold on the part only (``sqrt(1 - x**2)`` is ``y`` on the upper arc);
- ``root``: ``cos(sqrt(x))`` and ``besselj(0, sqrt(x**2 + y**2))`` with derivative constraints where the
  root's argument is 0, beside roots that are not analytic there (``sqrt(x)``).
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp
from hypothesis import strategies as st

from tests.oracle_model import Con, Part, Problem

SIZES = ("1", "1/10**3", "1/10**9", "1/10**12")
LAPLACE = [("u_xx + u_yy", "0")]
HELMHOLTZ = [("u_xx + u_yy + u", "0")]


def _arc(start, turn, r=1):
    """Part of the circle of radius ``r`` round the origin from angle ``start`` over ``turn`` (s in [0, 1])."""
    def angle(s):
        return mp.pi * (start + turn * s)
    return Part(lambda s: {"x": r * mp.cos(angle(s)), "y": r * mp.sin(angle(s))},
                lambda s: {"x": mp.cos(angle(s)), "y": mp.sin(angle(s))})


def _edge(a, b):
    """The edge from ``a`` to ``b`` (numbers as text, read at the working precision when used)."""
    def ends():
        return [[mp.mpf(sp.Rational(str(v)).p) / sp.Rational(str(v)).q for v in p] for p in (a, b)]

    def at(s):
        (ax, ay), (bx, by) = ends()
        return {"x": ax + s * (bx - ax), "y": ay + s * (by - ay)}

    def normal(s):
        (ax, ay), (bx, by) = ends()
        length = mp.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
        return {"x": (by - ay) / length, "y": -(bx - ax) / length}
    return Part(at, normal)


def _tri(apex: str) -> tuple[str, ...]:
    return ("polygon", ("1/5", "1/5"), ("4/5", "1/5"), ("1/2", apex))


def _triangle_out(apex: str) -> str:
    """Inside the box [0, 1]**2 and outside the triangle (1/5, 1/5), (4/5, 1/5), (1/2, apex)."""
    return (f"(x > 0) & (x < 1) & (y > 0) & (y < 1) & ((y < 1/5) | ((y - 1/5)*(3/10) > ({apex} - 1/5)*(x - 1/5)) "
            f"| ((y - 1/5)*(-3/10) > ({apex} - 1/5)*(x - 4/5)))")


def _poke(name: str, apex: str, inside: bool) -> Problem:
    """The unit box less a triangle whose apex is at ``apex`` (1 - 1e-5: inside; 1 + 1e-9: poking out)."""
    area = 1 - sp.Rational(3, 10) * (sp.sympify(apex) - sp.Rational(1, 5))
    return Problem(name, {"x": (0, 1), "y": (0, 1)}, LAPLACE, [Con("u", "1", integral=True)],
                   {"u": str(1 / area)} if inside else {},
                   shape=f"box(lo=(0, 0), hi=(1, 1)) - polygon(vertices=[(0.2, 0.2), (0.8, 0.2), (0.5, {_decimal(apex)})])",
                   inside=_triangle_out(apex),
                   regions=((1, ("box", ("0", "0"), ("1", "1"))), (-1, _tri(apex))) if inside else ())


def _decimal(text: str) -> str:
    """An exact number's decimal, for the shape's text (1 - 1/10**9 is 0.999999999)."""
    value = sp.sympify(text)
    return str(sp.Float(value, 20)).rstrip("0")


def problems() -> list[Problem]:
    # 0.2 in (0.1, 0.3): the box's heights stay small so sinh(10*pi*y) is a number of order 10
    periodic = [Con("u", "", on="x = 0.1", sets=(("part", "x = 0.1"),), periodic=("x = 0.3", "x", "0.3", "0.1")),
                Con("u_x", "", on="x = 0.1", sets=(("part", "x = 0.1"),), periodic=("x = 0.3", "x", "0.3", "0.1"))]
    out = [
        Problem("period_box", {"x": ("0.1", "0.3"), "y": (0, "0.1")}, LAPLACE,
                [Con("u", "0", on="y = 0", sets=(("part", "y = 0"),)), *periodic],
                {"u": "sin(10*pi*x)*sinh(10*pi*y)"}),
        Problem("period_polygon", {"x": ("0.1", "0.3"), "y": (0, "0.1")}, LAPLACE,
                [Con("u", "0", on="edge 0", sets=(("part", "edge 0"),)),
                 Con("u", "", on="edge 3", sets=(("part", "edge 3"),), periodic=("edge 1", "x", "0.3", "0.1")),
                 Con("u_x", "", on="edge 3", sets=(("part", "edge 3"),), periodic=("edge 1", "x", "0.3", "0.1"))],
                {"u": "sin(10*pi*x)*sinh(10*pi*y)"}, shape="polygon(vertices=[(0.1, 0), (0.3, 0), (0.3, 0.1), (0.1, 0.1)])",
                inside="(x > 1/10) & (x < 3/10) & (y > 0) & (y < 1/10)",
                parts={"edge 0": _edge(("0.1", 0), ("0.3", 0)), "edge 1": _edge(("0.3", 0), ("0.3", "0.1")),
                       "edge 2": _edge(("0.3", "0.1"), ("0.1", "0.1")), "edge 3": _edge(("0.1", "0.1"), ("0.1", 0))}),
        Problem("period_heat", {"x": ("0.1", "0.3"), "t": (0, "0.001")}, [("u_t - u_xx", "0")],
                [*periodic, Con("u", "sin(10*pi*x)", on="initial", sets=(("fix", {"t": 0}),))],
                {"u": "exp(-100*pi**2*t)*sin(10*pi*x)"}, time="t"),
        _poke("poke_in_1e5", "1 - 1/10**5", True),
        _poke("poke_in_1e9", "1 - 1/10**9", True),
        _poke("poke_out_1e5", "1 + 1/10**5", False),
        _poke("poke_out_1e9", "1 + 1/10**9", False),
        Problem("hole_in_1e7", {"x": (-1, 1), "y": (-1, 1)}, LAPLACE, [Con("u", "4 - pi*(1 - 1/10**7)**2", integral=True)],
                {"u": "1"}, shape="box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.9999999)",
                inside="x**2 + y**2 > (1 - 1/10**7)**2",
                regions=((1, ("box", ("-1", "-1"), ("1", "1"))), (-1, ("disk", "0", "0", "1 - 1/10**7")))),
        Problem("hole_out_1e9", {"x": (-1, 1), "y": (-1, 1)}, LAPLACE, [Con("u", "4 - pi", integral=True)],
                {}, shape="box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=1.000000001)",
                inside="x**2 + y**2 > (1 + 1/10**9)**2"),
        Problem("meet_in_1e9", {"x": (-1, 1), "y": (-1, 1)}, LAPLACE, [Con("u", "pi*(1 - 1/10**9)**2", integral=True)],
                {"u": "1"}, shape="box(lo=(-1, -1), hi=(1, 1)) & disk(center=(0, 0), radius=0.999999999)",
                inside="x**2 + y**2 < (1 - 1/10**9)**2", regions=((1, ("disk", "0", "0", "1 - 1/10**9")),)),
        Problem("half_disk", {"x": (-1, 1), "y": (0, 1)}, LAPLACE,
                [Con("u", "sqrt(1 - x**2)", on="circle", sets=(("part", "arc"),)),
                 Con("u", "0", on="y = 0", sets=(("part", "flat"),))],
                {"u": "y"}, shape="disk(center=(0, 0), radius=1) & box(lo=(-1, 0), hi=(1, 1))",
                inside="(x**2 + y**2 < 1) & (y > 0)", parts={"arc": _arc(0, 1), "flat": _edge((1, 0), (-1, 0))}),
        Problem("disk_halves", {"x": (-1, 1), "y": (-1, 1)}, LAPLACE,
                [Con("u", "sqrt(1 - x**2)", on="circle where y > 0", sets=(("part", "upper"),)),
                 Con("u", "-sqrt(1 - x**2)", on="circle where y < 0", sets=(("part", "lower"),))],
                {"u": "y"}, shape="disk(center=(0, 0), radius=1)", inside="x**2 + y**2 < 1",
                parts={"upper": _arc(0, 1), "lower": _arc(1, 1)}),
        Problem("edge_from_3_10", {"x": ("0.3", 1), "y": (0, 1)}, LAPLACE,
                [Con("u", "abs(x - 3/10)", on="edge 0", sets=(("part", "edge 0"),)),
                 Con("u", "x - 3/10", on=["edge 1", "edge 2", "edge 3"],
                     sets=tuple(("part", f"edge {i}") for i in (1, 2, 3)))],
                {"u": "x - 3/10"}, shape="polygon(vertices=[(0.3, 0), (1, 0), (1, 1), (0.3, 1)])",
                inside="(x > 3/10) & (x < 1) & (y > 0) & (y < 1)",
                parts={"edge 0": _edge(("0.3", 0), (1, 0)), "edge 1": _edge((1, 0), (1, 1)),
                       "edge 2": _edge((1, 1), ("0.3", 1)), "edge 3": _edge(("0.3", 1), ("0.3", 0))}),
        Problem("cos_root", {"x": (0, 1)}, [("4*x*u_xx + 2*u_x + u", "0")],
                [Con("u", "1", on="x = 0", sets=(("part", "x = 0"),)),
                 Con("u_x", "-1/2", on="x = 0", sets=(("part", "x = 0"),))],
                {"u": "cos(sqrt(x))"}),
        Problem("bessel_centre", {"x": (-1, 1), "y": (-1, 1)}, HELMHOLTZ,
                [Con("u", "besselj(0, 1)", on="circle", sets=(("part", "circle"),)),
                 Con("u_x", "0", at=((0, 0),)), Con("u_xx", "-1/2", at=((0, 0),))],
                {"u": "besselj(0, sqrt(x**2 + y**2))"}, shape="disk(center=(0, 0), radius=1)", inside="x**2 + y**2 < 1",
                parts={"circle": _arc(0, 2)}),
        Problem("bessel_corner", {"x": (0, 1), "y": (0, 1)}, HELMHOLTZ,
                [Con("u_x", "0", on="x = 0", sets=(("part", "x = 0"),)),
                 Con("u_y", "0", on="y = 0", sets=(("part", "y = 0"),)),
                 Con("u", "besselj(0, sqrt(1 + y**2))", on="x = 1", sets=(("part", "x = 1"),)),
                 Con("u", "besselj(0, sqrt(x**2 + 1))", on="y = 1", sets=(("part", "y = 1"),)),
                 Con("u_xy", "0", at=((0, 0),))],
                {"u": "besselj(0, sqrt(x**2 + y**2))"}),
    ]
    return out


#: the problems each category draws from
GROUPS = {
    "period": ("period_box", "period_polygon", "period_heat"),
    "containment": ("poke_in_1e5", "poke_in_1e9", "poke_out_1e5", "poke_out_1e9", "hole_in_1e7", "hole_out_1e9",
                    "meet_in_1e9"),
    "part": ("half_disk", "disk_halves", "edge_from_3_10"),
    "root": ("cos_root", "bessel_centre", "bessel_corner"),
}
CATEGORIES = tuple(GROUPS)
NAMES = frozenset(n for group in GROUPS.values() for n in group)

_FLOAT_K = "2*pi*100000000000000000/19999999999999998"     # 2 pi over the float 0.3 - 0.1


@st.composite
def terms(draw, p: Problem, category: str) -> str:
    """A formula of ``category`` for ``p``: the truth, or a near miss of the decision the category tests."""
    truth = p.truth.get("u", "1")
    size = draw(st.sampled_from(SIZES))
    if category == "period":
        k = draw(st.sampled_from(["10*pi", _FLOAT_K, "10*pi*(1 + 1/10**9)", "10*pi*(1 + 1/10**3)", "20*pi/3",
                                  "20*pi"]))
        if p.time:
            return draw(st.sampled_from([f"exp(-({k})**2*t)*sin({k}*x)", f"exp(-({k})**2*t)*sin({k}*(x - 1/10))",
                                         f"{truth} + {size}*exp(-({k})**2*t)*cos({k}*x)"]))
        return draw(st.sampled_from([f"sin({k}*x)*sinh({k}*y)", f"sin({k}*(x - 1/10))*sinh({k}*y)",
                                     f"{truth} + {size}*cos({k}*x)*sinh({k}*y)"]))
    if category == "containment":
        return draw(st.sampled_from([truth, f"({truth})*(1 + {size})", f"{truth} + {size}*x", f"{truth} + {size}*x*y",
                                     f"{truth} + {size}*(x**2 - y**2)", "1/(1 - 3/10*(1 - 1/5))",
                                     "1/(1 - 3/10*(1 + 1/10**9 - 1/5))", f"4/(4 - pi) + {size}"]))
    if category == "part":
        term = draw(st.sampled_from(["x*y", "x**2 - y**2", "y*(x**2 + y**2 - 1)", "abs(y) - y", "sqrt(y**2) - y",
                                     "sqrt(1 - x**2) - y", "abs(x - 3/10) - x + 3/10", "x - 3/10 - y", "-2*y"]))
        return draw(st.sampled_from([truth, f"{truth} + {size}*({term})", term]))
    if category == "root":
        if p.name == "cos_root":
            term = draw(st.sampled_from(["sqrt(x)", "x*sqrt(x)", "x", "sin(sqrt(x))", "sqrt(x)*sin(sqrt(x))",
                                         "cos(sqrt(x))*x"]))
            return draw(st.sampled_from([truth, f"{truth} + {size}*{term}", f"cos((1 + {size})*sqrt(x))",
                                         f"cosh({size}*sqrt(x))*{truth}"]))
        r = "sqrt(x**2 + y**2)"
        term = draw(st.sampled_from([r, f"{r}**3", "x**2 - y**2", f"besselj(2, {r})", f"besselj(1, {r})", "x*y",
                                     f"cos({r}) - 1"]))
        return draw(st.sampled_from([truth, f"{truth} + {size}*{term}", f"besselj(0, (1 + {size})*{r})"]))
    raise AssertionError(category)
