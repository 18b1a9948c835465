"""The method of undetermined coefficients (:mod:`desyr_sympy.methods.undetermined`): a trial basis built from
a source's own functions and the data's, the exact linear system that fits a combination of it to the
source, and the constants matched to data given on faces.  ``linearise`` uses it for the linear equation
its substitution gives.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import sympy as sp

from desyr.plugin import Face
from desyr_sympy.shared.forms import (
    ALLOWED_FUNCTIONS,
)

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem

#: at most this many basis functions (unknown coefficients), so that the exact linear algebra stays
#: well inside the solver's time limit (about a second for 40 on one core)
MAX_BASIS = 40
#: at most this many kernels (non-polynomial factors): the source's first, then antiderivatives, then derivatives
MAX_KERNELS = 8
#: the highest total degree of a monomial in the basis: a source of degree d needs d plus the operator's
#: order (SSDE's Jin-1, ``30*x**2 - 7.8*x + 1`` under the Laplacian, needs 4); a degree that would pass
#: :data:`MAX_BASIS` is lowered until it fits, to :data:`MIN_DEGREE` at least (the degree of the
#: monomials that multiply a kernel, ``x**3*exp(x)``, stays at that)
MAX_DEGREE = 6
MIN_DEGREE = 3
#: at most this many homogeneous solutions in the second candidate (each a free constant for Stage B)
MAX_FREE = 10
#: outer functions whose antiderivatives SymPy gives at once (a power of ``z`` included)
_INTEGRABLE = (sp.exp, sp.log, sp.sin, sp.cos, sp.sinh, sp.cosh)






def solutions(apply: Callable[[sp.Expr], sp.Expr], source: sp.Expr, variables: list[sp.Symbol], order: int,
              data: Sequence[sp.Expr] = ()) -> tuple[sp.Expr, list[sp.Expr]]:
    """A particular solution of ``apply(u) = source`` in the basis of the source's and the data's functions,
    and the independent homogeneous solutions the basis holds; NotImplementedError when none solves it."""
    basis = trial_basis(source, variables, order, data)
    if not basis:
        raise NotImplementedError("no basis from the source and the data")
    solution = fit([apply(b) for b in basis], source, variables)
    if solution is None:
        raise NotImplementedError(f"no combination of {len(basis)} functions of the source solves the equation")
    coefficients, free = solution
    particular = sp.Add(*[c.xreplace({p: 0 for p in free}) * b for c, b in zip(coefficients, basis)])
    homogeneous = independent([sp.Add(*[sp.diff(c, p) * b for c, b in zip(coefficients, basis)]) for p in free],
                              variables)
    return particular, homogeneous


def match(residuals: list[sp.Expr] | None, constants: list[sp.Symbol],
          variables: list[sp.Symbol]) -> dict[sp.Symbol, sp.Expr] | None:
    """Values of ``constants`` that make every residual, linear in them, vanish identically in
    ``variables``, in terms of those the data leave free; None where none do.  A marker symbol per
    residual keeps their equations apart in one system."""
    if not residuals:
        return None
    markers = list(sp.symbols(f"face0:{len(residuals)}", cls=sp.Dummy))
    zero = {c: 0 for c in constants}
    images = [sp.Add(*[m * sp.diff(r, c) for m, r in zip(markers, residuals)]) for c in constants]
    found = fit(images, -sp.Add(*[m * r.xreplace(zero) for m, r in zip(markers, residuals)]), [*variables, *markers])
    if found is None:
        return None
    values, free = found
    names = dict(zip(_unknowns(len(constants)), constants))
    return {c: v.xreplace({p: names[p] for p in free}) for c, v in zip(constants, values)}


#: fractions of a face's free sides where the data are checked (golden-ratio steps: off lattices and zeros)
_FRACTIONS = (0.2360679774997897, 0.6180339887498949, 0.8541019662496845)


def meets_data(problem: Problem, solution: dict[str, sp.Expr]) -> bool:
    """Whether ``solution`` meets every constraint at three points of each of its faces; False for a
    constraint on another set (a shape's boundary), periodic or integral, or one that does not evaluate
    to a number (a family's parameter), so that the homogeneous part stays offered there."""
    symbols = problem.vocabulary.var_symbols
    boxes = list(zip(problem.symbols, problem.bounds))
    for con in problem.constraints:
        faces = [face for face in con.faces if isinstance(face, Face)]
        if con.kind != "pointwise" or len(faces) != len(con.faces):
            return False
        residual = problem.constraint_residual(con, solution)
        for face in faces:
            fixed = {symbols[name]: sp.Float(at) for name, at in face.fixed}
            for k in range(len(_FRACTIONS)):
                point = {v: fixed.get(v, lo + (hi - lo) * _FRACTIONS[(k + j) % len(_FRACTIONS)])
                         for j, (v, (lo, hi)) in enumerate(boxes)}
                try:
                    value = complex(residual.xreplace(point).evalf())
                except (TypeError, ValueError, ZeroDivisionError):
                    return False
                if not abs(value) < 1e-9:
                    return False
    return True


# ------------------------------------------------------------------------------------------ the basis
def split(term: sp.Expr, variables: list[sp.Symbol]) -> tuple[sp.Expr, sp.Expr]:
    """``term`` -> (its monomial in ``variables``, its kernel: the other factors that hold a variable,
    without numeric factors; a denominator factored)."""
    own = set(variables)
    numer, denom = term.as_numer_denom()
    monomial: list[sp.Expr] = []
    kernel: list[sp.Expr] = []
    for f in sp.Mul.make_args(numer):
        if f.free_symbols & own:
            (monomial if _is_monomial(f, own) else kernel).append(f)
    if denom.free_symbols & own:
        for base, e in sp.factor_list(denom)[1]:
            if base.free_symbols & own:
                kernel.append(base ** -e)
    return sp.Mul(*monomial), sp.Mul(*kernel)


def _is_monomial(f: sp.Expr, own: set[sp.Symbol]) -> bool:
    base, e = f.as_base_exp()
    return base in own and e.is_Integer and e > 0


def _kernels_of(expr: sp.Expr, variables: list[sp.Symbol]) -> dict[sp.Expr, set[sp.Expr]]:
    """Each kernel of ``expr``'s terms -> the monomials it comes with."""
    out: dict[sp.Expr, set[sp.Expr]] = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        monomial, kernel = split(term, variables)
        out.setdefault(kernel, set()).add(monomial)
    return out


def _antiderivatives(kernel: sp.Expr, variables: list[sp.Symbol], order: int) -> list[sp.Expr]:
    """``kernel`` with one factor ``g(z)`` replaced by its antiderivatives in ``z``, up to ``order`` times:
    ``g`` an elementary function of its argument, or a power of a polynomial (``1/x**2``, ``(1 + x**2)**-2``)."""
    z = sp.Dummy("z")
    out = []
    for factor in sp.Mul.make_args(kernel):
        base, e = factor.as_base_exp()
        if isinstance(factor, _INTEGRABLE) and len(factor.args) == 1:
            inner, outer = factor.args[0], factor.func(z)
        elif e.is_Rational and base.free_symbols & set(variables) and base.is_polynomial(*variables):
            inner, outer = base, z ** e
        else:
            continue
        rest = kernel / factor
        for _ in range(order):
            outer = sp.integrate(outer, z, manual=True)
            if outer.has(sp.Integral) or any(not isinstance(f, ALLOWED_FUNCTIONS) for f in outer.atoms(sp.Function)):
                break
            out.append(rest * outer.xreplace({z: inner}))
    return out


def _monomials(variables: list[sp.Symbol], degree: int) -> list[sp.Expr]:
    return [sp.Mul(*m) for d in range(degree + 1) for m in itertools.combinations_with_replacement(variables, d)]


def _multipliers(seen: Iterable[sp.Expr], variables: list[sp.Symbol], extra: int) -> list[sp.Expr]:
    """The monomials that divide one of ``seen``, times at most ``extra`` variables more."""
    found: set[sp.Expr] = set()
    for m in seen:
        powers = sp.Poly(m, *variables).monoms()[0] if m != 1 else (0,) * len(variables)
        for exponents in itertools.product(*(range(min(p, MIN_DEGREE) + 1) for p in powers)):
            found.add(sp.Mul(*[v**k for v, k in zip(variables, exponents)]))
    for _ in range(extra):
        found |= {m * v for m in found for v in variables}
    return sorted((m for m in found if sp.Poly(m, *variables).total_degree() <= MIN_DEGREE), key=sp.default_sort_key)


def trial_basis(source: sp.Expr, variables: list[sp.Symbol], order: int,
                data: Sequence[sp.Expr] = ()) -> list[sp.Expr]:
    """The functions ``u`` is sought in (see the module's docstring), at most :data:`MAX_BASIS`; empty
    when even the smallest choice is larger."""
    found = _kernels_of(source, variables)
    polynomial = found.pop(sp.Integer(1), set())
    kernels: dict[sp.Expr, set[sp.Expr]] = dict(found)
    for kernel, monomials in found.items():
        for anti in _antiderivatives(kernel, variables, order):
            for k, ms in _kernels_of(anti, variables).items():
                kernels.setdefault(k, set()).update(monomials if k != 1 else ms)
    # the data's polynomial part sets the degree as the source's does, less the operator's order
    shown: dict[sp.Expr, set[sp.Expr]] = {}
    for value in data:
        for k, ms in _kernels_of(value, variables).items():
            shown.setdefault(k, set()).update(ms)
    data_degree = max((sp.Poly(m, *variables).total_degree() for m in shown.pop(sp.Integer(1), set())), default=0)
    for k, ms in shown.items():
        kernels.setdefault(k, set()).update(ms)
    frontier = list(kernels)
    for _ in range(min(order, 2)):
        frontier = [k for parent in frontier for v in variables
                    for k in _kernels_of(sp.diff(parent, v), variables) if k not in kernels and k != 1]
        for k in frontier:
            kernels.setdefault(k, set()).add(sp.Integer(1))
    chosen = list(kernels.items())[:MAX_KERNELS]
    needed = min(max(max((sp.Poly(m, *variables).total_degree() for m in polynomial), default=0) + order,
                     data_degree), MAX_DEGREE)
    for degree in range(needed, min(needed, MIN_DEGREE) - 1, -1):
        for extra in (1, 0):
            basis = _monomials(variables, degree)
            basis += [m * k for k, ms in chosen for m in _multipliers(ms, variables, extra)]
            basis = list(dict.fromkeys(basis))
            if len(basis) <= MAX_BASIS:
                return basis
    return []


# ------------------------------------------------------------------------------------ the linear system
@functools.cache
def _unknowns(count: int) -> list[sp.Symbol]:
    return list(sp.symbols(f"c0:{count}", cls=sp.Dummy))


def fit(images: list[sp.Expr], source: sp.Expr, variables: list[sp.Symbol]) -> tuple[list[sp.Expr], list[sp.Symbol]] | None:
    """Coefficients ``c`` with ``sum c_i images_i == source`` identically (with the free unknowns among
    them, which span the homogeneous solutions in the basis), or None."""
    symbols = stand_ins(sp.Add(*images, source), set(variables))
    gens = [*variables, *sorted(sp.Add(*symbols.values()).free_symbols - set(variables), key=sp.default_sort_key)]
    try:
        # each over its own denominator, then all over their lcm: far cheaper than one together()
        fractions = [_fraction(e.xreplace(symbols), gens) for e in [*images, source]]
    except sp.PolynomialError:
        return None
    common = functools.reduce(lambda a, b: a.lcm(b), [d for _, d in fractions])
    columns = [(n * common.exquo(d)).as_dict() for n, d in fractions]
    rows = sorted(set().union(*columns))
    matrix = sp.Matrix([[column.get(r, 0) for column in columns[:-1]] for r in rows])
    unknowns = _unknowns(len(images))
    solutions = sp.linsolve((matrix, sp.Matrix([columns[-1].get(r, 0) for r in rows])), unknowns)
    if not isinstance(solutions, sp.FiniteSet) or not solutions.args:
        return None
    coefficients = list(solutions.args[0])
    free = [c for c in unknowns if any(v.has(c) for v in coefficients)]
    return coefficients, free


def _fraction(expr: sp.Expr, gens: list[sp.Symbol]) -> tuple[sp.Poly, sp.Poly]:
    numer, denom = sp.together(expr).as_numer_denom()
    return sp.Poly(numer, *gens), sp.Poly(denom, *gens)


def independent(functions: list[sp.Expr], variables: list[sp.Symbol]) -> list[sp.Expr]:
    """The functions that are not combinations of earlier ones: the basis repeats itself (a monomial times
    a power of a linear ``z``: ``x/z + y/z`` is ``1 - 2/z`` for ``z = x + y + 2``), and each repetition
    leaves the system a free unknown whose combination is 0 or another's."""
    if not functions:
        return []
    found = fit(functions, sp.Integer(0), variables)
    if found is None:      # a combination the system cannot read: keep them all, Stage B copes
        return functions
    _, free = found
    unknowns = set(free)
    return [f for f, c in zip(functions, _unknowns(len(functions))) if c not in unknowns]


def stand_ins(expr: sp.Expr, own: set[sp.Symbol]) -> dict[sp.Expr, sp.Expr]:
    """Each transcendental atom of ``expr`` in the variables (a function, a power that is not integer)
    -> an expression in symbols of its own.  Exponentials share theirs: ``exp(a*r + ...)`` is a product
    of integer powers of one symbol per ``r`` (``exp(-t)`` and ``exp(t)`` are ``1/E`` and ``E``,
    ``exp(x/2)`` and ``exp(x)`` are ``E`` and ``E**2``), so that no identity between them is lost; so do
    the fractional powers of one base (:func:`_roots`)."""
    calls = sorted((f for f in expr.atoms(sp.Function) if f.free_symbols & own), key=sp.default_sort_key)
    out = _roots(expr, own)
    parts = {f: [t.as_coeff_Mul() for t in sp.Add.make_args(sp.expand(f.args[0]))] for f in calls if isinstance(f, sp.exp)}
    units: dict[sp.Expr, sp.Expr] = {}
    for terms in parts.values():
        for c, rest in terms:
            units[rest] = sp.gcd(units.get(rest, c), c)
    exps = {rest: sp.Dummy(f"e{i}") for i, rest in enumerate(sorted(units, key=sp.default_sort_key))}
    for f in calls:
        if f in parts:
            out[f] = sp.Mul(*[(exps[r] if r.free_symbols & own else sp.exp(units[r] * r)) ** (c / units[r])
                              for c, r in parts[f]])
        else:
            out[f] = sp.Dummy(f"f{len(out)}")
    return out


def _roots(expr: sp.Expr, own: set[sp.Symbol]) -> dict[sp.Expr, sp.Expr]:
    """Each power of ``expr`` in the variables with a fractional exponent -> an integer power of one symbol
    per base (``sqrt(x)``, ``x**(-1/2)``, ``x**(5/2)`` -> ``s``, ``1/s``, ``s**5``); another numeric
    exponent (``x**pi``) -> a symbol of its own."""
    powers = sorted((p for p in expr.atoms(sp.Pow) if p.free_symbols & own and not p.exp.is_Integer and p.exp.is_number),
                    key=sp.default_sort_key)
    units: dict[sp.Expr, sp.Expr] = {}
    for p in powers:
        if p.exp.is_Rational:
            units[p.base] = sp.gcd(units.get(p.base, p.exp), p.exp)
    symbols = {base: sp.Dummy(f"r{i}") for i, base in enumerate(units)}
    return {p: symbols[p.base] ** (p.exp / units[p.base]) if p.base in units else sp.Dummy(f"p{i}")
            for i, p in enumerate(powers)}
