"""Measuring a candidate (eps_T, Phi) and its checked cleaning: shared by Stage B, which measures and
cleans each candidate right after its refit, and Stage C, whose gates compare what is measured here.

Stage-neutral on purpose, so that no stage imports a later one.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import sympy as sp

from desyr.errors import PluginError
from desyr.model.candidates import Candidate
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.residuals import Scores, for_refinement, physics_scores
from desyr.symbolic.degenerate import describe, near_degenerate_parts, proposals, reduce
from desyr.symbolic.expressions import complexity
from desyr.symbolic.gauge import fix_gauge
from desyr.symbolic.limits import REFIT_VANISHING, limit_tree, vanishing_tree
from desyr.symbolic.numeric import evaluate
from desyr.symbolic.series import has_series
from desyr.symbolic.simplify import cleaning_proposal
from desyr.symbolic.time_limit import OutOfTime, time_limit


def teacher_error(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> tuple[float | None, dict[str, float]]:
    """eps_T of eq. teacher-compat per field on X_S, and their mean (coupled form)."""
    if ctx.teacher_values is None:
        return None, {}
    per_field = {}
    for j, f in enumerate(ctx.problem.fields):
        target = ctx.teacher_values[:, j]
        pred = evaluate(exprs[f], ctx.problem.symbols, ctx.points.search)
        denom = float(np.sum(target ** 2))
        err = float(np.sqrt(np.sum((pred - target) ** 2) / denom)) if denom > 0 else float(np.sqrt(np.mean((pred - target) ** 2)))
        per_field[f] = err if math.isfinite(err) else math.inf
    return float(np.mean(list(per_field.values()))), per_field


def measure_phi(ctx: RunContext, exprs: Mapping[str, sp.Expr]) -> Scores:
    residuals = for_refinement(ctx.problem, exprs, [], ctx.points, ctx.constraint_weight, jacobian=False)
    scores = physics_scores(residuals, ctx.constraint_weight)
    if not all(math.isfinite(v) for v in (scores.rho_r, scores.rho_c)):
        return Scores(math.inf, math.inf, math.inf)
    return scores


def measure(candidate: Candidate, ctx: RunContext) -> None:
    """Fill eps_T and Phi for the candidate's current expressions."""
    if not candidate.expressions:
        return
    candidate.eps_T, candidate.eps_T_fields = teacher_error(ctx, candidate.expressions)
    scores = measure_phi(ctx, candidate.expressions)
    candidate.rho_r, candidate.rho_c, candidate.phi = scores.rho_r, scores.rho_c, scores.phi


#: the squared misfit may grow by this many noise variances per fixed unknown (a 3-sigma test)
CHI_SQUARE = 9.0


def misfit_allows(problem: Problem, before: Mapping[str, sp.Expr], after: Mapping[str, sp.Expr], fixed: int) -> bool:
    """Whether fixing ``fixed`` unknowns raised the squared misfit by no more than chance: at most
    CHI_SQUARE noise variances each, the noise variance estimated from the free fit."""
    a, b = problem.misfit(before), problem.misfit(after)
    if a is None or b is None:
        return True
    obs = problem.observations
    assert obs is not None
    n = obs.X.shape[0]
    rss = {f: n * a.absolute[f] ** 2 for f in obs.fields}
    floor = {f: n * (1e-9 * obs.scale(f)) ** 2 for f in obs.fields}
    return all(n * b.absolute[f] ** 2 <= rss[f] + (CHI_SQUARE * fixed * rss[f] / max(n - 1, 1)) + floor[f]
               for f in obs.fields)


#: refits a reduced tree (dict field -> expression) with the run's refiner, physics only, and returns
#: the refit's status and its checked expressions (empty when it produced none)
ReducedRefit = Callable[[Mapping[str, sp.Expr]], tuple[str, dict[str, sp.Expr]]]


@dataclass(frozen=True)
class _Baseline:
    """The refit's own figures: every cleaning step is judged against these, never against a
    previous step, so that small increases cannot accumulate."""

    phi: float
    eps_T: float | None
    exprs: Mapping[str, sp.Expr]


def _accepts(ctx: RunContext, base: _Baseline, exprs: Mapping[str, sp.Expr]
             ) -> tuple[bool, float | None, dict[str, float], Scores]:
    """eq. cleaning-acceptance: finite, Phi <= factor*Phi + absolute and the eps_T condition."""
    method = ctx.method
    eps, eps_fields = teacher_error(ctx, exprs)
    scores = measure_phi(ctx, exprs)
    # The same factors as the relative gates (one source: ctx.method), so cleaning never
    # accepts what the gates would reject.
    ok_phi = scores.phi <= method.physics_factor * base.phi + method.physics_absolute
    ok_eps = eps is None or (base.eps_T is not None and math.isfinite(eps)
                             and eps <= method.teacher_factor * base.eps_T + method.teacher_absolute)
    # an inverse problem's cleaning must not trade the fit to the data for a shorter tree
    ok_data = misfit_allows(ctx.problem, base.exprs, exprs, 1)
    return math.isfinite(scores.phi) and ok_phi and ok_eps and ok_data, eps, eps_fields, scores


def _adopt(candidate: Candidate, exprs: dict[str, sp.Expr], eps: float | None, eps_fields: dict[str, float],
           scores: Scores) -> None:
    candidate.expressions, candidate.cleaned = exprs, True
    candidate.eps_T, candidate.eps_T_fields = eps, eps_fields
    candidate.rho_r, candidate.rho_c, candidate.phi = scores.rho_r, scores.rho_c, scores.phi


def clean(candidate: Candidate, ctx: RunContext, refit: ReducedRefit | None = None) -> None:
    """Propose removing negligible additive terms; accept only under eq. cleaning-acceptance.

    Besides the paper's term removal, the proposal also snaps constants that equal an
    integer up to 1e-12 (``1.0*sin(...)`` -> ``sin(...)``); the same acceptance check applies.
    With ``refit`` (Stage B's refiner on a reduced tree), near-degenerate parts are then
    removed together with a refit of the remaining constants (:func:`reduce_degenerate`), constants
    that ran off to a degenerate limit are taken there (:func:`take_limits`), and continuous
    symmetries of the constants are fixed the same way (:func:`fix_symmetries`).
    """
    if not candidate.expressions or candidate.phi is None or not math.isfinite(candidate.phi):
        return
    method = ctx.method
    base = _Baseline(candidate.phi, candidate.eps_T, dict(candidate.expressions))
    proposal = {f: cleaning_proposal(e, method.clean_term_tolerance, method.snap_integer_tolerance)
                for f, e in candidate.expressions.items()}
    before, after = _size(candidate.expressions), _size(proposal)
    if after < before:
        ok, eps, eps_fields, scores = _accepts(ctx, base, proposal)
        if ok:
            candidate.cleaning_note = (f"cleaned (terms below {method.clean_term_tolerance:g} dropped, round-off "
                                       f"integers snapped): complexity {before} -> {after}")
            _adopt(candidate, proposal, eps, eps_fields, scores)
        else:
            candidate.cleaning_note = "cleaning proposal rejected by the acceptance check"
    # the reductions below refit trees they rewrite with limits and symmetries of the constants: a series
    # keeps its constants (its refit was Stage B's), so that no rewrite cuts or breaks a sum
    if refit is not None and not any(has_series(e) for e in candidate.expressions.values()):
        reduce_degenerate(candidate, ctx, refit, base)
        take_limits(candidate, ctx, refit, base)
        fix_symmetries(candidate, ctx, refit, base)


def _size(exprs: Mapping[str, sp.Expr]) -> int:
    return sum(complexity(e) for e in exprs.values())


def reduce_degenerate(candidate: Candidate, ctx: RunContext, refit: ReducedRefit, base: _Baseline) -> None:
    """Cleaning with a refit: remove near-degenerate parts (:mod:`desyr.symbolic.degenerate`) and refit the rest.

    Each round finds the parts of the current tree and tries, most reduction first, all of them
    together and then each alone: the reduced tree is refit (``refit``: the run's refiner, physics
    only), given the round-off cleaning proposal, and kept when its complexity is lower, the
    refit converged (or had nothing to fit) and it passes the acceptance check against the refit's
    own Phi and eps_T (``base``).  Rounds go on while one keeps something, at most
    ``cleaning_rounds``, with at most ``cleaning_refits`` refits in all; a refit that raises is a
    rejected proposal, never a failed candidate."""
    method = ctx.method
    X = np.vstack([ctx.points.refine] + list(ctx.points.constraints))
    symbols = ctx.problem.symbols
    refits, kept = 0, []
    start, fields = _size(candidate.expressions or {}), len(candidate.expressions or {})
    for _ in range(method.cleaning_rounds):
        current = dict(candidate.expressions or {})
        parts = near_degenerate_parts(current, symbols, X, method)
        accepted = False
        for chosen in proposals(parts):
            if refits >= method.cleaning_refits:
                break
            reduced, applied = reduce(current, chosen)
            if not applied or _size(reduced) >= _size(current):
                continue        # e.g. 2.0000001*x -> 2*x alone: no simpler, so no refit
            refits += 1
            try:
                status, fitted = refit(reduced)
            except (KeyboardInterrupt, MemoryError, PluginError):     # a refiner that changed its inputs
                raise
            except Exception:
                continue
            if status not in ("converged", "fixed") or set(fitted) != set(current):
                continue
            fitted = {f: cleaning_proposal(e, method.clean_term_tolerance, method.snap_integer_tolerance)
                      for f, e in fitted.items()}
            if _size(fitted) >= _size(current):
                continue
            ok, eps, eps_fields, scores = _accepts(ctx, base, fitted)
            if ok:
                kept += applied
                _adopt(candidate, fitted, eps, eps_fields, scores)
                accepted = True
                break
        if not accepted:
            break
    if kept:
        note = (f"cleaned with a refit ({describe(kept, fields)}): complexity {start} -> "
                f"{_size(candidate.expressions or {})}")
        candidate.cleaning_note = f"{candidate.cleaning_note}; {note}" if candidate.cleaning_note else note
    elif refits:
        note = f"near-degenerate parts found; {refits} reduced tree(s) refit, none kept"
        candidate.cleaning_note = f"{candidate.cleaning_note}; {note}" if candidate.cleaning_note else note


def fix_symmetries(candidate: Candidate, ctx: RunContext, refit: ReducedRefit, base: _Baseline) -> None:
    """Gauge fixing (:mod:`desyr.symbolic.gauge`): a constant per continuous symmetry of a field's
    constants set to 0 or +-1, the rest refit with the physics (``refit``), kept under the acceptance
    check against the refit's own figures (``base``).  Without it the refit stops anywhere on the
    symmetry's manifold and no constant of ``-37215.55*x/(37215.55 + 37215.55*x**2 + 18607.78*t)``
    has a closed form."""
    current = dict(candidate.expressions or {})
    X = np.vstack([ctx.points.refine] + list(ctx.points.constraints))
    proposal, fixed = dict(current), []
    for f in ctx.problem.fields:
        if f not in current:
            continue
        try:
            proposal[f], fixes = fix_gauge(current[f], ctx.problem.symbols, X)
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception:   # a tree numpy or sympy cannot differentiate here keeps its constants
            continue
        fixed += [f"{f}: {fix.value:.6g} -> {fix.canonical}" for fix in fixes]
    if not fixed:
        return
    ok = _refit_and_adopt(candidate, ctx, refit, base, proposal)
    note = f"gauge fixed ({'; '.join(fixed)}){'' if ok else ': refit rejected'}"
    candidate.cleaning_note = f"{candidate.cleaning_note}; {note}" if candidate.cleaning_note else note


def take_limits(candidate: Candidate, ctx: RunContext, refit: ReducedRefit, base: _Baseline) -> None:
    """Degenerate limits (:mod:`desyr.symbolic.limits`): a field whose constants ran off to huge values
    (``-143254104.04/(1 + 143254103.66*x)``, ``atan(K*y/(K*x - 1))``) is rewritten at the limit they point
    to (``-1.0000000027/x``, ``atan(y/x)``), and a float that ran off to 0 (at most
    :data:`~desyr.symbolic.limits.REFIT_VANISHING`) is set to 0; the tree is refit with the physics (``refit``) and kept under the acceptance
    check against the refit's own figures (``base``), so identification sees the form the refit could
    only approach."""
    current = dict(candidate.expressions or {})
    X = np.vstack([ctx.points.refine] + list(ctx.points.constraints))
    proposal, taken = dict(current), []
    for f, expr in current.items():
        try:
            with time_limit(LIMIT_SECONDS):
                limit = limit_tree(expr, ctx.problem.symbols, X)
                zeroed = vanishing_tree(expr if limit is None else limit, ctx.problem.symbols, X,
                                        max(ctx.method.exact_tolerance, REFIT_VANISHING))
        except (KeyboardInterrupt, MemoryError):
            raise
        except (OutOfTime, Exception):   # out of time, or a tree sympy cannot cancel: it keeps its constants
            continue
        if limit is not None:
            taken.append(f"degenerate limit taken ({f}: {sp.sstr(limit, full_prec=False)})")
        if zeroed is not None:
            taken.append(f"vanishing constants set to 0 ({f}: {sp.sstr(zeroed, full_prec=False)})")
        proposal[f] = zeroed if zeroed is not None else limit if limit is not None else expr
    if not taken:
        return
    ok = _refit_and_adopt(candidate, ctx, refit, base, proposal)
    note = f"{'; '.join(taken)}{'' if ok else ': refit rejected'}"
    candidate.cleaning_note = f"{candidate.cleaning_note}; {note}" if candidate.cleaning_note else note


#: seconds of SymPy work for one field's limit (cancelling a quotient is cheap; a bound keeps it so)
LIMIT_SECONDS = 2.0


def _refit_and_adopt(candidate: Candidate, ctx: RunContext, refit: ReducedRefit, base: _Baseline,
                     proposal: Mapping[str, sp.Expr]) -> bool:
    """Refit ``proposal`` with the physics, clean it and adopt it when it passes the acceptance check."""
    try:
        status, fitted = refit(proposal)
    except (KeyboardInterrupt, MemoryError, PluginError):
        raise
    except Exception:   # a refit that raises is a rejected proposal, as in reduce_degenerate
        return False
    if status not in ("converged", "fixed") or set(fitted) != set(candidate.expressions or {}):
        return False
    fitted = {f: cleaning_proposal(e, ctx.method.clean_term_tolerance, ctx.method.snap_integer_tolerance)
              for f, e in fitted.items()}
    ok, eps, eps_fields, scores = _accepts(ctx, base, fitted)
    if ok:
        _adopt(candidate, fitted, eps, eps_fields, scores)
    return ok
