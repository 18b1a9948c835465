"""The exact method ``separation``: additive and multiplicative separation of one nonlinear equation in two variables.

Polyanin and Zaitsev's generalised separation: put ``u = f(x) + g(y)`` (and ``u = f(x)*g(y)``)
into the equation and ask whether it splits.  The substituted equation ``E`` is divided by a
common factor ``D`` (the part in ``y`` of the coefficient of the top derivative of ``f`` times the
part in ``x`` of that of ``g``, so that each top derivative keeps a coefficient of its own variable),
and ``E/D`` must be a sum ``A(x, f, f'...) + B(y, g, g'...)`` term by term; then ``A = c`` and
``B = -c`` are two ODEs, with the separation constant ``c`` free.  The minimal surface equation
``(1 + u_y**2) u_xx - 2 u_x u_y u_xy + (1 + u_x**2) u_yy = 0`` divided by ``(1 + f'**2)(1 + g'**2)``
is ``f''/(1 + f'**2) + g''/(1 + g'**2) = 0`` (Scherk's ``log(cos(y)/cos(x))``); ``u_t = (exp(u) u_x)_x``
divided by ``exp(g)`` is ``exp(-g) g' = exp(f)(f'' + f'**2)``.  Each ODE is solved by
:mod:`desyr_sympy.shared.lowering` (total derivatives, order reduction, then ``dsolve``); the separation
constant and every integration constant are free for Stage B.  The check that the equation splits
is a substitution and a few cancellations, cheap enough to run in ``applies``.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr_sympy.method import ExactMethod, Solutions
from desyr_sympy.shared import lowering
from desyr_sympy.shared.ansatz import loosen, nonlinear, order, profile
from desyr_sympy.shared.candidates import real_start
from desyr_sympy.shared.forms import jet_symbols, residuals

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: candidates of one ansatz, at most (each ODE may give a few branches)
MAX_CANDIDATES = 4
ANSATZ = ("sum", "product")


class Split:
    """One ansatz put into the equation: the two ODEs ``A = c`` and ``B = -c`` when it separates."""

    def __init__(self, x_part: sp.Expr, y_part: sp.Expr) -> None:
        self.x_part, self.y_part = x_part, y_part


def _substituted(problem: Problem, ansatz: str, x: sp.Symbol, y: sp.Symbol,
                 fs: Sequence[sp.Symbol], gs: Sequence[sp.Symbol]) -> sp.Expr:
    """The equation's residual with ``u = f(x) + g(y)`` (or ``f(x)*g(y)``)."""
    form = fs[0] + gs[0] if ansatz == "sum" else fs[0] * gs[0]
    names = problem.vocabulary.var_symbols
    values = {}
    for symbol, jet in jet_symbols(problem).items():
        expr = form
        for v in jet.wrt:
            expr = _along(expr, names[v], [(x, fs), (y, gs)])
        values[symbol] = expr
    return sp.expand(residuals(problem)[0].xreplace(values), power_exp=True)


def _along(expr: sp.Expr, v: sp.Symbol, parts: Sequence[tuple[sp.Symbol, Sequence[sp.Symbol]]]) -> sp.Expr:
    """d expr / d v, each profile's symbols ``F_k`` standing for the k-th derivative along its variable."""
    out = sp.diff(expr, v)
    for variable, syms in parts:
        if variable == v:
            out += sp.Add(*[sp.diff(expr, syms[k]) * syms[k + 1] for k in range(len(syms) - 1)])
    return out


def _sides(expr: sp.Expr, xs: set[sp.Symbol], ys: set[sp.Symbol]) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Multiplicative parts of ``expr``: (in x alone, in y alone, the rest), numbers dropped."""
    x_side: list[sp.Expr] = []
    y_side: list[sp.Expr] = []
    rest: list[sp.Expr] = []
    for factor in sp.Mul.make_args(sp.factor(expr)):
        for part in sp.Mul.make_args(sp.expand_power_exp(factor)):
            symbols = part.free_symbols
            if not symbols:
                continue
            (x_side if symbols <= xs else y_side if symbols <= ys else rest).append(part)
    return sp.Mul(*x_side), sp.Mul(*y_side), sp.Mul(*rest)


def split(expr: sp.Expr, x: sp.Symbol, y: sp.Symbol, fs: Sequence[sp.Symbol],
          gs: Sequence[sp.Symbol]) -> Split | None:
    """The separated ODEs of ``expr = 0``, or None when it does not split (after the division)."""
    xs, ys = {x, *fs}, {y, *gs}
    n, m = order(expr, fs), order(expr, gs)
    if n < 1 or m < 1:
        return None
    top_f, top_g = sp.diff(expr, fs[n]), sp.diff(expr, gs[m])
    if top_f.has(fs[n]) or top_g.has(gs[m]):
        return None
    divisor = _sides(top_f, xs, ys)[1] * _sides(top_g, xs, ys)[0]
    rest = sp.expand(expr - top_f * fs[n] - top_g * gs[m])
    pieces = [sp.cancel(top_f / divisor) * fs[n], sp.cancel(top_g / divisor) * gs[m],
              *(t / divisor for t in sp.Add.make_args(rest))]
    sums: dict[str, list[sp.Expr]] = {"x": [], "y": [], "mixed": []}
    for piece in pieces:
        piece = sp.powsimp(sp.expand_power_exp(sp.cancel(piece)))
        symbols = piece.free_symbols
        sums["x" if symbols <= xs else "y" if symbols <= ys else "mixed"].append(piece)
    if sums["mixed"] and sp.cancel(sp.powsimp(sp.Add(*sums["mixed"]))) != 0:
        return None
    x_part, y_part = sp.Add(*sums["x"]), sp.Add(*sums["y"])
    if order(x_part, fs) < 1 or order(y_part, gs) < 1:
        return None
    return Split(x_part, y_part)


def _variables(problem: Problem) -> tuple[sp.Symbol, sp.Symbol]:
    x, y = problem.symbols
    return x, y


def _splits(problem: Problem) -> list[tuple[str, Split, list[sp.Symbol], list[sp.Symbol]]]:
    x, y = _variables(problem)
    fs, gs = profile("F"), profile("G")
    out = []
    for ansatz in ANSATZ:
        found = split(_substituted(problem, ansatz, x, y, fs, gs), x, y, fs, gs)
        if found is not None:
            out.append((ansatz, found, fs, gs))
    return out


class Separation(ExactMethod):
    name = "separation"
    summary = "one nonlinear equation in two variables: additive and multiplicative separation of variables"
    problems = "one nonlinear equation for one field in two variables (`x, y` or `x, t`)"
    proposes = ("Polyanin-Zaitsev's additive and multiplicative separation: `u = f(x) + g(y)`, then `u = f(x)*g(y)`, "
                "put into the equation, which is divided by a common factor (the part in `y` of the coefficient of "
                "`f`'s top derivative times the part in `x` of that of `g`'s) and must then be a sum `A(x, f, f'...) "
                "+ B(y, g, g'...)` term by term: `A = c`, `B = -c`, `c` a positive separation constant with both "
                "signs tried. Each ODE is lowered before any `dsolve`: a total derivative is integrated "
                "(`exp(f)*(f'' + f'**2) = (exp(f))''`), an ODE without `f` itself is one order lower in `f'`, `f' = "
                "h(f)` is a quadrature, order 0 is solved algebraically (manual integration first: `-log(cos(c*x + "
                "C1))/c`, not `log(tan(...)**2 + 1)/(2*c)`). Logarithms with one coefficient are joined; the "
                "constants start at values that keep the candidate real and without a pole on the domain's box (a "
                "seed, its negative or a quarter of either; Stage B would screen out `log(-C1*x - C2)`). Scherk's "
                "`log(cos(y)/cos(x))` (Proved) and `u_t = (exp(u) u_x)_x`'s `log((x + 2)**2/(4 - 2*t))` (Verified). "
                "The check that an ansatz separates runs in the parent (a substitution and a few cancellations)")
    reduction = True

    def applies(self, problem: Problem) -> str:
        if problem.dim != 2 or len(problem.fields) != 1 or len(problem.equations) != 1:
            return "not one equation for one field in two variables"
        if not nonlinear(problem):
            return "linear: the separable solver's"
        return "" if _splits(problem) else "neither u = f + g nor u = f*g separates the equation"

    def solve(self, problem: Problem) -> Solutions:
        x, y = _variables(problem)
        field = problem.fields[0]
        # positive, with both signs tried: the integrals take their real forms (tan for one sign, tanh for the other)
        c = sp.Symbol("c_sep", positive=True)
        out: list[dict[str, sp.Expr]] = []
        for (ansatz, found, fs, gs), sign in itertools.product(_splits(problem), (1, -1)):
            constants = lowering.Constants()
            f_sols = lowering.solve(found.x_part - sign * c, fs, x, constants)
            g_sols = lowering.solve(found.y_part + sign * c, gs, y, constants) if f_sols else []
            for f, g in itertools.islice(itertools.product(f_sols, g_sols), MAX_CANDIDATES - len(out)):
                joined = _one_log(_one_offset(f + g)) if ansatz == "sum" else _one_scale(f * g)
                loose = loosen({field: joined}, [c] if joined.has(c) else [])[field]
                out.append({field: real_start(loose, problem)})
        if not out:
            raise NotImplementedError("the separated ODEs have no explicit solution")
        return out


def _one_offset(expr: sp.Expr) -> sp.Expr:
    """``f + g`` with one additive constant of the two (``C2 + C4`` is one parameter for the refit)."""
    lone = [t for t in sp.Add.make_args(expr) if isinstance(t, sp.Symbol) and t.name.startswith("C")]
    return expr.xreplace({t: 0 for t in lone[1:]}) if len(lone) > 1 else expr


def _one_log(expr: sp.Expr) -> sp.Expr:
    """Logarithms with the same coefficient (up to its sign) as one: ``log(cos(y)/cos(x))``, the form
    the verifier compares with data written as one logarithm (its arguments are real where it starts)."""
    groups: dict[sp.Expr, sp.Expr] = {}
    rest = []
    for term in sp.Add.make_args(expr):
        coefficient, logs = term.as_independent(sp.log, as_Add=False)
        if isinstance(logs, sp.log):
            sign = -1 if coefficient.could_extract_minus_sign() else 1
            key = sign * coefficient
            groups[key] = groups.get(key, sp.Integer(1)) * logs.args[0] ** sign
        else:
            rest.append(term)
    return sp.Add(*rest, *(c * sp.log(sp.together(arg)) for c, arg in groups.items()))


def _one_scale(expr: sp.Expr) -> sp.Expr:
    """``f*g`` with one constant factor of the two."""
    lone = [t for t in sp.Mul.make_args(expr) if isinstance(t, sp.Symbol) and t.name.startswith("C")]
    return expr.xreplace({t: 1 for t in lone[1:]}) if len(lone) > 1 else expr
