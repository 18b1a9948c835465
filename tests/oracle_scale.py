"""The oracle's problems and candidates for issue 44's categories: a problem's scale, the point counts a
config asks for, high derivative orders, values a double cannot hold, and terms doubles round away (red
teams 44c to 44e; the oracle's 50 digits see each of them).

Plain data, as :mod:`tests.oracle_problems`; each problem is drawn only in its own category (its ``kind``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from tests.oracle_model import Con, Problem

#: the sizes a problem is written at
SCALES = ("10**-9", "10**-3", "10**3", "10**9")
ENDS = (("part", "x = 0"), ("part", "x = 1"))
KINDS = ("scale", "points", "order", "overflow", "absorbed")


def _dirichlet(operator: str = "u", value: str = "0") -> Con:
    return Con(operator, value, on=["x = 0", "x = 1"], sets=ENDS)


def _derivative(text: str, n: int) -> str:
    x = sp.Symbol("x", real=True)
    return str(sp.diff(sp.sympify(text, locals={"x": x}), x, n))


def scale_problems() -> list[Problem]:
    out = []
    for k, s in enumerate(SCALES):
        # the whole problem written at s (the before-stop hook's 1e-9*(u_xx + pi**2*sin(pi*x)))
        out.append(Problem(f"written_{k}", {"x": (0, 1)}, [(f"{s}*u_xx", f"-{s}*pi**2*sin(pi*x)")],
                           [_dirichlet(f"{s}*u")], {"u": "sin(pi*x)"}, kind="scale"))
        # the solution at s, the equation homogeneous: its scale comes from the initial data
        out.append(Problem(f"sized_{k}", {"x": (0, 1), "t": (0, 1)}, [("u_t - u_xx", "0")],
                           [_dirichlet(), Con("u", f"{s}*sin(pi*x)", on="t = 0", sets=(("fix", {"t": 0}),))],
                           {"u": f"{s}*exp(-pi**2*t)*sin(pi*x)"}, time="t", kind="scale"))
    out += [
        # round-off of terms of 1e10 (issue 44: refused before the proof was tried)
        Problem("large_terms", {"x": (0, 1)}, [("u_xx", "2*10**10*cos(2*x)")],
                [Con("u", "0", on="x = 0", sets=(ENDS[0],)), Con("u", "10**10*sin(1)**2", on="x = 1", sets=(ENDS[1],))],
                {"u": "10**10*sin(x)**2"}, kind="scale"),
        # periodic, so any constant may be added: a large one must not hide a formula that is not periodic
        Problem("periodic_free", {"x": (0, 1)}, [("u_xx", "-4*pi**2*cos(2*pi*x)")],
                [Con("u", "", on="x = 0", sets=(ENDS[0],), periodic=("x = 1", "x", 1, 0)),
                 Con("u_x", "", on="x = 0", sets=(ENDS[0],), periodic=("x = 1", "x", 1, 0))],
                {"u": "cos(2*pi*x)"}, kind="scale"),
        # the config asks for one point: the verifier's floor decides
        Problem("one_point", {"x": (0, 1)}, [("u_xx", "-pi**2*sin(pi*x)")], [_dirichlet()], {"u": "sin(pi*x)"},
                kind="points", points={"verify": 1, "constraint": 1}),
        Problem("one_point_2d", {"x": (0, 1), "y": (0, 1)}, [("u_xx + u_yy", "0")],
                [Con("u", "exp(x)*sin(y)", on="boundary",
                     sets=tuple(("part", f) for f in ("x = 0", "x = 1", "y = 0", "y = 1")))],
                {"u": "exp(x)*sin(y)"}, kind="points", points={"verify": 2, "constraint": 1}),
        # values a double cannot hold (issue 44: exp(800 - 1000*x) refused, exp(1000*x) Proved)
        Problem("overflow_down", {"x": (0, 1)}, [("u_x + 1000*u", "0")],
                [Con("u", "exp(800)", on="x = 0", sets=(ENDS[0],))], {"u": "exp(800 - 1000*x)"}, kind="overflow"),
        Problem("overflow_up", {"x": (0, 1)}, [("u_x - 1000*u", "0")],
                [Con("u", "1", on="x = 0", sets=(ENDS[0],))], {"u": "exp(1000*x)"}, kind="overflow"),
    ]
    out += [Problem("absorbed_rod", {"x": (0, 1)}, [("u_xx", "-pi**2*sin(pi*x)")], [_dirichlet()],
                    {"u": "sin(pi*x)"}, kind="absorbed"),
            Problem("absorbed_heat", {"x": (0, 1), "t": (0, 1)}, [("u_t - u_xx", "0")],
                    [_dirichlet(), Con("u", "sin(pi*x)", on="t = 0", sets=(("fix", {"t": 0}),))],
                    {"u": "exp(-pi**2*t)*sin(pi*x)"}, time="t", kind="absorbed")]
    truth = "sin(x) + exp(x/2)"
    for n in (8, 10, 14):
        out.append(Problem(f"order_{n}", {"x": (0, 1)}, [("u_" + "x" * n, _derivative(truth, n))],
                           [Con("u", "1", on="x = 0", sets=(ENDS[0],)),
                            Con("u", "sin(1) + exp(1/2)", on="x = 1", sets=(ENDS[1],))],
                           {"u": truth}, kind="order"))
    out.append(Problem("order_mixed", {"x": (0, 1), "y": (0, 1)}, [("u_xxxxyyyy + u_xxxxxxxx", "2*sin(x + y)")],
                       [Con("u", "sin(x + y)", on="boundary",
                            sets=tuple(("part", f) for f in ("x = 0", "x = 1", "y = 0", "y = 1")))],
                       {"u": "sin(x + y)"}, kind="order"))
    return out


def old_point(seed: int = 0) -> float:
    """The one interior point a config's ``verify = 1`` gave before the verifier owned its points: a
    fixed function of the seed (stream 201, a Latin hypercube of one point), in numpy alone."""
    rng = np.random.default_rng([seed, 201])
    stratum = rng.permutation(1)[0]
    return float((stratum + rng.random((1, 1))[0, 0]) / 1)


def attacks(p: Problem) -> list[str]:
    """Formulas aimed at ``p``: issue 44's false verdicts and their kin (each wrong unless said)."""
    s = p.name.rsplit("_", 1)[-1]
    size = SCALES[int(s)] if s.isdigit() and int(s) < len(SCALES) else "1"
    # x*(1 - x)*(x - a) is 0 on the boundary and its second derivative 2 + 2*a - 6*x is 0 at x0 alone
    a = repr(3 * old_point() - 1)
    if p.name == "one_point_2d":
        return ["exp(x)*sin(y) + x*(1 - x)*y*(1 - y)", f"exp(x)*sin(y) + 1000*x*(1 - x)*(x - {a})*y*(1 - y)"]
    return {
        "written": ["3", "0", f"3*{size}", f"sin(pi*x) + {size}*x*(1 - x)"],
        "sized": ["0", f"{size}*sin(pi*x)", f"3*{size}", f"{size}*exp(-9*t)*sin(pi*x)"],
        "large": ["10**10*sin(x)**2*(1 + 10**-12)", "10**10*sin(x)**2 + x*(1 - x)", "10**10*sin(x)**2 + 1"],
        "periodic": ["cos(2*pi*x) + x/1000 + 10**10", "cos(2*pi*x) + 0.001*x + 1e10", "cos(2*pi*x) + x**2/1000 + 10**12",
                     "cos(2*pi*x) + 10**10"],                                   # the last is a solution
        "one": [f"sin(pi*x) + 1000*x*(1 - x)*(x - {a})", f"sin(pi*x) + x*(1 - x)*(x - {a})"],
        "overflow": [f"({p.truth['u']})*(1 + 10**-12)", f"({p.truth['u']})*(1 + 10**-6)", f"{p.truth['u']} + 1",
                     "exp(799 - 1000*x)", "exp(999*x)"],
        # 1000*x, 950*x, 900*x, 35*x-ish, 1000*x: doubles round each to 0 (none has a summand they round away but
        # the first), and each is 0 at x = 0 but not on x = 1 or at t = 0
        "absorbed": [f"{p.truth['u']} + 10**20*log(1 + x/10**17)", f"{p.truth['u']} + exp(46)*(exp(x/10**17) - 1)",
                     f"{p.truth['u']} + exp(46)*(x**(1/10**17) - 1)", f"{p.truth['u']} + exp(80)*(tanh(40) - tanh(40 - x))",
                     f"{p.truth['u']} + 1000*exp(46 + x/10**20)*log(1 + x*exp(-46 - x/10**20))"],
        "order": [f"{p.truth['u']} + 10**12", f"{p.truth['u']} + x**5/10**6", f"({p.truth['u']})*(1 + 10**-9*x)"],
    }[p.name.split("_", 1)[0]]


@st.composite
def scale_candidates(draw, p: Problem) -> dict[str, str]:
    """A formula for ``p``: an attack aimed at it (most often), its solution, the solution a little off
    (relative to its size), a wrong constant, the solution plus a huge part the equation does not see."""
    truth = p.truth["u"]
    if p.kind == "absorbed":        # each attack is a different way of rounding away: try them, not the rest
        return {"u": draw(st.sampled_from([*attacks(p), truth]))}
    choice = draw(st.sampled_from(["attack", "attack", "attack", "truth", "relative", "constant", "null"]))
    if choice == "attack":
        return {"u": draw(st.sampled_from(attacks(p)))}
    if choice == "truth":
        return {"u": truth}
    if choice == "relative":
        d = draw(st.sampled_from(["10**-13", "10**-9", "10**-6", "10**-3"]))
        return {"u": draw(st.sampled_from([f"({truth})*(1 + {d})", f"({truth})*(1 + {d}*x)", f"{truth} + {d}*x*(1 - x)"]))}
    if choice == "constant":
        return {"u": draw(st.sampled_from(["0", "3", "-1", *(f"3*{s}" for s in SCALES)]))}
    big = draw(st.sampled_from(["10**6", "10**12", "10**20"]))
    off = draw(st.sampled_from(["0", "x/1000", "x**2/10**6"]))
    return {"u": f"{truth} + {off} + {big}"}
