"""What the solvers read from a problem: equations as SymPy derivatives, linear parts, data.

A :class:`~desyr.plugin.Problem` writes derivatives as jet symbols (``u_xx``);
``dsolve`` and ``pdsolve`` want ``Derivative(u(x, t), x, x)``.  The helpers here
translate between the two and split linear equations into operator and forcing,
reading only the problem's public attributes.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr.plugin import BESSEL_CLASSES, SPECIAL_CLASSES, EigenvalueFunction, Face, bessel_order

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: functions the config parser accepts, the special ones (erf, airyai, besselj... of
#: desyr.symbolic.special) included; a candidate using another one (erfi, LambertW, hyper...)
#: could not be written back as a config or a --candidate string
ALLOWED_FUNCTIONS = (sp.sin, sp.cos, sp.tan, sp.exp, sp.log, sp.tanh, sp.sinh, sp.cosh,
                     sp.asin, sp.acos, sp.atan, sp.Abs, *SPECIAL_CLASSES, EigenvalueFunction)


class Coordinates:
    """The problem as the solvers read it: the parameters of a family (``[parameters]``) and the
    unknown coefficients (``[unknowns]``) are constants of the equations, not variables, so
    ``u_xx + k**2*u`` is an ODE in ``x`` whose solution keeps ``k`` symbolic (the refit then
    fits an unknown to the observations).  Everything else is the problem's own."""

    def __init__(self, problem: Problem) -> None:
        self._problem = problem
        keep = [i for i, v in enumerate(problem.variable_names) if v not in problem.parameters]
        self.variables = [problem.variables[i] for i in keep]
        self.variable_names = [problem.variable_names[i] for i in keep]
        self.symbols = [problem.symbols[i] for i in keep]
        self.bounds = problem.bounds[keep]
        self.dim = len(keep)
        names = set(problem.parameters)
        unknowns = [problem.unknown_symbol(n) for n in problem.unknown_names]
        self.constants = {s for s in problem.symbols if s.name in names} | set(unknowns)
        lows = {v.name: float(v.lo) for v in problem.variables} | {u.name: float(u.lo) for u in problem.unknowns}
        self._positive = {s: sp.Symbol(s.name, positive=True) for s in self.constants if lows[s.name] > 0}

    def positive(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` with each constant of a positive range as a positive symbol, for dsolve: with
        ``a > 0`` known, ``u' = -a*v, v' = u`` is solved with cos(sqrt(a)*t), not exp(I*sqrt(a)*t)."""
        return expr.xreplace(self._positive) if self._positive else expr

    def tidy(self, expr: sp.Expr) -> sp.Expr:
        """``sin(x*Abs(k))`` -> ``sin(k*x)`` where the range of ``k`` is positive."""
        if not self._positive:
            return expr
        back = {p: s for s, p in self._positive.items()}
        return expr.xreplace(self._positive).xreplace(back)

    def __getattr__(self, name: str) -> Any:
        if name == "_problem":      # a copy being rebuilt (unpickled in a fresh child) has none yet
            raise AttributeError(name)
        return getattr(self._problem, name)


def coordinates(problem: Problem) -> Coordinates:
    return problem if isinstance(problem, Coordinates) else Coordinates(problem)


def constants_of(problem: Problem) -> set[sp.Symbol]:
    """The symbols of the parameters and unknowns (constants of the equations), none for a plain problem."""
    return set(getattr(problem, "constants", ()))


def jet_symbols(problem: Problem) -> dict[sp.Symbol, Any]:
    """Every jet symbol in the equations and constraints -> its Jet (field, wrt)."""
    return {problem.jet_symbol(j): j for j in problem.jets()}


def field_functions(problem: Problem) -> dict[str, sp.Expr]:
    """Each field as an applied function of all variables, ``u(x, t)``.

    The prefix keeps a field named ``F`` or ``T`` apart from pdsolve's arbitrary
    function ``F`` and from the factor ``T`` of a separation.
    """
    return {f: sp.Function(f"field_{f}")(*problem.symbols) for f in problem.fields}


def to_derivatives(expr: sp.Expr, problem: Problem, functions: dict[str, sp.Expr]) -> sp.Expr:
    """Jets in ``expr`` -> derivatives of the applied field functions."""
    subs = {}
    for sym, jet in jet_symbols(problem).items():
        if sym in expr.free_symbols:
            base = functions[jet.field]
            wrt = [problem.vocabulary.var_symbols[v] for v in jet.wrt]
            subs[sym] = sp.Derivative(base, *wrt) if wrt else base
    return expr.xreplace(subs)


def rational(expr: sp.Expr) -> sp.Expr:
    """Floats -> exact rationals (``0.05`` -> ``1/20``): SymPy's solvers work far better on exact input."""
    floats = expr.atoms(sp.Float)
    return expr.xreplace({f: sp.nsimplify(f, rational=True) for f in floats}) if floats else expr


def exact_number(value: float) -> sp.Expr:
    """A face coordinate as an exact number: 0.5 -> 1/2, 3.14159... -> pi (``Face.fixed`` holds floats, as the
    config's numbers were read: ``x = pi`` is ``("x", 3.141592653589793)``)."""
    guess = sp.nsimplify(value, [sp.pi], tolerance=1e-12)
    return guess if guess.is_real and abs(float(guess) - value) <= 1e-12 * max(1.0, abs(value)) else sp.Rational(value)


def residuals(problem: Problem) -> list[sp.Expr]:
    """Each equation as ``lhs - forcing``, floats made exact, written over the problem's jet symbols (``u``,
    ``u_x``, ``u_xx``: plain symbols, not SymPy derivatives; :func:`to_derivatives` makes them
    ``Derivative(field_u(x, t), x, x)``) and its variables (``problem.symbols``)."""
    return [rational(eq.residual) for eq in problem.equations]


@dataclass
class Linear:
    """``residual = sum(coefficient * jet) - forcing`` (a residual linear in the jets)."""

    coefficients: dict[sp.Symbol, sp.Expr]
    forcing: sp.Expr

    def operator(self) -> sp.Expr:
        return sp.Add(*[c * j for j, c in self.coefficients.items()])

    def constant_coefficients(self, variables: Iterable[sp.Symbol]) -> bool:
        return all(not (c.free_symbols & set(variables)) for c in self.coefficients.values())


def split_linear(residual: sp.Expr, jets: Iterable[sp.Symbol]) -> Linear | None:
    """The linear split of ``residual`` in ``jets``, or None when it is not linear."""
    jets = [j for j in jets if j in residual.free_symbols]
    coefficients = {}
    for j in jets:
        c = sp.diff(residual, j)
        if c.free_symbols & set(jets):
            return None
        coefficients[j] = c
    forcing = -residual.xreplace({j: 0 for j in jets})
    rebuilt = sp.Add(*[c * j for j, c in coefficients.items()]) - forcing
    # a jet inside a nonlinear function (sin(u)) passes the derivative test at points; this does not
    if sp.expand(rebuilt - residual) != 0:
        return None
    return Linear(coefficients, sp.expand(forcing))


def linear_equation(problem: Problem) -> Linear:
    """The single equation's linear split; for solvers whose check has already said it is linear."""
    linear = split_linear(residuals(problem)[0], jet_symbols(problem))
    if linear is None:
        raise NotImplementedError("the equation is not linear in the field")
    return linear


@dataclass
class Data:
    """A constraint on a set that fixes one variable: ``operator = value`` where ``variable = at``; ``operator``
    is a jet symbol (``u``, ``u_x``), ``at`` the face's float made exact (:func:`exact_number`)."""

    operator: sp.Expr
    value: sp.Expr
    variable: sp.Symbol
    at: sp.Expr


def slice_data(problem: Problem) -> Iterator[Data]:
    """Constraints given on faces that fix exactly one variable (initial slices, walls)."""
    symbols = problem.vocabulary.var_symbols
    for c in problem.constraints:
        if c.kind != "pointwise":
            continue
        for face in c.faces:
            if isinstance(face, Face) and len(face.fixed) == 1 and problem.dim > 1:
                name, at = face.fixed[0]
                where = exact_number(at)
                # a value derived from the reference is a function of every variable: take it on the line
                yield Data(c.operator, rational(c.value).subs(symbols[name], where), symbols[name], where)


def initial_data(problem: Problem) -> list[Data]:
    """The field's own values on slices of fixed time that vary in space."""
    if problem.time is None:
        return []
    jet = problem.vocabulary.parse_jet(problem.fields[0])
    assert jet is not None      # a field's own name is always a jet
    field_symbol = problem.jet_symbol(jet)
    t = problem.vocabulary.var_symbols[problem.time]
    return [d for d in slice_data(problem)
            if d.variable == t and d.operator == field_symbol and d.value.free_symbols - {t}]


@dataclass
class PointCondition:
    """A condition at a point of a 1-D problem: ``jet(at) = value``."""

    field: str
    order: int
    at: sp.Expr
    value: sp.Expr


def point_conditions(problem: Problem) -> list[PointCondition] | None:
    """Every constraint of a 1-D problem as a plain point value, or None if one is not
    (a Robin condition ``u_x + u``, a scaled jet, a value that is not a number)."""
    jets = jet_symbols(problem)
    out = []
    for c in problem.constraints:
        jet = jets.get(c.operator)
        if jet is None or c.kind != "pointwise":
            return None
        for face in c.faces:
            if not isinstance(face, Face) or len(face.fixed) != problem.dim:
                return None
            at = exact_number(face.fixed[0][1])
            value = rational(c.value).subs(problem.symbols[0], at)   # "reference" data is a function
            if value.free_symbols - constants_of(problem):
                return None
            out.append(PointCondition(jet.field, len(jet.wrt), at, value))
    return out


def outside_vocabulary(expr: sp.Expr) -> set[str]:
    """Names of functions (and the imaginary unit) a candidate may not contain."""
    bad = {type(f).__name__ for f in expr.atoms(sp.Function) if not _readable(f)}
    bad |= {"Integral" for _ in expr.atoms(sp.Integral)}
    if expr.has(sp.I):
        bad.add("I")
    # a series' upper limit oo is no infinity in its value
    finite = expr.replace(lambda e: isinstance(e, sp.Sum), lambda e: e.function) if expr.has(sp.Sum) else expr
    if finite.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        bad.add("infinity")
    return bad


def _readable(call: sp.Basic) -> bool:
    """Whether the parser reads ``call``: an allowed function, a Bessel function of a constant integer
    or half-integer order only (dsolve's ``besselj(sqrt(2), x)`` is not one)."""
    if not isinstance(call, ALLOWED_FUNCTIONS):
        return False
    if isinstance(call, BESSEL_CLASSES):
        try:
            bessel_order(call.args[0])
        except ValueError:
            return False
    return True


def terms(expr: sp.Expr) -> list[sp.Expr]:
    return list(sp.Add.make_args(sp.expand(expr)))


def shape(term: sp.Expr, variables: Iterable[sp.Symbol]) -> sp.Expr:
    """A term without its constant factors: ``-2*pi*sin(pi*x)`` -> ``sin(pi*x)`` (a parameter's
    factor is kept: it is part of the data, not a free amplitude)."""
    keep = [f for f in sp.Mul.make_args(term) if f.free_symbols & set(variables)]
    return sp.Mul(*keep)
