"""Putting the separate verifier's verdict into a :class:`~desyr.model.result.Result`.

The run's process only transports: it sends the config text and the printed expressions,
and writes back what the verifier printed.  The run's own residuals stay beside the
verdict as ``run_residuals``; when they disagree with the verifier's, the result says so.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from desyr.model.problem import Problem
from desyr.model.result import ConfigRecord, Residuals, Result, VerificationRecord
from desyr.verify.child import TIMEOUT, VerifierError, request_verdict
from desyr.verify.request import config_of, make_request
from desyr.verify.verdict import config_sha256

#: below this, two residuals are both round-off and never "disagree"
ROUNDOFF = 1e-12


def config_record(problem: Problem) -> ConfigRecord:
    config = config_of(problem)
    return ConfigRecord(config["format"], config["source"], config_sha256(config["text"]), config["text"])


def attach_verdict(result: Result, problem: Problem, meanwhile: Callable[[], None] | None = None,
                   seconds: float | None = None) -> Result:
    """Ask the verifier about ``result``'s printed expressions (and exact form) on ``problem``; record its answer.
    ``meanwhile`` runs while the verifier works, when one is asked; ``seconds`` bounds the verifier's time
    (a run's budget; None: the verifier's own limit)."""
    run_residuals = result.residuals if result.verification is None else result.verification.run_residuals
    if not problem.config_text:     # built in Python, not read from a config: nothing to hand the verifier
        result.verification = VerificationRecord("unverified", "the problem carries no config text (load it with "
                                                 "desyr's loaders to have it verified)", None, run_residuals)
        result.exact = False
        return result
    result.config = config_record(problem)
    if not result.expression:
        result.verification = VerificationRecord("not_exact", "no expression was selected", None, run_residuals)
        result.exact = False
        return result
    exact = result.exact_form.expressions if result.exact_form else None
    try:
        # no seed: the verifier draws its points from fresh entropy, and its answer records the seed
        limit = {} if seconds is None else {"timeout": min(seconds, TIMEOUT)}
        answer = request_verdict(make_request(problem, result.expression, exact), meanwhile=meanwhile, **limit)
    except VerifierError as exc:
        within = "" if seconds is None else " (its time was what the run's budget left)"
        result.verification = VerificationRecord("unverified", f"the verifier gave no verdict: {exc}{within}", None,
                                                 run_residuals)
        result.exact = False
        return result
    _adopt_printed(result, answer)
    residuals = _residuals(answer["residuals"])
    result.verification = VerificationRecord(answer["verdict"], str(answer["reason"]), answer, run_residuals,
                                             _disagreement(run_residuals, residuals, result.exact_tolerance))
    result.residuals = residuals
    rel_l2 = answer["residuals"].get("rel_l2")
    result.errors.rel_l2 = None if rel_l2 is None else _num(rel_l2)     # the verifier's, not the file's
    result.exact = bool(answer["exact"])
    result.exact_tolerance = float(answer["exact_tolerance"])
    return result


def _adopt_printed(result: Result, answer: dict[str, Any]) -> None:
    """Store the formulas as the verifier printed what it parsed and decided (the parser's canonical
    print), never as the text it was sent: a result read from a file may carry any text, and
    ``sin(pi*x) + 0*log(x - 2)`` (NaN in doubles for x < 2) is ``sin(pi*x)`` once parsed."""
    printed = _texts(answer)
    if result.expression and set(printed) >= set(result.expression):
        result.expression = {f: printed[f] for f in result.expression}
    form = answer.get("exact_form")
    exact = _texts(form) if isinstance(form, dict) else {}
    if result.exact_form is not None and set(exact) >= set(result.exact_form.expressions):
        result.exact_form.expressions = {f: exact[f] for f in result.exact_form.expressions}


def _texts(part: dict[str, Any]) -> dict[str, str]:
    """An answer's (or its exact form's) text per field and unknown."""
    out = {**(part.get("expressions") or {}), **(part.get("unknowns") or {})}
    return {f: e for f, e in out.items() if isinstance(e, str)}


def _residuals(data: dict[str, Any]) -> Residuals:
    return Residuals(_num(data["R_eq"]), None if data.get("R_con") is None else _num(data["R_con"]),
                     [_num(v) for v in data.get("R_eq_per_equation", [])],
                     [_num(v) for v in data.get("R_con_per_constraint", [])],
                     None if data.get("relative") is None else _num(data["relative"]))


def _num(value: Any) -> float:
    return float(value)        # "inf" and "nan" come as strings and read back as floats


def worst(r: Residuals | None) -> float | None:
    return None if r is None else r.worst()


def _disagreement(run: Residuals | None, verifier: Residuals, tolerance: float) -> str | None:
    """A line when the run's numbers and the verifier's differ beyond round-off (10x, or across the tolerance)."""
    a, b = worst(run), worst(verifier)
    if a is None or b is None:
        return None
    if not (math.isfinite(a) and math.isfinite(b)):
        same = math.isfinite(a) == math.isfinite(b)
    else:
        same = (a <= tolerance) == (b <= tolerance) and (max(a, b) <= ROUNDOFF or max(a, b) <= 10 * max(min(a, b), ROUNDOFF))
    if same:
        return None
    return (f"the run's own residuals (worst {a:.3g}) and the verifier's (worst {b:.3g}) differ beyond round-off; "
            "the verdict is the verifier's")
