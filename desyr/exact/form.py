"""``exact_form``: checked constant identification and canonical rewrites of a selected solution."""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sympy as sp

from desyr.exact.canonical import REWRITES, Rewrite, apply_rewrites, merge_constant_factors
from desyr.exact.identify import context_bases, identify_constants, problem_bases
from desyr.exact.records import Acceptance, Check, ConstantDecision, ResidualPair, RewriteDecision, safe_check
from desyr.exact.solved_constants import solve_constants
from desyr.symbolic.expressions import complexity, expression_text
from desyr.symbolic.gauge import free_function_variables, gauge_members
from desyr.symbolic.series import has_series

if TYPE_CHECKING:
    from desyr.model.problem import Problem


@dataclass
class ExactForm:
    expressions: dict[str, sp.Expr]            # field -> final expression (exact where accepted)
    constants: list[ConstantDecision]
    rewrites: list[RewriteDecision]
    complexity: int                            # node count of the final printed form, summed over fields
    latex: dict[str, str]
    residuals_numeric: ResidualPair | None        # (R_eq, R_con) of the input
    residuals_exact: ResidualPair | None          # of the final expressions
    seconds: float = 0.0
    note: str | None = None                    # why nothing was attempted, if so
    rule: Acceptance = field(default_factory=Acceptance)

    @property
    def changed(self) -> bool:
        return any(d.accepted for d in self.constants) or any(d.accepted for d in self.rewrites)

    def to_dict(self) -> dict[str, Any]:
        def pair(r: ResidualPair | None) -> list[float | None] | None:
            return None if r is None else [None if v is None else float(v) for v in r]
        return {
            "expressions": {f: expression_text(e) for f, e in self.expressions.items()},
            "latex": dict(self.latex),
            "complexity": int(self.complexity),
            "constants": [d.to_dict() for d in self.constants],
            "rewrites": [d.to_dict() for d in self.rewrites],
            "residuals_numeric": pair(self.residuals_numeric),
            "residuals_exact": pair(self.residuals_exact),
            "rule": {"ratio": self.rule.ratio, "atol": self.rule.atol, "roundoff": self.rule.roundoff,
                     "rtol": self.rule.rtol},
            "seconds": float(self.seconds),
            "note": self.note,
        }


def exact_form(problem: Problem, exprs: Mapping[str, sp.Expr], check: Check, *, rule: Acceptance = Acceptance(),
               rewrites: Sequence[tuple[str, Rewrite]] = REWRITES) -> ExactForm:
    """Exact closed forms for ``exprs`` (field -> sympy expression) of ``problem``.

    ``check(exprs) -> (R_eq, R_con)`` must evaluate the verification residuals on
    points no earlier stage saw. Steps, each checked against the residuals of the
    input with ``rule``: merge redundant float factors, identify float constants
    (jointly, then one at a time), solve the equations for the floats left,
    collect terms and normalise signs.
    """
    clock = time.perf_counter()
    variables = list(problem.symbols)
    current = dict(exprs)
    before = safe_check(check, current)
    if before is None:
        return _result(current, [], [], None, None, rule, clock, "the input could not be evaluated")
    residuals = before
    if any(has_series(e) for e in current.values()):
        return _series_form(problem, current, check, before, rule, clock)
    merged, merge_log = apply_rewrites(current, check, before, variables,
                                       (("merge_constant_factors", merge_constant_factors),), rule)
    current, residuals = merged, _last_accepted(merge_log, residuals)
    bounds = {s: (v.lo, v.hi) for s, v in zip(variables, problem.variables)}
    extra = context_bases(current, bounds) + problem_bases(problem)
    current, constants = identify_constants(current, check, before, rule, extra)
    # what has no short closed form may still be fixed by the equations (algebraic rates such as Kovasznay's)
    current, solved = solve_constants(problem, current, check, before, rule)
    constants += solved
    residuals = _last_accepted(constants, residuals)
    current, log = apply_rewrites(current, check, before, variables, rewrites, rule)
    residuals = _last_accepted(log, residuals)
    return _result(current, constants, merge_log + log, before, residuals, rule, clock, None)


def choose_gauges(problem: Problem, exprs: Mapping[str, sp.Expr], check: Check, before: ResidualPair,
                  rule: Acceptance = Acceptance()) -> tuple[dict[str, sp.Expr], list[RewriteDecision]]:
    """Each field the equations leave free up to a function of some variables (a pressure up to a function
    of time: :func:`~desyr.symbolic.gauge.free_function_variables`) printed as the simplest member of its
    class the data allow: the additive part in those variables alone dropped, else replaced by a constant,
    each checked by the residuals like an identified constant (data that fix the field keep it).  Run on the
    selected expression before it is verified (:func:`desyr.stages.closed_form.choose_gauge`), so the printed
    expression and its exact form are the same member."""
    current = dict(exprs)
    decisions: list[RewriteDecision] = []
    symbols = problem.vocabulary.var_symbols
    for name, expr in exprs.items():
        if has_series(expr):
            continue        # a sum is never cut or rearranged
        orders = [jet.wrt for eq in problem.equations for s in eq.residual.free_symbols
                  if (jet := problem.vocabulary.jet_of(s)) is not None and jet.field == name]
        free = free_function_variables(orders, problem.variable_names)
        if free is None:
            continue
        ends = [(v.lo, v.hi) for v in problem.variables if v.name in free]
        others = [(symbols[v.name], v.lo, v.hi) for v in problem.variables if v.name not in free]
        why = f"{name} is free up to {'a function of ' + ', '.join(free) if free else 'a constant'} (the " \
              f"equations hold it only through {', '.join(sorted({name + '_' + ''.join(o) for o in orders}))})"
        for member in gauge_members(expr, [symbols[v] for v in free], ends, others):
            after = safe_check(check, {**current, name: member})
            ok = rule.accepts(before, after)
            decisions.append(RewriteDecision("gauge", name, expr, member, ok, before, after,
                                             f"{why}: its simplest member the data allow" if ok else
                                             f"{why}: the data fix this part"))
            if ok:
                current[name] = member
                break
    return current, decisions


def _series_form(problem: Problem, exprs: dict[str, sp.Expr], check: Check, before: ResidualPair, rule: Acceptance,
                 clock: float) -> ExactForm:
    """A series: its float constants identified (checked as any), nothing rewritten: the canonical rewrites
    and the equations' solving are for finite formulas, and a sum is never cut or expanded."""
    if not any(e.atoms(sp.Float) for e in exprs.values()):
        return _result(exprs, [], [], before, before, rule, clock, "an exact series: nothing to identify")
    bounds = {s: (v.lo, v.hi) for s, v in zip(problem.symbols, problem.variables)}
    current, constants = identify_constants(exprs, check, before, rule,
                                            context_bases(exprs, bounds) + problem_bases(problem))
    return _result(current, constants, [], before, _last_accepted(constants, before), rule, clock, None)


def _last_accepted(decisions: Sequence[ConstantDecision | RewriteDecision], fallback: ResidualPair) -> ResidualPair:
    accepted = [d.residuals_after for d in decisions if d.accepted and d.residuals_after is not None]
    return accepted[-1] if accepted else fallback


def _result(exprs: Mapping[str, sp.Expr], constants: list[ConstantDecision], rewrites: list[RewriteDecision],
            before: ResidualPair | None, after: ResidualPair | None, rule: Acceptance, clock: float,
            note: str | None) -> ExactForm:
    return ExactForm(
        expressions=dict(exprs), constants=constants, rewrites=rewrites,
        complexity=sum(complexity(e) for e in exprs.values()),
        latex={f: sp.latex(e, order="none") for f, e in exprs.items()},
        residuals_numeric=before, residuals_exact=after, seconds=time.perf_counter() - clock, note=note, rule=rule)
