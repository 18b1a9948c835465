"""An integral constraint of a series answer, proved termwise (docs/verify.md, "... for a series").

An integral constraint ``integral over space of u = g(t)`` holds for ``u = P + sum of terms`` where the series
converges uniformly on the closed domain (part 4 shows it, :mod:`desyr.verify.series_decay`): then the integral
of the sum is the sum of the terms' integrals. Each term's integral is taken symbolically for every index
(``cos(n*pi*x)`` over [0, 1] gives ``sin(pi*n)/(pi*n)``, 0 for an integer n), and the constraint is proved where
every term's integral is 0 and ``P``'s integral is ``g``. The operator is the field itself (a derivative would
need termwise differentiation on the closed domain too); anything else is not proved. Without it, a true
insulated rod's series with its mass as a constraint was refused once its truncation could no longer be judged on
points (red team 44m's ctl11).
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.expressions import Jet
from desyr.symbolic.simplify import bounded_simplify
from desyr.verify.series_expansion import Unproved
from desyr.verify.series_form import Answer
from desyr.verify.series_identity import Range

#: the seconds SymPy has to simplify one integral to 0
SIMPLIFY_SECONDS = 4.0


def integral_steps(problem: Problem, field: str, answer: Answer, ranges: Mapping[sp.Symbol, Range],
                   closed: bool) -> list[tuple[str, bool]]:
    """One proof step per integral constraint; raises :class:`Unproved` where one is not proved."""
    from desyr.verify.proof import config_exact
    integrals = [c for c in problem.constraints if c.kind == "integral"]
    if not integrals:
        return []
    if problem.geometry is not None:
        raise Unproved("an integral constraint of a series is proved on a box")
    if not closed:
        raise Unproved("an integral constraint needs the series to converge uniformly on the closed domain")
    time = problem.vocabulary.var_symbols.get(problem.time) if problem.time else None
    space = [(s, *r) for s, r in ranges.items() if s != time]
    steps = []
    for con in integrals:
        operator = config_exact(con.operator)
        if operator != problem.jet_symbol(Jet(field, ())):
            raise Unproved(f"constraint {con.label}: an integral constraint is proved for the field itself")
        for s in answer.series:
            # an integer index: sin(pi*n) is 0 only then
            whole = {i.symbol: sp.Dummy(i.symbol.name, integer=True, positive=i.lower >= 1, nonnegative=True)
                     for i in s.indices}
            if not _vanishes(sp.integrate(s.term.xreplace(whole), *space)):
                raise Unproved(f"constraint {con.label}: a term's integral is not shown 0 for every index")
        if not _vanishes(sp.integrate(answer.finite, *space) - config_exact(con.value)):
            raise Unproved(f"constraint {con.label}: the finite part's integral is not its value")
        steps.append((f"constraint {con.label} (termwise, the series uniform on the closed domain)", True))
    return steps


def _vanishes(expr: sp.Expr) -> bool:
    if expr == 0:
        return True
    simpler = bounded_simplify(expr, max_nodes=1500, seconds=SIMPLIFY_SECONDS)
    return simpler is not None and simpler == 0
