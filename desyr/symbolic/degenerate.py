"""Near-degenerate parts of a refined tree: what Stage C's cleaning with a refit may remove.

A refit can end on a point where part of the tree does almost nothing on the domain and the
other constants make up for it to round-off: ``(x + x**4)*(1.0000051*x + x**2 + exp(-5.1e-06*x))``
solves a Poisson problem as well as the polynomial it stands for, because the Taylor terms of
the exponential are absorbed by the coefficients.  The residuals cannot tell the two apart;
only a reduced tree, refit, can show that the part was not needed.  This module finds the
parts and builds reduced trees; :func:`desyr.stages.select.clean` refits and checks them.

Three kinds of part (tolerances: :class:`Tolerances`, which the method's constants provide), each found on the
given domain points (the refinement and constraint points):

- *vanishing argument*: a call ``F(a + g)`` of exp, cosh, cos, sin, sinh, tan, tanh, asin or
  atan whose variable part ``g`` (it holds a float constant) stays within
  ``degenerate_argument_tolerance`` of 0 on the domain: a rate near 0.  It becomes ``F(a)``;
  with ``a = 0`` the even functions give 1 and the odd ones their first-order term ``g``.
- *like terms*: two terms of one sum, ``c1*g1 + c2*g2``, whose shapes ``g1``, ``g2`` have the
  same tree up to their float constants and differ by at most ``like_term_tolerance`` of their
  size on the domain (``sin(1.000000001*t)`` and ``sin(1.00000001*t)``).  They merge into
  ``(c1 + c2)*g``, with ``g`` the shape of the larger coefficient.
- *near integer*: a float within ``near_integer_tolerance`` (relative) of a nonzero integer,
  which becomes that integer.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import sympy as sp

from desyr.symbolic.numeric import evaluate

#: functions whose argument may vanish: to 1 (even) or to the argument (odd) when it does
EVEN = (sp.exp, sp.cosh, sp.cos)
ODD = (sp.sin, sp.sinh, sp.tan, sp.tanh, sp.asin, sp.atan)
_PLACEHOLDER = sp.Dummy("c")
KINDS = ("like terms", "vanishing argument", "near integer")   # also the order in which they apply


@dataclass(frozen=True)
class Part:
    """One near-degenerate part of field ``field``: the node ``before`` and what replaces it."""

    field: str
    kind: str
    before: sp.Expr
    after: sp.Expr

    def describe(self) -> str:
        return f"{self.kind} {_short(self.before)} -> {_short(self.after)}"


def _short(expr: sp.Expr, limit: int = 60) -> str:
    text: str = sp.sstr(expr, full_prec=False)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Tolerances(Protocol):
    """The three tolerances this module reads (``desyr.model.constants.MethodConstants`` has them: the
    mathematics names what it needs, the data model provides it)."""

    @property
    def like_term_tolerance(self) -> float: ...
    @property
    def degenerate_argument_tolerance(self) -> float: ...
    @property
    def near_integer_tolerance(self) -> float: ...


def near_degenerate_parts(exprs: Mapping[str, sp.Expr], symbols: Sequence[sp.Symbol], X: np.ndarray,
                          method: Tolerances) -> list[Part]:
    """Every near-degenerate part of every field, in a stable order (like terms, vanishing
    arguments, near integers; within a kind, in tree order)."""
    parts: list[Part] = []
    for field, expr in exprs.items():
        parts += _like_terms(field, expr, symbols, X, method.like_term_tolerance)
        parts += _vanishing_arguments(field, expr, symbols, X, method.degenerate_argument_tolerance)
        parts += _near_integers(field, expr, method.near_integer_tolerance)
    return parts


def reduce(exprs: Mapping[str, sp.Expr], parts: Iterable[Part]) -> tuple[dict[str, sp.Expr], list[Part]]:
    """``exprs`` with the parts replaced, one after the other in :data:`KINDS` order, and the parts
    that changed something (one whose node an earlier part already changed is skipped)."""
    out, applied = dict(exprs), []
    for part in sorted(parts, key=lambda p: KINDS.index(p.kind)):
        changed = out[part.field].xreplace({part.before: part.after})
        if changed != out[part.field]:
            out[part.field] = changed
            applied.append(part)
    return out, applied


def describe(parts: Sequence[Part], fields: int = 1, limit: int = 4) -> str:
    """``"like terms ... -> ...; vanishing argument ... -> ..."`` (field names with several fields)."""
    texts = [(f"{p.field}: " if fields > 1 else "") + p.describe() for p in parts]
    more = f"; {len(texts) - limit} more" if len(texts) > limit else ""
    return "; ".join(texts[:limit]) + more


def proposals(parts: Sequence[Part]) -> list[tuple[Part, ...]]:
    """What to try, most reduction first: all parts together, then each part alone."""
    if not parts:
        return []
    return [tuple(parts)] + ([(p,) for p in parts] if len(parts) > 1 else [])


# ------------------------------------------------------------------ the three kinds
def _values(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray) -> np.ndarray | None:
    try:
        values = evaluate(expr, symbols, X)
    except Exception:   # an unevaluable subtree is not a part anyone can judge
        return None
    return values if np.all(np.isfinite(values)) else None


def _vanishing_arguments(field: str, expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray,
                         tol: float) -> list[Part]:
    found: list[Part] = []
    nodes = [n for n in sp.preorder_traversal(expr) if isinstance(n, EVEN + ODD)]
    for node in dict.fromkeys(nodes):
        arg = node.args[0]
        const, var = arg.as_independent(*symbols, as_Add=True)
        if not var.free_symbols or not var.has(sp.Float):
            continue
        values = _values(var, symbols, X)
        if values is None or float(np.max(np.abs(values))) > tol:
            continue
        if const != 0:
            after = node.func(const)
        else:
            after = sp.Integer(1) if isinstance(node, EVEN) else var
        found.append(Part(field, "vanishing argument", node, after))
    return found


def _like_terms(field: str, expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray,
                tol: float) -> list[Part]:
    found: list[Part] = []
    sums = [n for n in sp.preorder_traversal(expr) if isinstance(n, sp.Add)]
    for node in dict.fromkeys(sums):
        merged = _merge_like_terms(node, symbols, X, tol)
        if merged is not None:
            found.append(Part(field, "like terms", node, merged))
    return found


def _merge_like_terms(node: sp.Add, symbols: Sequence[sp.Symbol], X: np.ndarray, tol: float) -> sp.Expr | None:
    """The sum with its nearly equal like terms merged, or None if it has none."""
    terms = [t.as_coeff_Mul() for t in node.args]
    groups: dict[sp.Expr, list[int]] = {}
    for i, (_, shape) in enumerate(terms):
        if shape.free_symbols and shape.has(sp.Float):
            key = shape.xreplace({f: _PLACEHOLDER for f in shape.atoms(sp.Float)})
            groups.setdefault(key, []).append(i)
    into: dict[int, int] = {}                       # term index -> the term it merges into
    for members in groups.values():
        if len(members) < 2:
            continue
        values = {i: v for i in members if (v := _values(terms[i][1], symbols, X)) is not None}
        usable = [i for i in members if i in values]
        for a, i in enumerate(usable):
            if i in into:
                continue
            for j in usable[a + 1:]:
                vi, vj = values[i], values[j]
                scale = max(float(np.max(np.abs(vi))), float(np.max(np.abs(vj))))
                if j not in into and scale > 0 and float(np.max(np.abs(vi - vj))) <= tol * scale:
                    into[j] = i
    if not into:
        return None
    clusters: dict[int, list[int]] = {}
    for i in range(len(terms)):
        clusters.setdefault(into.get(i, i), []).append(i)
    out = []
    for members in clusters.values():
        if len(members) == 1:
            out.append(node.args[members[0]])
            continue
        lead = max(members, key=lambda k: abs(float(terms[k][0])))
        out.append(sp.Add(*[terms[k][0] for k in members]) * terms[lead][1])
    return sp.Add(*out)


def _near_integers(field: str, expr: sp.Expr, tol: float) -> list[Part]:
    found = []
    for f in sorted(expr.atoms(sp.Float), key=lambda v: (abs(float(v)), float(v))):
        value = float(f)
        nearest = round(value)
        if nearest != 0 and 0 < abs(value - nearest) <= tol * max(1.0, abs(nearest)):
            found.append(Part(field, "near integer", f, sp.Integer(nearest)))
    return found
