"""A Stage-B refit's record: the JSON-safe dict a refit unit returns (the candidate's Stage-B fields, its
expressions as text), the records of a refit that failed, was stopped or broke its refiner's contract,
the check a stored record passes before a run reuses it, and the candidate rebuilt from a record (the
text reads back to the same doubles). Apart from :mod:`desyr.stages.refit`, which runs the refits, so
that what is written, checked and read back stays together."""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import sympy as sp

from desyr.extension.roles import Refiner
from desyr.model.candidates import Candidate, RefitOutcome, refit_outcome_fields, stage_b_fields
from desyr.model.context import RunContext
from desyr.model.problem import Problem
from desyr.model.search import jsonable
from desyr.runtime.store import NUMBER, check_depth, stored_field, text_map
from desyr.symbolic.expressions import expression_text

#: the record entry of a refit whose refiner broke its contract (raised, or returned something unusable)
BROKE = "contract_broken"
#: its value for a refiner that changed the candidate it was given
TAMPERED = "tampered"


def stored_value(value: Any) -> Any:
    """A Stage-B field as JSON: expressions as their text, a refit outcome field by field."""
    if isinstance(value, RefitOutcome):
        return {name: stored_value(getattr(value, name)) for name in refit_outcome_fields()}
    if isinstance(value, dict) and any(isinstance(v, sp.Basic) for v in value.values()):
        return _texts(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) if isinstance(v, dict) else v for v in value]
    return value


#: the reason of a candidate left unrefit because the run's budget was spent
OUT_OF_TIME = "not refit: the run's budget was spent before its turn"


#: the reason of a candidate whose refit was stopped at its stop time
STOPPED = "not refit: the refit ran past Stage B's deadline and was stopped (--budget)"


def failed_record(reason: str, status: str = "failed") -> dict[str, Any]:
    return {"refit": {"expressions": {}, "status": status, "converged": False, "reason": reason},
            "expressions": None}


def stopped_record(seconds: float) -> dict[str, Any]:
    return {**failed_record(STOPPED, "timeout"), "stopped": round(seconds, 3)}


def _texts(exprs: Mapping[str, sp.Expr] | None) -> dict[str, str] | None:
    return None if exprs is None else {f: str(expression_text(e)) for f, e in exprs.items()}


_OUTCOME_FIELDS = frozenset(refit_outcome_fields())


def check_refit_record(item: tuple[Refiner, Candidate, RunContext], record: dict[str, Any]) -> None:
    """A stored refit record is reused only if it has the shape :func:`desyr.stages.refit.refit_unit` writes for this
    candidate's fields and reads back; otherwise the refit runs again."""
    _, cand, ctx = item
    check_depth(record)
    if record.get("stopped"):
        raise ValueError("the refit was stopped at its stop time (--budget): it runs again")
    names = set(cand.search_expressions)
    r = stored_field(record, "refit", dict)
    if set(r) - _OUTCOME_FIELDS:
        raise ValueError(f"'refit' has unknown entries {sorted(set(r) - _OUTCOME_FIELDS)}")
    stored_field(r, "status", str)
    stored_field(r, "converged", bool)
    stored_field(r, "reason", str, nullable=True, missing_ok=True)
    stored_field(r, "nfev", int, nullable=True, missing_ok=True)
    stored_field(r, "starts", int, missing_ok=True)
    for key in ("objective", "seconds"):
        stored_field(r, key, NUMBER, nullable=True, missing_ok=True)
    for key in ("initial", "params"):
        if not all(_number(v) for v in stored_field(r, key, list, missing_ok=True) or []):
            raise ValueError(f"'refit.{key}' is not a list of numbers")
    if not all(isinstance(t, dict) for t in stored_field(r, "shared_rates", list, missing_ok=True) or []):
        raise ValueError("'refit.shared_rates' is not a list of objects")
    for where, texts in (("refit.expressions", stored_field(r, "expressions", dict, nullable=True)),
                         ("expressions", stored_field(record, "expressions", dict, nullable=True))):
        if texts is not None:
            text_map(texts, names, where)
    stored_field(record, "cleaned", bool, missing_ok=True)
    stored_field(record, "cleaning_note", str, nullable=True, missing_ok=True)
    stored_field(record, "unknowns_note", str, nullable=True, missing_ok=True)
    for key in ("eps_T", "rho_r", "rho_c", "phi"):
        stored_field(record, key, NUMBER, nullable=True, missing_ok=True)
    per_field = stored_field(record, "eps_T_fields", dict, nullable=True, missing_ok=True) or {}
    if not all(_number(v) for v in per_field.values()):
        raise ValueError("'eps_T_fields' is not a mapping of field to number")
    apply_refit_record(copy.copy(cand), record, ctx.problem)      # the text must read back


def _number(value: Any) -> bool:
    return isinstance(value, NUMBER) and not isinstance(value, bool)


def apply_refit_record(cand: Candidate, record: dict[str, Any], problem: Problem) -> None:
    """The candidate after Stage B, rebuilt from its record (the text reads back to the same doubles)."""
    def parsed(texts: Mapping[str, str] | None) -> dict[str, sp.Expr] | None:
        return None if texts is None else {f: problem.parse(t) for f, t in texts.items()}

    r = dict(record["refit"])
    r["expressions"] = parsed(r["expressions"]) or {}
    cand.refit = RefitOutcome(**r)
    cand.expressions = parsed(record["expressions"]) or None
    for name in stage_b_fields():
        if name not in ("refit", "expressions") and name in record:
            setattr(cand, name, record[name])
