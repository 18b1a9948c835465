"""The oracle's own problems (issue 35): box, disk, CSG, periodic, integral, inverse, family, coupled.

Each is plain data for :mod:`tests.oracle`, with a known solution (``truth``) where one exists, and
names that the verifier's proofs have used for their own symbols (rho, theta, phi, s, r, q, v).
"""
from __future__ import annotations

import mpmath as mp

from tests.oracle import Con, Part, Problem
from tests.oracle_exact import problems as exact_problems
from tests.oracle_scale import scale_problems


def _circle(cx, cy, r, outward=1):
    def at(s):
        return {"x": cx + r * mp.cos(2 * mp.pi * s), "y": cy + r * mp.sin(2 * mp.pi * s)}
    return Part(at, lambda s: {"x": outward * mp.cos(2 * mp.pi * s), "y": outward * mp.sin(2 * mp.pi * s)})


def _segment(a, b, names=("x", "y")):
    """The segment from a to b; its outward normal is the right-hand one (counter-clockwise shapes)."""
    (ax, ay), (bx, by) = map(lambda p: tuple(map(mp.mpf, p)), (a, b))
    length = mp.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
    nx, ny = (by - ay) / length, -(bx - ax) / length
    return Part(lambda s: {names[0]: ax + s * (bx - ax), names[1]: ay + s * (by - ay)},
                lambda s: {names[0]: nx, names[1]: ny})


def _square(lo, hi, names=("x", "y"), sign=1):
    """The four faces of a square, counter-clockwise; ``sign=-1`` for a hole (normals into it)."""
    (a, b), (c, d) = lo, hi
    corners = [(a, b), (c, b), (c, d), (a, d)]
    faces = [(corners[i], corners[(i + 1) % 4]) for i in range(4)]
    return {f"face {i}": _segment(*(f if sign > 0 else f[::-1]), names=names) for i, f in enumerate(faces)}


DIRICHLET = "boundary"


def problems() -> dict[str, Problem]:
    out = [
        Problem("sine1d", {"x": (0, 1)}, [("u_xx", "-pi**2*sin(pi*x)")],
                [Con("u", "0", on=["x = 0", "x = 1"], sets=(("part", "x = 0"), ("part", "x = 1")))],
                {"u": "sin(pi*x)"}),
        Problem("laplace_box", {"x": (0, 1), "y": (0, 1)}, [("u_xx + u_yy", "0")],
                [Con("u", "exp(x)*sin(y)", on=DIRICHLET,
                     sets=tuple(("part", f) for f in ("x = 0", "x = 1", "y = 0", "y = 1")))],
                {"u": "exp(x)*sin(y)"}),
        # time named s, which boundary curves used for their parameter
        Problem("disk_time_s", {"x": (-1, 1), "y": (-1, 1), "s": (0, 1)}, [("u_xx + u_yy", "-4")],
                [Con("u", "0", on="circle", sets=(("part", "circle"),))],
                {"u": "1 - x**2 - y**2"}, time="s", shape="disk(center=(0, 0), radius=1)",
                inside="x**2 + y**2 < 1", parts={"circle": _circle(0, 0, 1)}, names=("s",)),
        # space named r and q; a hole whose rim points into it
        Problem("csg_hole", {"r": (-1, 1), "q": (-1, 1)}, [("u_rr + u_qq", "0")],
                [Con("u", "r*q + r**2 - q**2", on=DIRICHLET,
                     sets=tuple(("part", f"face {i}") for i in range(4)) + (("part", "rim"),))],
                {"u": "r*q + r**2 - q**2"}, shape="box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=1/2)",
                space=("r", "q"), inside="r**2 + q**2 > 1/4",
                parts={**_square((-1, -1), (1, 1), ("r", "q")),
                       "rim": Part(lambda s: {"r": mp.cos(2 * mp.pi * s) / 2, "q": mp.sin(2 * mp.pi * s) / 2},
                                   lambda s: {"r": -mp.cos(2 * mp.pi * s), "q": -mp.sin(2 * mp.pi * s)})},
                names=("r", "q")),
        Problem("periodic_theta", {"x": (0, 1), "theta": (0, "0.1")}, [("u_theta - u_xx", "0")],
                [Con("u", "", on="x = 0", sets=(("part", "x = 0"),), periodic=("x = 1", "x", 1, 0)),
                 Con("u_x", "", on="x = 0", sets=(("part", "x = 0"),), periodic=("x = 1", "x", 1, 0)),
                 Con("u", "cos(2*pi*x)", on="initial", sets=(("fix", {"theta": 0}),))],
                {"u": "exp(-4*pi**2*theta)*cos(2*pi*x)"}, time="theta", names=("theta",)),
        # an integral on a disk, time named theta (the proof's angle)
        Problem("integral_disk_theta", {"x": (-1, 1), "y": (-1, 1), "theta": (0, 1)},
                [("u_theta", "0"), ("u_xx + u_yy", "0")],
                [Con("u_n", "x", on="circle", sets=(("part", "circle"),)),
                 Con("u", "0", integral=True)],
                {"u": "x"}, time="theta", shape="disk(center=(0, 0), radius=1)", inside="x**2 + y**2 < 1",
                parts={"circle": _circle(0, 0, 1)}, disk=(0, 0, 1), names=("theta", "rho")),
        Problem("integral_phi", {"phi": (0, 1)}, [("u_phi", "pi*cos(pi*phi)")],
                [Con("u", "2/pi", integral=True)], {"u": "sin(pi*phi)"}, names=("phi",)),
        Problem("inverse_heat", {"x": (0, 1), "t": (0, 1)}, [("u_t - phi*u_xx", "0")],
                [Con("u", "0", on=["x = 0", "x = 1"], sets=(("part", "x = 0"), ("part", "x = 1"))),
                 Con("u", "sin(pi*x)", on="t = 0", sets=(("fix", {"t": 0}),))],
                {"u": "exp(-pi**2*t/10)*sin(pi*x)", "phi": "1/10"}, time="t", unknowns={"phi": ("0.01", 1)},
                observations={"u": "exp(-pi**2*t/10)*sin(pi*x)", "points": 80, "noise": 0.01, "seed": 0},
                names=("phi",)),
        Problem("family_rho", {"x": (0, 1), "t": (0, 1)}, [("u_t - rho*u_xx", "0")],
                [Con("u", "0", on=["x = 0", "x = 1"], sets=(("part", "x = 0"), ("part", "x = 1"))),
                 Con("u", "sin(pi*x)", on="t = 0", sets=(("fix", {"t": 0}),))],
                {"u": "exp(-rho*pi**2*t)*sin(pi*x)"}, time="t", parameters={"rho": ("0.05", "0.2")},
                names=("rho",)),
        Problem("coupled", {"x": (0, 1)}, [("u_x - v", "0"), ("v_x + u", "0")],
                [Con("u", "0", on="x = 0", sets=(("part", "x = 0"),)),
                 Con("v", "1", on="x = 0", sets=(("part", "x = 0"),))],
                {"u": "sin(x)", "v": "cos(x)"}, fields=("u", "v")),
        # a triangle, time named v (the proof's second coordinate)
        Problem("triangle_time_v", {"x": (0, 1), "y": (0, 1), "v": (0, 1)}, [("u_v - u_xx - u_yy", "0")],
                [Con("u", "x**2 - y**2", on=DIRICHLET, sets=tuple(("part", f"edge {i}") for i in range(3))),
                 Con("u", "x**2 - y**2", on="initial", sets=(("fix", {"v": 0}),))],
                {"u": "x**2 - y**2"}, time="v", shape="polygon(vertices=[(0, 0), (1, 0), (0, 1)])",
                inside="(x > 0) & (y > 0) & (x + y < 1)",
                parts={"edge 0": _segment((0, 0), (1, 0)), "edge 1": _segment((1, 0), (0, 1)),
                       "edge 2": _segment((0, 1), (0, 0))}, names=("v",)),
        Problem("annulus_log", {"x": (-2, 2), "y": (-2, 2)}, [("u_xx + u_yy", "0")],
                [Con("u", "0", on="inner", sets=(("part", "inner"),)),
                 Con("u", "2*log(2)", on="outer", sets=(("part", "outer"),))],
                {"u": "log(x**2 + y**2)"}, shape="annulus(center=(0, 0), inner=1, outer=2)",
                inside="(x**2 + y**2 > 1) & (x**2 + y**2 < 4)",
                parts={"inner": _circle(0, 0, 1, -1), "outer": _circle(0, 0, 2)}),
        # no real solution: u_x**2 = -1
        Problem("no_real", {"x": (0, 1)}, [("u_x**2 + 1", "0")],
                [Con("u", "0", on="x = 0", sets=(("part", "x = 0"),))], {}),
        # a rim of radius 1e-7 whose data (about 1) differ from the outer square's (about 0)
        Problem("pinhole", {"x": (-1, 1), "y": (-1, 1)}, [("u_xx + u_yy", "0")],
                [Con("u", "exp(-10**12*(x**2 + y**2))", on=DIRICHLET,
                     sets=tuple(("part", f"face {i}") for i in range(4)) + (("part", "rim"),))],
                {}, shape="box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=1e-7)",
                inside="x**2 + y**2 > 10**-14",
                parts={**_square((-1, -1), (1, 1)), "rim": _circle(0, 0, mp.mpf("1e-7"), -1)}),
        # a slit of half-width 1e-8 whose faces carry data (about 0.37) the outer square does not
        Problem("slit", {"x": (-1, 1), "y": (-1, 1)}, [("u_xx + u_yy", "0")],
                [Con("u", "exp(-10**16*y**2)", on=DIRICHLET,
                     sets=tuple(("part", f"face {i}") for i in range(4))
                     + tuple(("part", f"slit {i}") for i in range(4)))],
                {}, shape="box(lo=(-1, -1), hi=(1, 1)) - box(lo=(-0.5, -1e-8), hi=(0.5, 1e-8))",
                inside="(abs(x) > 1/2) | (abs(y) > 10**-8)",
                parts={**_square((-1, -1), (1, 1)),
                       **{k.replace("face", "slit"): v for k, v in
                          _square(("-0.5", "-1e-8"), ("0.5", "1e-8"), sign=-1).items()}}),
    ]
    return {p.name: p for p in [*out, *exact_problems(), *scale_problems()]}
