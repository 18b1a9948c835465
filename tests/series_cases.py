"""The series proof's test problems (tests/fixtures/series) and their textbook series, as text, beside
the red team's wrong series (issue 46, acceptance 3)."""
from __future__ import annotations

from pathlib import Path

import sympy as sp

from desyr.config.reading import problem_from_toml
from desyr.model.problem import Problem
from desyr.symbolic.eigenvalues import EIGENVALUES
from desyr.symbolic.series import series_index

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "series"


def problem(name: str) -> Problem:
    path = FIXTURES / f"{name}.toml"
    return problem_from_toml(path.read_text(encoding="utf-8"), source=str(path), tidy=False)


def answer(p: Problem, text: str) -> sp.Expr:
    """The series as the verifier reads it; where the parser refuses it (today: an angular factor such as
    ``x/sqrt(x**2 + y**2)`` inside a sum, a condition that mixes the index and the variables), as SymPy
    reads it in the problem's symbols, so that the proof itself is tested."""
    try:
        return p.parse(text)
    except Exception:  # noqa: BLE001 - the parser's refusal; the proof is what is tested here
        names: dict[str, object] = {str(v): v for v in p.symbols}
        names.update({k: series_index(k, 1) for k in ("n", "m", "k")}, **EIGENVALUES)
        return sp.sympify(text, locals=names)


DISK = "besselj(0, sqrt(x**2 + y**2)*besseljzero(0, n))*exp(-t*besseljzero(0, n)**2)/(besselj(1, besseljzero(0, n))*besseljzero(0, n)**3)"
DINI_0 = ("2*besselj(0, sqrt(x**2 + y**2)*besseljpzero(0, n))*exp(-t*besseljpzero(0, n)**2)/(besselj(0, besseljpzero(0, n))"
          "*besseljpzero(0, n)**2)")
DINI_1 = ("2*x*besselj(1, sqrt(x**2 + y**2)*besseljpzero(1, n))*exp(-t*besseljpzero(1, n)**2)/((-1 + besseljpzero(1, n)**2)"
          "*sqrt(x**2 + y**2)*besselj(1, besseljpzero(1, n)))")
ROBIN_0 = ("2*(dinizero(0, 2, n)**2 + 2)*exp(-t*dinizero(0, 2, n)**2)*besselj(0, sqrt(x**2 + y**2)*dinizero(0, 2, n))"
           "/((dinizero(0, 2, n)**2 + 4)*besselj(0, dinizero(0, 2, n))*dinizero(0, 2, n)**2)")
ROBIN_2 = "exp(-t*dinizero(2, 2, n)**2)*besselj(2, sqrt(x**2 + y**2)*dinizero(2, 2, n))/(besselj(2, dinizero(2, 2, n))*dinizero(2, 2, n)**2)"
DISK_ROBIN = (f"Sum({ROBIN_0}, (n, 1, oo)) + 8*x*y*Sum({ROBIN_2}, (n, 1, oo))/(x**2 + y**2)"
              f" + 2*(x**2 - y**2)*Sum({ROBIN_2}, (n, 1, oo))/(x**2 + y**2)")
Z = "robinsinhroot(1, -2, 0, 1)"
S = "robinroot(n, -2, 0, 1)"
GROWING = f"2*(4 - {Z}**2)*sinh({Z})*sinh({Z}*x)*exp({Z}**2*t)/({Z}**2*({Z}**2 - 2))"
RISING = f"Sum(2*(sin({S})/{S}**2 - cos({S})/{S})*({S}**2 + 4)*exp(-t*{S}**2)*sin(x*{S})/({S}**2 + 2), (n, 1, oo))"
#: name -> (fixture, the textbook series): each is Proved
TEXTBOOK = {
    "rod": ("rod", "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"),
    "rod_odd_terms": ("rod", "Sum(8/(pi**3*(2*k + 1)**3)*sin((2*k + 1)*pi*x)*exp(-(2*k + 1)**2*pi**2*t), (k, 0, oo))"),
    "laplace_square": ("laplace_square",
                       "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*sinh(n*pi*y)/sinh(n*pi), (n, 1, oo))"),
    "string": ("string", "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*cos(n*pi*t), (n, 1, oo))"),
    "torsion": ("torsion", "Sum(Sum(8*(1 - (-1)**m)*(1 - (-1)**n)/(pi**4*m*n*(m**2 + n**2))*sin(m*pi*x)*sin(n*pi*y), "
                           "(m, 1, oo)), (n, 1, oo))"),
    "neumann_rod": ("neumann_rod", "1/2 + Sum(2*((-1)**n - 1)/(pi**2*n**2)*cos(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"),
    "cold_ends": ("cold_ends", "Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"),
    "ring": ("periodic_ring", "pi**2/3 + Sum(4/n**2*cos(n*x)*exp(-n**2*t), (n, 1, oo))"),
    "robin_rod": ("robin_rod", "Sum(4*sin(robinroot(n, 1, 0, 1))/(robinroot(n, 1, 0, 1)**2 + sin(robinroot(n, 1, 0, 1))**2)"
                               "*sin(robinroot(n, 1, 0, 1)*x)*exp(-robinroot(n, 1, 0, 1)**2*t), (n, 1, oo))"),
    "rod_skewed": ("rod_skewed", "Sum(-4*(2*(-1)**n + 1)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))"),
    "disk_heat": ("disk_heat", f"Sum(8*{DISK}, (n, 1, oo))"),
    "disk_robin": ("disk_robin", DISK_ROBIN),
    "robin_growing": ("robin_growing", f"{GROWING} + {RISING}"),
}

#: the same problems as the series solver writes them (plugins/desyr_sympy, issue 46 item 2): its forms
#: must pass the proof too (the contract, section 5)
SOLVER_FORMS = {
    "robin_rod": ("robin_rod", 'Sum(2*(1 + robinroot(n, 1, 0, 1)**2)*(sin(robinroot(n, 1, 0, 1))/robinroot(n, 1, 0, 1)**2 - cos(robinroot(n, 1, 0, 1))/robinroot(n, 1, 0, 1))*exp(-t*robinroot(n, 1, 0, 1)**2)*sin(x*robinroot(n, 1, 0, 1))/(2 + robinroot(n, 1, 0, 1)**2), (n, 1, oo))'),
    "torsion_single_series": ("torsion", 'x*(1 - x) + Sum((4*(-1 + (-1)**n)*sinh(pi*y*n)/(pi**3*n**3*sinh(pi*n)) + 4*(-1 + (-1)**n)*sinh(pi*n*(1 - y))/(pi**3*n**3*sinh(pi*n)))*sin(pi*x*n), (n, 1, oo))'),
    "disk_neumann_angular_outside": ("disk_neumann", '1/4 + x*Sum(2*besselj(1, sqrt(x**2 + y**2)*besseljpzero(1, n))*exp(-t*besseljpzero(1, n)**2)/((-1 + besseljpzero(1, n)**2)*besselj(1, besseljpzero(1, n))), (n, 1, oo))/sqrt(x**2 + y**2) + (x**2 - y**2)*Sum(2*besselj(2, sqrt(x**2 + y**2)*besseljpzero(2, n))*exp(-t*besseljpzero(2, n)**2)/((-4 + besseljpzero(2, n)**2)*besselj(2, besseljpzero(2, n))), (n, 1, oo))/(x**2 + y**2) + Sum(2*besselj(0, sqrt(x**2 + y**2)*besseljpzero(0, n))*exp(-t*besseljpzero(0, n)**2)/(besselj(0, besseljpzero(0, n))*besseljpzero(0, n)**2), (n, 1, oo))'),
    "cube_heat": ("cube_heat", 'Sum(64*(1 + (-1)**(k + m) + (-1)**(k + n) + (-1)**(m + n) - (-1)**k - (-1)**m - (-1)**n - (-1)**(k + m + n))*exp(t*(-pi**2*k**2 - pi**2*m**2 - pi**2*n**2))*sin(pi*x*n)*sin(pi*y*m)*sin(pi*z*k)/(pi**9*k**3*m**3*n**3), (k, 1, oo), (m, 1, oo), (n, 1, oo))'),
    "heat_source": ("heat_source", 'Sum((-2*(-1)**n*exp(-t)/(pi*n*(1 + pi*n)*(-1 + pi*n)) + 2*(-1)**n*exp(-t*pi**2*n**2)/(pi*n*(1 + pi*n)*(-1 + pi*n)))*sin(pi*x*n), (n, 1, oo))'),
    "damped_string": ("damped_string", 'Sum(4*(1 - (-1)**n)*(sin(t*sqrt(-1/4 + pi**2*n**2))/(2*sqrt(-1/4 + pi**2*n**2)) + cos(t*sqrt(-1/4 + pi**2*n**2)))*exp(-t/2)*sin(pi*x*n)/(pi**3*n**3), (n, 1, oo))'),
}

ROD = "4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t)"
NEUMANN = "2*((-1)**n - 1)/(pi**2*n**2)*cos(n*pi*x)*exp(-n**2*pi**2*t)"

#: name -> (fixture, a wrong series, what the reason must name): none is Proved
WRONG = {
    # a coefficient off in one term: a term outside the sum, exactly on an eigenfunction
    "one_term_off": ("rod", f"Sum({ROD}, (n, 1, oo)) + sin(3*pi*x)*exp(-9*pi**2*t)/100", "expansion coefficients"),
    # ... and far out, where no drawn index looks
    "far_term_off": ("rod", f"Sum({ROD}, (n, 1, oo)) + sin(1001*pi*x)*exp(-1002001*pi**2*t)/10**6",
                     "expansion coefficients"),
    "flipped_sign": ("rod", "Sum(4*(1 + (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
                     "expansion coefficients"),
    "law_factor": ("rod", "Sum(4*(1 - (-1)**n)*(1 + (-1)**n/1000)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), "
                          "(n, 1, oo))", "expansion coefficients"),
    "missing_zero_mode": ("neumann_rod", f"Sum({NEUMANN}, (n, 1, oo))", "cos j = 0"),
    "zero_mode_doubled": ("neumann_rod", f"1 + Sum({NEUMANN}, (n, 1, oo))", "cos j = 0"),
    "wrong_eigenvalue": ("rod", "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x)*exp(-n**2*pi*t), (n, 1, oo))",
                         "the equation"),
    "wrong_spatial_eigenvalue": ("rod", "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*sin(n*pi*x/2)*exp(-n**2*pi**2*t/4), "
                                        "(n, 1, oo))", "not a product of eigenfunctions"),
    "average_only": ("neumann_rod", f"1/2 + Sum(2*{NEUMANN}, (n, 1, oo))", "expansion coefficients"),
    "odd_only_where_even_needed": ("rod_skewed", "Sum(4/(pi**3*(2*k + 1)**3)*sin((2*k + 1)*pi*x)"
                                                 "*exp(-(2*k + 1)**2*pi**2*t), (k, 0, oo))", "sin j = 2*k + 0"),
    "index_shift": ("rod", "Sum(4*(1 + (-1)**n)/(pi**3*(n + 1)**3)*sin(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
                    "expansion coefficients"),
    "pde_but_not_conditions": ("rod", "Sum(4*(1 - (-1)**n)/(pi**3*n**3)*cos(n*pi*x)*exp(-n**2*pi**2*t), (n, 1, oo))",
                               "not a product of eigenfunctions"),
    "conditionally_convergent": ("string_uniform", "Sum(2*(1 - (-1)**n)/(pi*n)*sin(n*pi*x)*cos(n*pi*t), (n, 1, oo))",
                                 "does not converge absolutely"),
    "finite_formula_as_sum": ("rod", "Sum(sin(pi*x)*exp(-pi**2*t)/2**n, (n, 1, oo))", "not a product of eigenfunctions"),
    "undefined_term": ("rod", f"Sum({ROD}*(n - 1002)/(n - 1003), (n, 1, oo))", "undefined at n = 1003"),
    "two_sums_over_one_mode": ("rod", f"Sum({ROD}, (n, 1, oo)) + Sum(sin((2*k + 1)*pi*x)*exp(-(2*k + 1)**2*pi**2*t)"
                                      "/(2*k + 1)**4, (k, 0, oo))", "same eigenfunctions"),
    "robin_coefficient": ("robin_rod", "Sum(4*sin(robinroot(n, 1, 0, 1))/(robinroot(n, 1, 0, 1)**2 + "
                                       "2*sin(robinroot(n, 1, 0, 1))**2)*sin(robinroot(n, 1, 0, 1)*x)"
                                       "*exp(-robinroot(n, 1, 0, 1)**2*t), (n, 1, oo))", "expansion coefficients"),
    "robin_other_roots": ("robin_rod", "Sum(4*sin(robinroot(n, 1, 0, 2))/(robinroot(n, 1, 0, 2)**2 + "
                                       "sin(robinroot(n, 1, 0, 2))**2)*sin(robinroot(n, 1, 0, 2)*x)"
                                       "*exp(-robinroot(n, 1, 0, 2)**2*t), (n, 1, oo))", "not a product of eigenfunctions"),
    "disk_coefficient": ("disk_heat", f"Sum(4*{DISK}, (n, 1, oo))", "expansion coefficients"),
    "disk_missing_mode": ("disk_neumann", f"1/4 + Sum({DINI_0}, (n, 1, oo)) + Sum({DINI_1}, (n, 1, oo))",
                          "angular mode cos(2*theta) has no term"),
    "dini_coefficient": ("disk_robin", DISK_ROBIN.replace("Sum(2*(dinizero", "Sum(4*(dinizero", 1), "expansion coefficients"),
    "dini_other_roots": ("disk_robin", DISK_ROBIN.replace("dinizero(0, 2, n)", "dinizero(0, 1, n)"), "not an eigenfunction"),
    "dini_missing_mode": ("disk_robin", f"Sum({ROBIN_0}, (n, 1, oo)) + 8*x*y*Sum({ROBIN_2}, (n, 1, oo))/(x**2 + y**2)",
                          "angular mode cos(2*theta) has no term"),
    "growing_mode_missing": ("robin_growing", RISING, "growing1 j = 0"),
    "growing_mode_doubled": ("robin_growing", f"2*{GROWING} + {RISING}", "growing1 j = 0"),
    "growing_mode_other_root": ("robin_growing", f"{GROWING.replace('(1, -2, 0, 1)', '(1, -3, 0, 1)')} + {RISING}",
                                "finite part does not meet it"),
    "torsion_coefficient": ("torsion", "Sum(Sum(16*(1 - (-1)**m)*(1 - (-1)**n)/(pi**4*m*n*(m**2 + n**2))*sin(m*pi*x)"
                                       "*sin(n*pi*y), (m, 1, oo)), (n, 1, oo))", "expansion coefficients"),
}
