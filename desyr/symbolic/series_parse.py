"""The series constructs of the expression language, built by :mod:`desyr.symbolic.expressions`:
``Sum(term, (n, a, oo))``, ``factorial(k)`` and the named eigenvalue functions.

The rules (``docs/series.md``):
- the index is a plain name (letters and digits) that the problem does not use, nor an enclosing sum;
- its lower limit an integer literal, its upper one ``oo`` (a finite upper limit is a finite sum,
  expanded here when it has at most :data:`MAX_FINITE_TERMS` terms);
- sums nest at most :data:`desyr.symbolic.series.MAX_SUM_DEPTH` deep;
- a condition of a term on its index (``1/(n - 2)`` needs ``n != 2``) is decided for every index in
  the range: shown by SymPy's assumptions, or refused where it fails at one of the first indices
  (the proof of a series decides the rest); one that mixes the index and the variables is refused.
"""
from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Protocol

import sympy as sp

from desyr.symbolic.conditions import Condition, decided
from desyr.symbolic.eigenvalues import EIGENVALUES, MAX_INDEX
from desyr.symbolic.eigenvalues import MAX_ORDER as MAX_EIGEN_ORDER
from desyr.symbolic.nodes import ExpressionError, short
from desyr.symbolic.operator_names import RESERVED
from desyr.symbolic.series import MAX_SUM_DEPTH, series_index

#: a finite sum (an integer upper limit) is expanded; beyond this many terms it is refused
MAX_FINITE_TERMS = 100
#: the largest magnitude of a sum's limits
MAX_LIMIT = 1000
#: the largest number whose factorial is computed exactly (171! is beyond a double)
MAX_FACTORIAL = 170
#: the first terms of a series written out (for its regularity): the index reaches lower + HEAD
HEAD = 3
#: bits of an exact number a power of an index may reach where a term is written out
MAX_POWER_BITS = 100_000
#: the first indices at which a term's condition on its index is checked
CHECKED_INDICES = 8
_INDEX_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,15}")


class Names(Protocol):
    """What the builder reads of a vocabulary."""

    fields: tuple[str, ...]

    def resolve(self, name: str) -> sp.Expr: ...


class Indexed:
    """A vocabulary inside sums: their index names resolve to the index symbols first."""

    def __init__(self, outer: Names, ranges: Mapping[sp.Symbol, int]) -> None:
        self.outer, self.ranges = outer, dict(ranges)
        self.fields = outer.fields
        self.names = {str(s): s for s in self.ranges}

    def resolve(self, name: str) -> sp.Expr:
        return self.names[name] if name in self.names else self.outer.resolve(name)


Build = Callable[[ast.AST, Names, "list[Condition] | None"], sp.Expr]


def ranges_of(vocab: Names) -> dict[sp.Symbol, int]:
    """The index symbols in scope and their lower limits."""
    return dict(vocab.ranges) if isinstance(vocab, Indexed) else {}


def over_range(expr: sp.Expr, ranges: Mapping[sp.Symbol, int]) -> sp.Expr:
    """``expr`` with each index ``n`` written ``lower + k``, ``k`` a nonnegative integer: SymPy's
    assumptions then know the index's range."""
    shift = {n: lower + sp.Dummy(f"{n}_k", integer=True, nonnegative=True) for n, lower in ranges.items()}
    return expr.xreplace(shift)


def build_sum(node: ast.Call, vocab: Names, text: str, notes: list[Condition] | None, build: Build) -> sp.Expr:
    """``Sum(term, (n, lower, upper))``; SymPy's form of a double series, ``Sum(term, (m, 1, oo), (n, 1,
    oo))`` (the first range innermost), is read too: it is what ``Sum(Sum(term, (m, 1, oo)), (n, 1, oo))``
    prints as."""
    written = _segment(text, node)
    ranges = ranges_of(vocab)
    tuples = node.args[1:]
    if node.keywords or not tuples or not all(isinstance(t, ast.Tuple) and len(t.elts) == 3 for t in tuples):
        raise ExpressionError(f"Sum takes a term and a range (index, lower, upper), as in Sum(term, (n, 1, oo)), "
                              f"in {short(text)}; write a double series as Sum(Sum(term, (m, 1, oo)), (n, 1, oo))")
    if len(ranges) + len(tuples) > MAX_SUM_DEPTH:
        raise ExpressionError(f"{short(written, 40)} in {short(text)} nests sums more than {MAX_SUM_DEPTH} deep")
    limits: list[tuple[sp.Symbol, int, ast.AST]] = []
    inner = dict(ranges)
    for limit in tuples:
        assert isinstance(limit, ast.Tuple)
        name = _index_name(limit.elts[0], Indexed(vocab, inner), text)
        lower = _limit(limit.elts[1], text)
        index = series_index(name, lower)
        inner[index] = lower
        limits.append((index, lower, limit.elts[2]))
    own: list[Condition] = []
    # the sums' stable form and tail bounds know sinh and cosh, not their reciprocals (red team 44k: a Laplace
    # series with csch(n*pi) kept 62 terms, and with 1/sinh(n*pi) it was Proved)
    term = build(node.args[0], Indexed(vocab, inner), own).replace(
        lambda e: isinstance(e, (sp.csch, sp.sech, sp.coth)), _reciprocal).replace(
        _exponential_denominator, lambda e: e.func(_hyperbolic(e.base), e.exp))
    for index, lower, _ in limits:
        own = _pass_conditions(own, index, lower, {**ranges, **inner}, written, text)
    if notes is not None:
        notes.extend(own)
    reach = {index: _reach(lower, upper, text) for index, lower, upper in limits}
    _bounded_powers(term, {**{i: MAX_LIMIT + HEAD for i in ranges}, **reach}, written, text)
    for index, lower, upper in limits:           # innermost first, as SymPy orders them
        term = _summed(term, index, lower, upper, written, text)
    return term


def _exponential_denominator(e: sp.Expr) -> bool:
    """A denominator that is a pair of exponentials (numerators are left as written: ``exp(-t) -
    exp(-n**2*pi**2*t)`` of a source's series is read addend by addend, and as a ``sinh`` of ``n**2*t``
    its proof found no summable majorant)."""
    return isinstance(e, sp.Pow) and e.exp.is_negative is True and isinstance(e.base, sp.Add) \
        and len(e.base.args) == 2 and e.base.has(sp.exp)


def _hyperbolic(pair: sp.Expr) -> sp.Expr:
    """``a*exp(X) - a*exp(Y)`` as ``2*a*exp((X + Y)/2)*sinh((X - Y)/2)`` and ``a*exp(X) + a*exp(Y)`` with
    ``cosh`` (a number alone is ``exp(0)``): a Laplace series written ``/(exp(n*pi) - exp(-n*pi))`` or
    ``/(1 - exp(-2*n*pi))`` kept 62 terms and its proof could not decide where the denominator vanishes
    (red team 44l); with ``sinh(n*pi)`` it is Proved."""
    read = []
    for part in pair.args:
        exps = [f for f in sp.Mul.make_args(part) if isinstance(f, sp.exp)]
        if len(exps) > 1:
            return pair
        power = exps[0].args[0] if exps else sp.Integer(0)
        read.append((sp.Mul(*[f for f in sp.Mul.make_args(part) if not exps or f is not exps[0]]), power))
    (a, X), (b, Y) = read
    if X == Y:
        return pair
    if sp.expand(a - b) == 0:
        return 2 * a * sp.exp(sp.expand((X + Y) / 2)) * sp.cosh(sp.expand((X - Y) / 2))
    return 2 * a * sp.exp(sp.expand((X + Y) / 2)) * sp.sinh(sp.expand((X - Y) / 2)) if sp.expand(a + b) == 0 else pair


def _reciprocal(function: sp.Expr) -> sp.Expr:
    argument = function.args[0]
    if isinstance(function, sp.coth):
        return sp.cosh(argument) / sp.sinh(argument)
    return 1 / (sp.sinh(argument) if isinstance(function, sp.csch) else sp.cosh(argument))


def _reach(lower: int, upper: ast.AST, text: str) -> int:
    """The largest index magnitude at which the term is written out as a number: a finite sum's terms,
    an infinite one's first :data:`HEAD` (its regularity is read from them)."""
    top = lower + HEAD if isinstance(upper, ast.Name) and upper.id == "oo" else _limit(upper, text)
    return max(abs(lower), abs(top))


def _bounded_powers(term: sp.Expr, reach: Mapping[sp.Symbol, int], written: str, text: str) -> None:
    """Each power of a number with an index in its exponent stays an exact number of at most
    :data:`MAX_POWER_BITS` bits where the term is written out (``2**(n**2)`` from n = 1, not from 1000)."""
    for power in term.atoms(sp.Pow):
        base, exponent = power.base, power.exp
        if not (base.is_Rational and abs(base) not in (0, 1)) or not exponent.free_symbols <= set(reach) \
                or not exponent.free_symbols:
            continue
        gens = sorted(exponent.free_symbols, key=str)
        top = sum(abs(float(c)) * math.prod(reach[g] ** k for g, k in zip(gens, m))
                  for m, c in sp.Poly(exponent, *gens).terms())
        bits = top * math.log2(max(abs(int(base.p)), int(base.q)))
        if bits > MAX_POWER_BITS:
            raise ExpressionError(f"{short(written, 40)} in {short(text)} grows too fast with its index: its "
                                  f"term holds an exact number of about {bits:.3g} bits at an index of {max(reach.values())}")


def _summed(term: sp.Expr, index: sp.Symbol, lower: int, upper: ast.AST, written: str, text: str) -> sp.Expr:
    if isinstance(upper, ast.Name) and upper.id == "oo":
        if index in term.free_symbols:
            return sp.Sum(term, (index, lower, sp.oo))
        if term.is_zero:
            return sp.Integer(0)
        raise ExpressionError(f"the term of {short(written, 40)} in {short(text)} does not depend on its index "
                              f"{index}: the series diverges")
    top = _limit(upper, text)
    if top - lower + 1 > MAX_FINITE_TERMS:
        raise ExpressionError(f"{short(written, 40)} in {short(text)} is a finite sum of {top - lower + 1} terms "
                              f"(at most {MAX_FINITE_TERMS}): write its upper limit as oo for a series")
    return sp.Add(*[term.xreplace({index: sp.Integer(i)}) for i in range(lower, top + 1)])


def _segment(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text.strip(), node) or ast.unparse(node)


def _index_name(node: ast.AST, vocab: Names, text: str) -> str:
    if not isinstance(node, ast.Name) or not _INDEX_NAME.fullmatch(node.id) or node.id == "oo":
        raise ExpressionError(f"a sum's index must be a plain name (letters and digits, such as n, m or k), "
                              f"got {short(_segment(text, node), 30)} in {short(text)}")
    name = node.id
    if name in RESERVED:
        raise ExpressionError(f"the index {name!r} of a sum in {short(text)} is a reserved name (a function, "
                              f"constant or keyword); name the index n, m, k or j")
    what = _meaning(vocab, name)
    if what is not None:
        raise ExpressionError(f"the index {name!r} of a sum in {short(text)} is already {what}; "
                              f"name the index with a letter the problem does not use (n, m, k, j)")
    return name


def _meaning(vocab: Names, name: str) -> str | None:
    """What ``name`` already means where a sum's index would bind it, or None."""
    if isinstance(vocab, Indexed) and name in vocab.names:
        return "the index of an enclosing sum"
    try:
        vocab.resolve(name)
    except ExpressionError:
        return None
    outer = vocab.outer if isinstance(vocab, Indexed) else vocab
    while isinstance(outer, Indexed):
        outer = outer.outer
    kinds = (("variables", "a variable of the problem"), ("fields", "a field of the problem"),
             ("extra", "a parameter or unknown of the problem"))
    return next((what for attr, what in kinds if name in getattr(outer, attr, ())),
                "a name of the problem (a constant or a field's derivative)")


def _limit(node: ast.AST, text: str) -> int:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-1 if isinstance(node.op, ast.USub) else 1), node.operand
    if not (isinstance(node, ast.Constant) and type(node.value) is int):
        raise ExpressionError(f"a sum's limits are integer literals (the upper one may be oo), got "
                              f"{short(_segment(text, node), 30)} in {short(text)}")
    value = sign * node.value
    if abs(value) > MAX_LIMIT:
        raise ExpressionError(f"a sum's limit {value} in {short(text)} is too large (at most {MAX_LIMIT} in magnitude)")
    return value


def _pass_conditions(own: list[Condition], index: sp.Symbol, lower: int, ranges: Mapping[sp.Symbol, int],
                     written: str, text: str) -> list[Condition]:
    """Decide the term's conditions on ``index``; the others are left for the enclosing expression."""
    left = []
    for condition in own:
        if index in condition.quantity.free_symbols:
            _decide(condition, index, lower, ranges, written, text)
        else:
            left.append(condition)
    return left


def _decide(condition: Condition, index: sp.Symbol, lower: int, ranges: Mapping[sp.Symbol, int],
            written: str, text: str) -> None:
    quantity = condition.quantity
    indices = {index, *ranges}
    if decided(quantity, condition.need) is True:
        return                  # for every real value of every symbol (exp(n**2*pi**2*t) != 0, red team 44l)
    if not quantity.free_symbols <= indices:
        raise ExpressionError(f"{short(condition.written, 40)} in {short(text)} needs "
                              f"{short(quantity, 40)} {_NEEDS[condition.need]} for every index and every point: "
                              f"DeSyR cannot check a condition that mixes a sum's index and the variables")
    if decided(over_range(quantity, ranges), condition.need) is True:
        return
    for i in range(lower, lower + CHECKED_INDICES):
        value = quantity.xreplace({index: sp.Integer(i)})
        if value.free_symbols:
            return                  # an outer index remains: the proof of the series decides it
        if decided(value, condition.need) is False or value.has(sp.zoo, sp.nan):
            raise ExpressionError(f"{short(condition.written, 40)} in {short(written, 60)} is undefined at the "
                                  f"index {index} = {i}: it needs {short(quantity, 40)} {_NEEDS[condition.need]}")


_NEEDS = {"positive": "> 0", "nonnegative": ">= 0", "nonzero": "!= 0"}


def integer_argument(value: sp.Expr, vocab: Names, what: str, least: int, most: int, text: str) -> sp.Expr:
    """``value``, which must be an integer in ``[least, most]`` for every index in range."""
    if value.is_number:
        if not value.is_Integer or not least <= int(value) <= most:
            raise ExpressionError(f"{what} in {short(text)} must be an integer from {least} to {most}, got "
                                  f"{short(value, 30)}")
        return value
    shifted = over_range(value, ranges_of(vocab))
    if not (value.free_symbols <= set(ranges_of(vocab)) and value.is_integer and (shifted - least).is_nonnegative):
        raise ExpressionError(f"{what} in {short(text)} must be an integer of at least {least} for every index "
                              f"(a sum's index, such as n or n + 1), got {short(value, 30)}")
    return value


def build_factorial(node: ast.Call, vocab: Names, text: str, notes: list[Condition] | None, build: Build) -> sp.Expr:
    if node.keywords or len(node.args) != 1:
        raise ExpressionError(f"function 'factorial' takes exactly one positional argument in {short(text)}")
    argument = build(node.args[0], vocab, notes)
    indices = list(ranges_of(vocab))
    if argument.free_symbols and not (argument.is_polynomial(*indices) and sp.Poly(argument, *indices).total_degree() <= 1):
        raise ExpressionError(f"factorial's argument in {short(text)} must be an integer or of degree 1 in a sum's "
                              f"index (n, 2*n + 1), got {short(argument, 30)}")
    return sp.factorial(integer_argument(argument, vocab, "factorial's argument", 0, MAX_FACTORIAL, text))


def build_eigenvalue(node: ast.Call, vocab: Names, text: str, notes: list[Condition] | None,
                     build: Build) -> sp.Expr:
    """``besseljzero(nu, k)``, ``besseljpzero(nu, k)``, ``robinroot(k, a, b, c)``, ``dinizero(nu, h, k)``,
    ``robinsinhroot(k, a, b, c)``."""
    name = node.func.id if isinstance(node.func, ast.Name) else "?"
    cls = EIGENVALUES[name]
    if node.keywords or len(node.args) != len(_ARGUMENTS[name]):
        raise ExpressionError(f"function '{name}' takes {len(_ARGUMENTS[name])} positional arguments "
                              f"({', '.join(_ARGUMENTS[name])}) in {short(text)}")
    args = [build(a, vocab, notes) for a in node.args]
    position = cls.index_position
    args[position] = integer_argument(args[position], vocab, f"{name}'s index", 1, MAX_INDEX, text)
    if name == "robinroot":
        _robin_constants(args[1:], text)
    elif name == "robinsinhroot":
        _growth_constants(args[0], args[1:], text)
    elif name == "dinizero":
        _dini_constants(args[0], args[1], vocab, text)
    else:
        if not args[0].is_number:
            raise ExpressionError(f"{name}'s order in {short(text)} must be a constant integer, got {short(args[0], 30)}")
        integer_argument(args[0], vocab, f"{name}'s order", 0, MAX_EIGEN_ORDER, text)
    try:
        return cls(*args)
    except (ValueError, ArithmeticError) as exc:
        raise ExpressionError(f"{short(_segment(text, node), 40)} in {short(text)}: {exc}") from None


_ARGUMENTS = {"besseljzero": ("order", "index"), "besseljpzero": ("order", "index"),
              "robinroot": ("index", "a", "b", "c"), "dinizero": ("order", "h", "index"),
              "robinsinhroot": ("index", "a", "b", "c")}


def _growth_constants(index: sp.Expr, constants: list[sp.Expr], text: str) -> None:
    """``robinsinhroot``: exact constants, and an index that is one of its (at most two) roots."""
    _robin_constants(constants, text, "robinsinhroot", check=False)
    from desyr.symbolic.robin_growth import count
    try:
        found = count(tuple(constants))
    except (ValueError, ArithmeticError) as exc:
        raise ExpressionError(f"{exc} (in {short(text)})") from None
    if not (index.is_Integer and 1 <= int(index) <= found):
        raise ExpressionError(f"robinsinhroot's index in {short(text)} must be an integer literal from 1 to the "
                              f"number of its roots ({found}), got {short(index, 30)}")


def _dini_constants(order: sp.Expr, h: sp.Expr, vocab: Names, text: str) -> None:
    if not order.is_number:
        raise ExpressionError(f"dinizero's order in {short(text)} must be a constant integer, got {short(order, 30)}")
    integer_argument(order, vocab, "dinizero's order", 0, MAX_EIGEN_ORDER, text)
    if not h.is_number or h.has(sp.Float) or h.is_real is not True:
        raise ExpressionError(f"dinizero's constant h in {short(text)} must be an exact real number (such as 1, "
                              f"1/2 or pi; not 0.5), got {short(h, 30)}")
    if not ((h + order).is_positive or h.is_zero):
        raise ExpressionError(f"dinizero({order}, {short(h, 20)}, k) in {short(text)} needs h + nu > 0 (else a root "
                              "is not real, or 0 is one)")


def _robin_constants(constants: list[sp.Expr], text: str, name: str = "robinroot", check: bool = True) -> None:
    for value in constants:
        if not value.is_number or value.has(sp.Float) or value.is_real is not True:
            raise ExpressionError(f"{name}'s constants a, b, c in {short(text)} must be exact real numbers "
                                  f"(such as 1, 1/2 or pi; not 0.5), got {short(value, 30)}")
    if all(value.is_zero for value in constants):
        raise ExpressionError(f"{name}'s constants a, b, c in {short(text)} are all 0: every s is a root")
    if not check:
        return
    from desyr.symbolic.robin import layout
    try:
        layout(tuple(constants))
    except ValueError as exc:
        raise ExpressionError(f"{exc} (in {short(text)})") from None
