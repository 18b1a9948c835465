"""Stage B's contract: what a refiner may do with a candidate, checked on every refit (shared by ``desyr
run`` and :mod:`desyr.testing`). A refiner reads the candidate, the problem and the points, changes
none of them, and returns a :class:`RefitOutcome` whose expressions are the candidate's own fields in the
problem's variables: its frozen tree with refitted constants."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp

from desyr.errors import PluginError
from desyr.extension.roles import Refiner
from desyr.model.candidates import Candidate, RefitOutcome, candidate_view, changed_fields
from desyr.model.problem import Problem
from desyr.stages.watch import unchanged
from desyr.symbolic.expressions import ExpressionError, expression_text
from desyr.symbolic.family import outside_family
from desyr.symbolic.series import not_finite


def contracted_refit(refiner: Refiner, cand: Candidate, problem: Problem, points: Any
                     ) -> tuple[RefitOutcome, dict[str, sp.Expr]]:
    """The refiner's outcome for ``cand`` and its checked expressions, held to the contract (shared by
    ``desyr run`` and :mod:`desyr.testing`): a RefitOutcome, expressions of the candidate's own fields in
    the problem's variables, finite where the candidate was, and finite constants when converged."""
    view = candidate_view(cand)
    with unchanged("refiner", refiner.name, {"problem": problem, "points": points}, Tampered):
        answer = refiner.refine(view, problem, points)
    changed = changed_fields(cand, view)
    if changed:
        raise Tampered(f"refiner '{refiner.name}' broke its contract: it changed candidate {cand.id}'s "
                       f"{', '.join(changed)}; a refiner reads the candidate (its frozen tree stays as the "
                       "search found it) and returns its refit in a RefitOutcome")
    return checked_refit(answer, refiner.name, cand, problem, family_points(points))


def family_points(points: Any) -> np.ndarray:
    """Where a refit is compared with its frozen tree's family: a spread of the refinement points."""
    X = np.asarray(points.refine, dtype=float)
    return X[np.linspace(0, len(X) - 1, min(len(X), FAMILY_POINTS)).astype(int)] if len(X) else X


#: how many refinement points the family check compares on
FAMILY_POINTS = 48


class Tampered(PluginError):
    """A refiner changed the candidate it was given: the run stops naming it, whatever the other refits do."""


def checked_refit(answer: object, name: str, cand: Candidate, problem: Problem, X: np.ndarray | None = None
                  ) -> tuple[RefitOutcome, dict[str, sp.Expr]]:
    """:func:`contracted_refit` on the refiner's ``answer``; with ``X``, each refit is held to be the
    candidate's frozen tree with other constants (:func:`in_family`) at those points."""
    outcome = checked_outcome(answer, name)
    for f, e in (outcome.expressions or {}).items():
        if isinstance(e, sp.Basic) and not_finite(e) and not not_finite(cand.search_expressions.get(f, e)):
            raise ValueError(f"refined {f} = {e} is not finite")
    refined = _checked_expressions(outcome, cand, problem)
    if X is not None:
        in_family(refined, cand, problem, X)
    bad = [p for p in outcome.params if not (isinstance(p, (int, float)) and math.isfinite(p))]
    if outcome.converged and bad:
        raise ValueError(f"a converged outcome has non-finite constants {bad[:3]}")
    return outcome, refined


def in_family(refined: Mapping[str, sp.Expr], cand: Candidate, problem: Problem, X: np.ndarray) -> None:
    """Raise unless each refined field is the candidate's frozen tree with some values for its constants
    (a refiner that answers with another formula would be credited with the search's find)."""
    own = set(problem.symbols)
    for f, e in refined.items():
        if f in problem.unknown_names:
            continue      # an unknown is a number the refit chooses
        frozen = cand.search_expressions[f]
        starts = {s: _start(cand.search_expressions.get(s.name)) for s in frozen.free_symbols - own}
        why = outside_family(frozen, e, problem.symbols, X, starts)
        if why:
            raise ValueError(f"refined {f} = {expression_text(e)} for candidate {cand.id}: {why}; a refiner refits "
                             "the constants of the frozen tree and returns that tree")


def _start(value: object) -> float:
    """Where an unknown coefficient in a frozen tree starts the family fit: its seeded value, else 1."""
    return float(value) if isinstance(value, sp.Expr) and value.is_number and value.is_real else 1.0




def checked_outcome(outcome: object, name: str) -> RefitOutcome:
    """The refiner's answer held to its type (shared by ``desyr run`` and :mod:`desyr.testing`)."""
    if not isinstance(outcome, RefitOutcome):
        raise TypeError(f"refiner '{name}' returned {type(outcome).__name__}, not a RefitOutcome; "
                        "return a desyr.plugin.RefitOutcome")
    return outcome


def checked_expressions(outcome: RefitOutcome, cand: Candidate, problem: Problem) -> dict[str, sp.Expr]:
    """:func:`_checked_expressions`, for :mod:`desyr.testing`."""
    return _checked_expressions(outcome, cand, problem)


def _checked_expressions(outcome: RefitOutcome, cand: Candidate, problem: Problem) -> dict[str, sp.Expr]:
    """The refined expressions, only if they are sympy expressions of the candidate's fields
    in the problem's variables (a refiner may not change what the candidate is about)."""
    exprs = outcome.expressions or {}
    if not exprs:
        return {}
    if set(exprs) != set(cand.search_expressions):
        raise ValueError(f"refined fields {sorted(exprs)} differ from the candidate's {sorted(cand.search_expressions)}")
    names = set(problem.variable_names)
    for f, e in exprs.items():
        if not isinstance(e, sp.Expr):
            raise TypeError(f"refined {f} is {type(e).__name__}, not a sympy expression")
    for name in problem.unknown_names:
        if name in exprs and not exprs[name].is_number:
            raise ValueError(f"refined unknown {name} = {exprs[name]} is not a number")
    # a family written in the unknowns (an exact solver's) becomes the member with the fitted values
    exprs = {f: problem.resolved(e, exprs) for f, e in exprs.items()}
    for f, e in exprs.items():
        foreign = sorted(s.name for s in e.free_symbols if s.name not in names)
        if foreign:
            raise ValueError(f"refined {f} uses {', '.join(foreign)}, which are not variables of the problem")
    by_name = {s.name: s for s in problem.symbols}
    mapped = {f: e.xreplace({s: by_name[s.name] for s in e.free_symbols}) for f, e in exprs.items()}
    for e in mapped.values():   # what is reported is the text: it must read back
        try:
            problem.parse(str(expression_text(e)))
        except ExpressionError as exc:
            if not e.has(sp.I):
                raise      # a Piecewise, an unknown function: what the refiner returned is not the language
            raise UnreadableRefit(f"the refit {expression_text(e)} does not read back: {exc}") from None
    return mapped


class UnreadableRefit(ValueError):
    """A refit whose text the language cannot read back (``I`` from a complex-valued tree, as an exact
    solver's ``sqrt(gamma - omega)`` becomes for gamma < omega): the candidate fails, the refiner kept its
    contract."""
