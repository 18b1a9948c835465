"""Which one-argument functions a run searches with.

* ``[search] unary`` given: that list is the library, and escalation does not grow it (restrict);
* otherwise (the default) the library is chosen: it starts with the functions the problem's text
  names (equations, sources, constraint operators and values; never the reference, which is the
  answer), each trigonometric or hyperbolic one with its pair, and ``[search] add_unary``.
  Escalation then adds what the teacher's values show (:mod:`desyr.unary.evidence`), and the broad
  base in cost tiers, cheapest first (:data:`BASE_TIERS`).

Operators that a configured searcher refuses are left out of a chosen library.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import sympy as sp

from desyr.config.spec import RunSpec
from desyr.extension.registry import Registry
from desyr.extension.roles import ComponentError, Searcher
from desyr.model.problem import Problem
from desyr.stages.run_components import searcher_names
from desyr.symbolic.operators import UNARY_OPERATORS
from desyr.unary.evidence import Finding

#: the paired function of a trigonometric or hyperbolic one (a solution rarely needs one without the other)
PAIRS = {"sin": "cos", "cos": "sin", "sinh": "cosh", "cosh": "sinh"}
#: the broad base by cost, one escalation attempt per tier, cheapest first. A tier's cost is what its
#: operators add to a search: monotone functions of one kind (exp, log, sqrt) widen it least; the
#: periodic pair and the bounded sigmoids next; the reciprocal hyperbolics (used only where the operator
#: table has them) are a composition's worth each
BASE_TIERS: tuple[tuple[str, ...], ...] = (("exp", "log", "sqrt"), ("sin", "cos", "tanh", "atan"),
                                           ("sech", "csch", "coth"))


def is_chosen(spec: RunSpec) -> bool:
    """Whether the library is chosen automatically (the config gives no ``[search] unary``)."""
    return spec.search.unary is None


def text_functions(problem: Problem) -> list[str]:
    """The operators the problem's equations and constraints call on something that varies, in the
    operator table's order (the reference is not read: it is the answer)."""
    names: set[str] = set()
    for expr in _texts(problem):
        names.update(_called(expr))
    return [name for name in UNARY_OPERATORS if name in names]


def _texts(problem: Problem) -> Iterator[sp.Expr]:
    for eq in problem.equations:
        yield from (eq.lhs, eq.forcing)
    for c in problem.constraints:
        yield from (c.operator, c.value)


def _called(expr: sp.Expr) -> set[str]:
    classes = {op.sympy: name for name, op in UNARY_OPERATORS.items() if isinstance(op.sympy, type)}
    found = set()
    for node in sp.preorder_traversal(expr):
        if not getattr(node, "free_symbols", None):
            continue        # exp(2), sqrt(2): numbers, not functions of anything
        if isinstance(node, sp.Pow):
            exponent = node.exp
            if exponent.is_Rational and exponent.q == 2 and "sqrt" in UNARY_OPERATORS:
                found.add("sqrt")
            elif exponent.free_symbols:
                found.add("exp")        # a**x is exp(x*log(a))
        elif type(node) in classes:
            found.add(classes[type(node)])
    return found


def with_pairs(names: Iterable[str]) -> list[str]:
    """``names`` and each one's pair (:data:`PAIRS`), in order, once each."""
    out: list[str] = []
    for name in names:
        out += [n for n in (name, PAIRS.get(name)) if n is not None and n not in out]
    return out


def start_library(spec: RunSpec, registry: Registry) -> tuple[RunSpec, str]:
    """The spec whose ``[search] unary`` is the first attempt's library, and why that library."""
    if not is_chosen(spec):
        return spec, "[search] unary as given (the library is restricted to it)"
    named = with_pairs(text_functions(spec.problem))
    library = [n for n in dict.fromkeys([*named, *spec.search.add_unary])]
    refused = refused_operators(spec, registry, [n for n in library if n not in spec.search.add_unary])
    library = [n for n in library if n not in refused]
    why = ("the problem's text names " + ", ".join(named) if named
           else "the problem's text names no function: + - * / and constants first")
    if spec.search.add_unary:
        why += "; [search] add_unary adds " + ", ".join(spec.search.add_unary)
    if refused:
        why += f"; left out: {', '.join(sorted(refused))} (a configured searcher refuses them)"
    return replace(spec, search=replace(spec.search, unary=tuple(library))), why


def library_steps(current: list[str], findings: Callable[[], list[Finding]],
                  refused: Callable[[list[str]], set[str]]) -> Iterator[tuple[str, list[str], str]]:
    """The chosen library's growth, one attempt each: (``"evidence"`` or ``"base"``, the library, why).
    First what the teacher's values show (``findings`` is asked when that step comes, after an attempt
    trained the teacher), then the broad base tier by tier. A shape the library already has a function
    for (a front with ``tanh`` present) adds nothing: it is no reason for an attempt. ``refused``: the
    operators of a list that a configured searcher refuses."""
    new: list[str] = []
    reasons: list[str] = []
    for finding in findings():
        if any(f in current for f in finding.functions):
            continue
        added = [f for f in finding.functions if f in UNARY_OPERATORS and f not in current + new]
        if added:
            new += added
            reasons.append(f"{finding.reason} → {', '.join(added)}")
    steps = [("evidence", new, "the teacher's values: " + "; ".join(reasons))]
    for i, tier in enumerate(BASE_TIERS, 1):
        steps.append(("base", list(tier), f"broad base, tier {i} of {len(BASE_TIERS)} by cost (cheapest first)"))
    for kind, add, why in steps:
        add = [f for f in add if f in UNARY_OPERATORS and f not in current]
        add = [f for f in add if f not in refused(add)]
        if add:
            current = current + add
            yield kind, current, why


def refused_operators(spec: RunSpec, registry: Registry, library: list[str]) -> set[str]:
    """Operators of ``library`` that a configured searcher refuses."""
    out: set[str] = set()
    for name in searcher_names(registry, spec):
        searcher = registry.create("searcher", name, {})
        assert isinstance(searcher, Searcher)
        for op in library:
            try:
                searcher.check_operators([], [op])
            except ComponentError:
                out.add(op)
    return out
