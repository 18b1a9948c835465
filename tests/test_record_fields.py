"""One declaration per record: every field of a candidate and of its refit outcome reaches the
stored refit unit and ``result.json``, so a new field cannot be dropped by a hand-kept mapping."""
import copy
import dataclasses
import json

import pytest
import sympy as sp

from desyr.config.loading import problem_from_dict
from desyr.model.candidate_record import candidate_record
from desyr.model.candidates import Candidate, RefitOutcome, refit_outcome_fields, stage_b_fields
from desyr.model.result import CandidateRecord
from desyr.stages.refit_record import apply_refit_record, stored_value

x = sp.Symbol("x")
PROBLEM = problem_from_dict({"domain": {"x": [0, 1]}, "equations": [{"lhs": "u_xx", "rhs": "-sin(x)"}],
                             "constraints": [{"on": ["x = 0"], "value": "0"}]})


def full_candidate() -> Candidate:
    outcome = RefitOutcome({"u": sp.sin(x) + sp.Float(0.5)}, "converged", True, reason="ok", nfev=7, objective=1e-20,
                           initial=[0.4], params=[0.5], starts=3, seconds=0.25, shared_rates=[{"rate": 1.0}])
    return Candidate("c0", {"u": sp.sin(x) + sp.Float(0.4)}, searcher="s", search_seed=1, search_complexity=4,
                     search_loss=0.1, refit=outcome, expressions={"u": sp.sin(x) + sp.Float(0.5)}, cleaned=True,
                     cleaning_note="note", eps_T=0.01, eps_T_fields={"u": 0.01}, rho_r=1e-12, rho_c=1e-13,
                     phi=1e-12, unknowns_note="nu = 1/10",
                     extra={"screening": {"phi": 1.0}})


def changed(value):
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, list):
        return value + value[:1]
    if isinstance(value, dict):
        return {k: (v + sp.Float(1.0) if isinstance(v, sp.Basic) else changed(v)) for k, v in value.items()}
    if isinstance(value, RefitOutcome):
        return dataclasses.replace(value, status=value.status + "!")
    raise AssertionError(f"no variant of {value!r}")


def record_json(cand: Candidate) -> str:
    return json.dumps(dataclasses.asdict(candidate_record(cand)), sort_keys=True, default=str)


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Candidate)])
def test_every_candidate_field_reaches_the_result_record(name):
    cand = full_candidate()
    other = copy.deepcopy(cand)
    setattr(other, name, changed(getattr(cand, name)))
    assert record_json(other) != record_json(cand), f"Candidate.{name} never reaches CandidateRecord"


@pytest.mark.parametrize("name", refit_outcome_fields())
def test_every_refit_outcome_field_reaches_the_result_record(name):
    cand = full_candidate()
    other = copy.deepcopy(cand)
    setattr(other.refit, name, changed(getattr(cand.refit, name)))
    assert record_json(other) != record_json(cand), f"RefitOutcome.{name} never reaches CandidateRecord"


def test_a_stored_refit_unit_reads_back_every_stage_b_field():
    cand = full_candidate()
    record = json.loads(json.dumps({name: stored_value(getattr(cand, name)) for name in stage_b_fields()}))
    back = Candidate("c0", dict(cand.search_expressions))
    apply_refit_record(back, record, PROBLEM)
    for name in stage_b_fields():
        assert str(getattr(back, name)) == str(getattr(cand, name)), name     # symbols: the problem's own


def test_the_result_record_has_no_field_that_nothing_fills():
    record = dataclasses.asdict(candidate_record(full_candidate(), ("gate", "why")))     # Stage C's verdict
    defaults = {f.name: f.default for f in dataclasses.fields(CandidateRecord)}
    empty = [k for k, v in record.items() if v in (None, [], {}) and defaults.get(k) is not v]
    assert empty == []
