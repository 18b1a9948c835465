"""What the data say of an inverse problem's verdict: the misfit to the observations beside the physics,
and whether the unknowns' values are decided at all (inside their declared ranges, seen by the physics and
the data, and narrowed by the data), on the verifier's own points (docs/inverse.md#the-verdict)."""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp

from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.model.residuals import sensitivity
from desyr.model.unknowns import Misfit, Unknown
from desyr.model.written import exact_number
from desyr.symbolic.expressions import expression_text


def undecided(problem: Problem, exprs: Mapping[str, sp.Expr], points: VerificationPoints) -> str:
    """Why the unknowns' values cannot be the problem's: one outside its declared range, or a direction
    of the unknowns that neither the physics nor the data see (on the verifier's own points)."""
    for unknown in problem.unknowns:
        value = exprs[unknown.name]
        if not unknown.contains(value, problem.numbers):
            # compared exactly; a value too close to an end for 30 digits to tell counts as outside
            return (f"{unknown.name} = {_value_text(value, *_ends(problem, unknown))} lies outside its declared range "
                    f"[{unknown.lo:g}, {unknown.hi:g}] (compared exactly)")
    found = sensitivity(problem, exprs, points.interior, points.constraints, points.reductions)
    if found is None:
        return ""
    loose = _loose(problem, found.errors)
    if not found.blind:
        return loose
    what = f"only {found.combination} is determined" if found.combination else "they are not determined"
    return (f"the physics and the data do not decide {', '.join(found.blind)} ({what}; the Jacobian has rank "
            f"{found.rank} of {found.size})")


def _ends(problem: Problem, unknown: Unknown) -> tuple[sp.Expr, sp.Expr]:
    return exact_number(unknown.lo, problem.numbers), exact_number(unknown.hi, problem.numbers)


def _value_text(value: sp.Expr, lo: sp.Expr, hi: sp.Expr) -> str:
    """An unknown's value as read: a long exact number as the shortest decimal that still lies outside
    [lo, hi] (``-1.31e-25``, not a 50-digit fraction), anything else as its formula."""
    text = expression_text(value) or ""
    if not value.is_number or len(text) <= 24:
        return f"{text:.60}"
    for digits in (3, 6, 10, 20, 40):
        short = sp.N(value, digits)
        if short.is_Float and not bool(lo <= sp.Rational(str(short)) <= hi):
            return str(short)
    return f"{text:.60}"


#: standard errors of an unknown that may span its declared range before the data are said not to decide it
DECIDED_SIGMAS = 3.0


def _loose(problem: Problem, errors: Mapping[str, float]) -> str:
    """An unknown the physics and the data see, but so faintly that three standard errors span its whole
    declared range: the data do not narrow it, and every value in it fits. Noise stated relative to a
    field's RMS grows with a constant every candidate shares (u = 10**8 + ...), until it swamps the signal."""
    for unknown in problem.unknowns:
        error = errors.get(unknown.name, 0.0)
        if not math.isfinite(error) or DECIDED_SIGMAS * error >= unknown.hi - unknown.lo:
            return (f"the data do not decide {unknown.name}: its standard error {error:.3g} is so large that "
                    f"{DECIDED_SIGMAS:g} of them span its declared range [{unknown.lo:g}, {unknown.hi:g}]")
    return ""


def observations_verdict(problem: Problem, exprs: Mapping[str, sp.Expr]) -> dict[str, Any] | None:
    """The misfit to the observations, reported beside the physics (None without observations): a
    two-sided test on those that carry information (docs/inverse.md#the-verdict)."""
    misfit = problem.misfit(exprs)
    obs = problem.observations
    if misfit is None or obs is None:
        return None
    # every field, worst first: the test is on the worst, but a user of a coupled system wants each
    fields = sorted(misfit.relative, key=lambda f: -misfit.relative[f])
    each = ", ".join(f"{misfit.relative[f]:.3g} ({f})" for f in fields)
    close = misfit.too_close
    n = obs.X.shape[0]
    band = f"{misfit.low:.3g} to {misfit.allowed:.3g}" if misfit.low else f"{misfit.allowed:.3g}"
    pooled = math.isfinite(misfit.worst) and misfit.worst <= misfit.allowed
    within = "far below" if any(v < misfit.low for v in misfit.relative.values()) else "within" if pooled else "above"
    counted = f"{n - misfit.imposed} informative observations" if misfit.imposed else f"{n} observations"
    reason = (f"the relative misfit to the {counted} is {each}, {within} what "
              f"the stated noise {obs.noise:g} allows ({band})")
    windows = _windows(misfit)
    if windows:
        reason += ("; but " if within == "within" else "; and ") + "; ".join(windows)
    if close:
        reason += (f": the data are closer to {', '.join(close)} than their noise allows, so the noise is "
                   "overstated or the formula follows it")
    warning = (f"{misfit.imposed} of the {n} observations lie where a constraint fixes the value "
               f"({', '.join(misfit.where)}): they carry no information and are left out of the test"
               if misfit.imposed else "")
    reason = f"{reason}; {warning}" if warning else reason
    return {"relative_misfit": {f: v if math.isfinite(v) else "inf" for f, v in misfit.relative.items()}, "allowed": misfit.allowed,
            "least": misfit.low, "noise": obs.noise, "points": int(n), "uninformative": misfit.imposed,
            "consistent": misfit.consistent and not close, "reason": reason, "warning": warning, "windows": windows,
            "data": obs.origin, "sha256": _digest(obs)}


def _windows(misfit: Misfit) -> list[str]:
    """Where the scan found a run of observations the stated noise does not allow, field by field."""
    said = [f"on {w.text} the misfit is {w.misfit:.3g} ({f}), above what the stated noise allows there "
            f"({w.bound:.3g})" for f, w in misfit.above.items()]
    return said + [f"on {w.text} the misfit is {w.misfit:.3g} ({f}), far below what the stated noise allows "
                   f"there ({w.bound:.3g})" for f, w in misfit.below.items()]


def _digest(obs: Any) -> str:
    """The observations the verdict was given on: their points and values, whatever file held them."""
    return hashlib.sha256(np.ascontiguousarray(obs.X).tobytes() + np.ascontiguousarray(obs.values).tobytes()).hexdigest()
