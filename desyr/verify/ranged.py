"""A residual on a set's exact range: ``abs`` and ``sign`` of a quantity of one sign there resolved.

SymPy proves an identity for every real value of the symbols, so a residual that vanishes only on
the range a set spans (``sin(s) - abs(sin(s))`` on the upper half of a circle, ``abs(x) - x`` on an
edge where x >= 0) is not reduced to 0.  Where interval arithmetic proves the quantity inside an
``abs`` or a ``sign`` positive on the open range and at least 0 on its ends
(:func:`desyr.verify.edges.positive_inside`: its ends are the set's exact numbers), or negative, the
``abs`` is that quantity or its negative there, and the residual that remains is reduced as usual.
Proving on a range that holds the set is sound; :mod:`desyr.verify.spans` gives such ranges.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.symbolic.simplify import bounded_simplify
from desyr.verify.edges import positive_inside

#: abs() and sign() resolved in one residual, at most (each is a sign proof)
MAX_RESOLVED = 12
SECONDS = 4.0


def on_range(expr: sp.Expr, bounds: Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]]) -> list[sp.Expr]:
    """Forms of ``expr`` that equal it on ``bounds`` with every ``abs``/``sign`` of a quantity proved of one
    sign there resolved (as written, then after ``simplify``, which shows ``sqrt(1 - cos(s)**2)`` as
    ``abs(sin(s))``); none where nothing was resolved."""
    out = []
    # simplify only where it may show an abs: a root (of a square), or an abs already there
    rooted = any(not p.exp.is_integer for p in expr.atoms(sp.Pow))
    simpler = bounded_simplify(expr, seconds=SECONDS) if rooted and not _signed(expr) else None
    for form in (expr, simpler):
        if form is None or not _signed(form):
            continue
        resolved = _resolved(form, bounds)
        if resolved is not None:
            out.append(resolved)
    return out


def _signed(expr: sp.Expr) -> bool:
    return bool(expr.atoms(sp.Abs, sp.sign))


def _resolved(expr: sp.Expr, bounds: Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]]) -> sp.Expr | None:
    """``expr`` with its innermost abs/sign atoms of one sign on ``bounds`` replaced, repeatedly."""
    changed = False
    for _ in range(MAX_RESOLVED):
        atoms = sorted((a for a in expr.atoms(sp.Abs, sp.sign) if not a.args[0].atoms(sp.Abs, sp.sign)),
                       key=sp.count_ops)
        swap = {}
        for atom in atoms:
            side = _side(atom.args[0], bounds)
            if side:
                swap[atom] = side * atom.args[0] if isinstance(atom, sp.Abs) else sp.Integer(side)
        if not swap:
            break
        expr, changed = expr.xreplace(swap), True
    return expr if changed else None


def _side(q: sp.Expr, bounds: Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]]) -> int:
    """+1 (-1) when ``q`` is proved positive (negative) on the open range and of that sign or 0 on its ends."""
    if q.free_symbols - set(bounds):
        return 0
    for side in (1, -1):
        if positive_inside(side * q, bounds)[0] == "positive":
            return side
    return 0
