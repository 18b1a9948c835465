"""The verdict, computed from the problem as data and the printed expressions, nothing else.

The inputs are a config (its text) and expression text; neither can run code, since the
config goes through the checked loader and every expression through the bounded parser.
No plugin, entry point, result file or run store is read.  The verifier draws its own
points from its own seed streams (:data:`STREAMS`), so the points of the run, which every
component could see, play no part.

Three verdicts:

- ``proved``: the exact form (no float constant) reduces every residual to exactly 0
  (:mod:`desyr.verify.proof`), it is smooth enough, its residuals are at round-off on the
  fresh points, and the printed expression is that exact form, floats aside
  (:mod:`desyr.verify.printed`): a printed formula that is not stays ``verified`` beside a
  proved exact form;
- ``verified``: smooth enough, finite, and max(R_eq, R_con) at most the exact tolerance on
  the fresh points;  the tolerance is the config's (``[selection] exact_tolerance``): one other than
  the default is named in the reason and in ``tolerance_warning``, and Proved never uses a looser one;
- ``not_exact``: anything else, with the reason.
"""
from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp

from desyr._version import __version__
from desyr.config.reading import problem_from_dict, problem_from_toml
from desyr.config.settings import read_section
from desyr.errors import ConfigError
from desyr.model.constants import METHOD
from desyr.model.nesting import DataError, config_json_loads
from desyr.model.points import VerificationPoints
from desyr.model.problem import Problem
from desyr.symbolic.expressions import ExpressionError, expression_text
from desyr.symbolic.time_limit import OutOfTime
from desyr.verify.budget import BOUND, Budget
from desyr.verify.data_verdict import observations_verdict, undecided
from desyr.verify.looks import (
    Checked,
    all_points,
    check,
    difference,
    looked,
    plain,
    rel_l2,
    sampled,
    values_checked,
)
from desyr.verify.precise import data_differ, spread, values_differ
from desyr.verify.printed import AGREEMENT, printed_difference
from desyr.verify.problem_operators import operators_differ
from desyr.verify.proof import Proof, prove
from desyr.verify.regularity import resolve_abs
from desyr.verify.request import REQUEST_SCHEMA
from desyr.verify.sampling import CONSTRAINT_FLOOR, INTERIOR_FLOOR, STREAMS, drawn_seed, fresh_points
from desyr.verify.series_values import terms_differ
from desyr.verify.series_verdict import decision as series_decision
from desyr.verify.truncated import is_series

SCHEMA = "desyr.verdict/1"
#: the observations a Proved inverse answer's values are compared at in mpmath (spread over them)
OBSERVED = 256
VERDICTS = ("proved", "verified", "not_exact")


def config_sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_problem(config: Mapping[str, Any]) -> Problem:
    """The problem from its config text, through the same checked loader as ``desyr run``."""
    text, kind = config.get("text"), config.get("format", "toml")
    source = str(config.get("source") or "<config>")[:200]
    if not isinstance(text, str) or kind not in ("toml", "json"):
        raise ConfigError("the request's config must be {format: toml|json, text: str}")
    if kind == "toml":
        return problem_from_toml(text, source=source, tidy=False)
    try:
        data = config_json_loads(text)     # numbers as typed, as a TOML config's
    except DataError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{source}: the config is not JSON data ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a table")
    return problem_from_dict(data, source=source, tidy=False)


def parse_fields(problem: Problem, texts: Any, what: str) -> dict[str, sp.Expr]:
    """Expression text per field (and a number per unknown of an inverse problem), through the bounded
    parser, in the problem's names."""
    if not isinstance(texts, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
        raise ConfigError(f"{what} must map each field to expression text")
    names = [*problem.fields, *problem.unknown_names]
    if sorted(texts) != sorted(names):
        has = " and the unknowns " + ", ".join(problem.unknown_names) if problem.unknowns else ""
        raise ConfigError(f"{what} gives {', '.join(sorted(texts)) or 'none'}; the problem has the fields "
                          f"{', '.join(problem.fields)}{has}")
    try:
        out = {f: problem.parse(texts[f]) for f in names}
    except (ExpressionError, RecursionError) as exc:
        raise ConfigError(f"{what}: {exc}") from None
    for name in problem.unknown_names:
        if not out[name].is_number:
            raise ConfigError(f"{what}: the unknown {name} must be a number, got {texts[name]!r:.60}")
    # a field may name an unknown (exp(-nu*t)): it stands for the value given beside it, so every stage
    # (the numbers, the proof, the data test) sees one function of the variables
    values = {problem.unknown_symbol(n): out[n] for n in problem.unknown_names}
    for name in problem.fields:
        if values and out[name].free_symbols & set(values):
            out[name] = out[name].xreplace(values)
    return out


def decide(request: Mapping[str, Any], bound: float = BOUND) -> dict[str, Any]:
    """The verdict for one request (a plain mapping, as read from JSON) within ``bound`` seconds; raises
    ConfigError on bad input, or when even reading the problem does not end within the bound."""
    asked = request.get("bound") if isinstance(request, Mapping) else None
    if isinstance(asked, (int, float)) and not isinstance(asked, bool) and 0 < asked < bound:
        bound = float(asked)        # what is left of desyr verify's own bound, after it read the problem
    budget = Budget(bound)
    # overflow in a residual is an answer (not finite), not a warning line
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings(), budget.whole():
            warnings.simplefilter("ignore")
            return _decide(request, budget)
    except OutOfTime:
        raise ConfigError(f"no verdict within the verifier's time bound of {bound:g} s") from None


def _decide(request: Mapping[str, Any], budget: Budget) -> dict[str, Any]:
    clock = time.perf_counter()
    if not isinstance(request, Mapping) or request.get("schema") != REQUEST_SCHEMA:
        raise ConfigError(f"not a verification request of schema {REQUEST_SCHEMA}")
    config = request.get("config")
    if not isinstance(config, Mapping):
        raise ConfigError("the request has no config")
    seed, seed_from = drawn_seed(request)
    def unread(late: str) -> Problem:
        raise ConfigError(f"no verdict within the verifier's time bound of {budget.bound:g} s: reading the "
                          f"problem was {late}")

    problem = budget.within("reading", lambda: read_problem(config), unread)
    tolerance = read_section(problem, "selection")["exact_tolerance"]   # no component can change it
    # a config may loosen its own tolerance (Verified means within it); Proved holds to the default at least
    proof_tolerance = min(tolerance, METHOD.exact_tolerance)
    tolerance_warning = tolerance_note(tolerance)
    numeric = parse_fields(problem, request.get("expressions"), "expressions")
    exact_texts = request.get("exact_expressions")
    exact = parse_fields(problem, exact_texts, "exact_expressions") if exact_texts else None
    points = fresh_points(problem, seed)
    series = is_series(numeric) or (exact is not None and is_series(exact))
    if series:
        # its truncated sums on the points, then its four-part proof (docs/verify.md, "... for a series")
        verdict, reason, residuals, exact_part = series_decision(problem, numeric, exact, points, tolerance, budget)
        if problem.unknowns or problem.observations is not None:
            # the data test and the unknowns' sensitivities differentiate and evaluate formulas, not sums
            verdict, reason = "not_exact", (f"{reason}; but a series answer to an inverse problem is not judged "
                                            f"(its data test and its unknowns' sensitivities need a formula)")
        if verdict == "verified":
            sets = all_points(problem, points)
            # past the terms kept a proved tail bound speaks for a sum, where every target has one
            targets = residuals.get("series", [])
            kept = max((int(j["terms"]) for j in targets), default=None) \
                if all(j["norm"] == "pointwise" for j in targets) else None
            # not finished in time is no evidence either (red team 44h: a slow Bessel term used up the share);
            # a series' values outside its sums and its terms each have the share (its formula's parts are unused)
            away = budget.within("precision", lambda: values_differ(problem, numeric, sets, tolerance)
                                 or data_differ(problem, points, tolerance),
                                 lambda late: f"its values at higher precision were {late}") or \
                budget.within("precision", lambda: terms_differ(problem, numeric, sets, tolerance, kept),
                              lambda late: f"its terms at higher precision were {late}") or \
                budget.within("precision", lambda: operators_differ(problem, numeric, points, tolerance,
                                                                    [float(j["size"]) for j in targets]),
                              lambda late: f"its equations at higher precision were {late}")
            verdict, reason = ("not_exact", f"{away}, so the truncated sums cannot judge it") if away else (verdict, reason)
        if problem.reference:       # post hoc, as for a formula: the truncated sums against the reference's
            error = budget.within("residuals", lambda: rel_l2(problem, numeric, points.interior), lambda late: None)
            # terms that overflow in doubles leave it inf or nan, which JSON cannot hold (red team 44h)
            residuals["rel_l2"] = error if error is None or math.isfinite(error) else str(error)
    else:
        checked = looked(problem, numeric, points, check(problem, numeric, points, budget), proof_tolerance, budget)
        # a formula without decimals is its own exact form: its round-off is the proof's to decide
        own = not any(e.atoms(sp.Float) for e in numeric.values())
        verdict, reason = _numeric_verdict(checked, tolerance, own)
        residuals, exact_part = plain(checked), None
        if verdict in ("verified", "roundoff"):
            exact_part = _exact_part(problem, numeric, exact, points, proof_tolerance, seed, budget)
            strict = _numeric_verdict(checked, proof_tolerance, own)[0]
            verdict, reason = _with_proof(verdict, reason, exact_part, strict)
        if verdict == "verified":
            verdict, reason, residuals = sampled(problem, numeric, points, tolerance, budget, verdict, reason, residuals)
        if verdict == "verified":
            verdict, reason, residuals = values_checked(problem, numeric, points, tolerance, budget, verdict, reason,
                                                         residuals)
    chosen = exact if exact is not None and verdict == "proved" else numeric
    data = budget.within("data", lambda: observations_verdict(problem, chosen), _data_late) \
        if problem.observations and not series else None
    if data is not None and not data["consistent"] and verdict != "not_exact":
        # the physics holds for these coefficients, but the measurements say they are not the problem's
        verdict, reason = "not_exact", f"{reason}; but {data['reason']}"
    if tolerance_warning and verdict == "verified":
        reason = f"{reason}; {tolerance_warning}"
    open_values = budget.within("data", lambda: undecided(problem, numeric, points),
                                lambda late: f"whether the data decide the unknowns was {late}") \
        if problem.unknowns and not series else ""
    if open_values and verdict != "not_exact":
        # the physics holds, but nothing decides the values given: they are one choice among many
        verdict, reason = "not_exact", f"{reason}; but {open_values}"
    away = _observed_in_doubles(problem, chosen, tolerance, budget) if data is not None and verdict == "proved" else ""
    if away:
        verdict, reason = "not_exact", f"{reason}; but {away}, so the data test in doubles cannot judge it"
    return {
        "schema": SCHEMA, "verdict": verdict, "exact": verdict in ("proved", "verified"), "reason": reason,
        "exact_tolerance": tolerance, "tolerance_warning": tolerance_warning, "seed": seed, "seed_from": seed_from,
        "streams": list(STREAMS),
        "config_sha256": config_sha256(str(config["text"])), "source": problem.source,
        "expressions": {f: expression_text(numeric[f]) for f in problem.fields},
        "unknowns": {n: expression_text(numeric[n]) for n in problem.unknown_names},
        "observations": data,
        "points": {"interior": int(points.interior.shape[0]),
                   "constraints": [int(c.shape[0]) for c in points.constraints],
                   "asked": {"interior": int(problem.points["verify"]),
                             "constraints": [int(c.n_points) for c in problem.constraints]},
                   "floor": {"interior": INTERIOR_FLOOR, "constraint": CONSTRAINT_FLOOR}},
        "residuals": residuals, "exact_form": exact_part,
        "verifier": {"desyr": __version__, "sympy": sp.__version__, "numpy": np.__version__},
        "seconds": round(time.perf_counter() - clock, 4),
    }


def _observed_in_doubles(problem: Problem, chosen: Mapping[str, sp.Expr], tolerance: float, budget: Budget) -> str:
    """Why a Proved answer's data test, which reads the fields and the unknowns in doubles, cannot be trusted,
    or "": ``c = 1 + exp(46)*(exp(exp(-15/2)/10**17) - 1)`` is 1.525, and 1 to doubles (red team 44h: Proved,
    62% off the observations)."""
    if problem.observations is None:
        return ""
    # a sample spread over the observations: thousands of them in mpmath ran past the share for true answers
    observed = problem.observations.X[spread(len(problem.observations.X), OBSERVED)]
    return budget.within("precision", lambda: values_differ(problem, chosen, [observed], tolerance) or "",
                         lambda late: f"its values at higher precision were {late}")


def _with_proof(verdict: str, reason: str, exact_part: Mapping[str, Any], strict: str) -> tuple[str, str]:
    """The verdict once the proof has been tried: ``strict`` is the printed formula's numeric verdict at the
    default tolerance (a config may loosen its own; Proved never uses a looser one). A formula above the
    tolerance only by round-off (``roundoff``) is Proved or Not exact, never Verified."""
    fallback = "verified" if verdict == "verified" else "not_exact"
    if exact_part["proved"] and strict == "not_exact":
        return fallback, (f"{reason}; not proved: the exact form is proved ({exact_part['reason']}), but the printed "
                          f"formula's residuals are above the default tolerance {METHOD.exact_tolerance:g}")
    if exact_part["proved"] and exact_part.get("printed") is None:
        return "proved", str(exact_part["reason"])
    if exact_part["proved"]:
        # the exact form is proved; the formula printed beside it is not shown to be it
        return fallback, f"{reason}; the exact form is proved ({exact_part['reason']}), but {exact_part['printed']}"
    return fallback, f"{reason}; not proved: {exact_part['reason']}"


def tolerance_note(tolerance: float) -> str:
    """What a config's own exact tolerance means for the verdict ("" for the default)."""
    default = METHOD.exact_tolerance
    if tolerance == default:
        return ""
    return (f"the config sets exact_tolerance = {tolerance:g} (default {default:g}): Verified means residuals "
            f"within that; Proved does not depend on it")


#: a residual at most this fraction of its data and its terms' whole size is round-off a float evaluation
#: can leave: above the tolerance of the problem's scale, such a formula still goes to the proof
ROUNDOFF = 1e-11


def _numeric_verdict(c: Checked, tolerance: float, own: bool = True) -> tuple[str, str]:
    """``verified``, ``not_exact``, or ``roundoff`` (above the tolerance, but only by what a float
    evaluation of its large terms can leave, and not decided at higher precision either: a proof may still
    decide it, where the formula is its own exact form, ``own``), with the reason."""
    if c.smooth:
        return "not_exact", c.smooth
    worst = c.relative
    if not math.isfinite(worst) and not math.isfinite(c.roundoff):
        return "not_exact", "not finite on the domain"
    said = f"the largest relative residual is {worst:.3g} on fresh points"
    if c.decided:
        said += f" ({c.second})"
    if worst <= tolerance:
        return "verified", f"{said}, within the tolerance {tolerance:g} of the problem's scale"
    above = f"{said}, above the tolerance {tolerance:g} of the problem's scale"
    if c.decided or c.roundoff > ROUNDOFF:
        return "not_exact", above
    roundoff = (f"it is {c.roundoff:.2g} of its terms' size: round-off of terms far larger than the problem's scale"
                + (f", {c.second}" if c.second else ""))
    if own:
        return "roundoff", f"{above} ({roundoff}, which only a proof can tell from an error)"
    # a printed formula with decimals is not the proved form: its own residual must be shown small
    return "not_exact", f"{above} ({roundoff}; a formula with decimals is not sent to the proof on round-off)"


def _data_late(late: str) -> dict[str, Any]:
    return {"consistent": False, "reason": f"the test of the observations was {late}", "warning": ""}


def _exact_part(problem: Problem, numeric: Mapping[str, sp.Expr], exact: Mapping[str, sp.Expr] | None,
                points: VerificationPoints, tolerance: float, seed: int | None = None,
                budget: Budget | None = None) -> dict[str, Any]:
    """Try to prove the exact form (or the numeric expression itself when it has no float)."""
    has_floats = any(e.atoms(sp.Float) for e in numeric.values())
    form = exact if exact is not None else (None if has_floats else numeric)
    if form is None:
        return {"proved": False, "reason": "constants not identified (the expression has float constants "
                "and no exact form was given)", "expressions": None}
    out: dict[str, Any] = {"expressions": {f: expression_text(form[f]) for f in problem.fields},
                           "unknowns": {n: expression_text(form[n]) for n in problem.unknown_names}}
    budget = budget or Budget()
    checked = None
    if form is not numeric:
        checked = looked(problem, form, points, check(problem, form, points, budget, "exact residuals"),
                         tolerance, budget)
        out["residuals"] = plain(checked)
        verdict, why = _numeric_verdict(checked, tolerance)
        if verdict == "not_exact":
            return {**out, "proved": False, "reason": f"the exact form fails: {why}"}
        gap = max([difference(problem, numeric, form, points.interior)]
                  + [abs(float(numeric[n]) - float(form[n])) / max(abs(float(form[n])), 1e-300)
                     for n in problem.unknown_names])
        out["agreement"] = gap
        if not gap <= AGREEMENT:
            return {**out, "proved": False,
                    "reason": f"the exact form differs from the numeric expression (relative {gap:.3g})"}
    proof = budget.within("proof", lambda: prove(problem, resolve_abs(problem, form), seed),
                          lambda late: Proof(False, f"the proof was {late}"))
    printed = None
    if proof.proved and form is not numeric:
        sizes = None if checked is None else [*checked.size_per_equation, *checked.size_per_constraint]
        printed = budget.within("printed", lambda: printed_difference(problem, numeric, form, points.interior,
                                                                      tolerance, sizes),
                                lambda late: f"the printed formula's comparison with the exact form was {late}")
    return {**out, "proved": proof.proved, "reason": proof.reason, "printed": printed,
            "steps": [{"residual": name, "zero": ok} for name, ok in proof.steps]}



