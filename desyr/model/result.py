"""The typed, versioned result of ``run`` and ``refine`` (``result.json``).

A :class:`Result` is a tree of dataclasses; :meth:`Result.to_json` writes it and
:func:`load_result` reads it back into the same types.  Schema history is in
``docs/results.md`` (``desyr.result/2`` added ``provenance`` and ``exact_form``;
0.3 added the optional ``attempts`` and ``escalation_stop``).
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sympy as sp

from desyr.errors import ConfigError
from desyr.model.context import CoupledInfo, SearchInfo, SearchRun, TeacherInfo
from desyr.model.names import check_names
from desyr.model.outcomes import ComponentOrigin, Errors, GateRecord, StoppedCall
from desyr.model.result_reading import (
    MAX_RESULT_BYTES,
    build_typed,
    check_consistency,
    convert_typed,
    read_result_data,
    short_message,
)
from desyr.model.views import VIEWS, table_view

SCHEMA = "desyr.result/3"
READABLE_SCHEMAS = ("desyr.result/2", "desyr.result/3")
#: the verdicts: the first three are the verifier's, "unverified" when it gave none
VERDICTS = ("proved", "verified", "not_exact", "unverified")


@dataclass
class ProblemInfo:
    name: str
    title: str
    source: str
    fields: list[str]
    variables: list[str]
    unknowns: list[str] = field(default_factory=list)     # an inverse problem's coefficients; a family's:
    parameters: list[str] = field(default_factory=list)


@dataclass
class Residuals:
    """Verification residuals on independent points (R_con is None without constraints)."""

    R_eq: float
    R_con: float | None
    R_eq_per_equation: list[float] = field(default_factory=list)
    R_con_per_constraint: list[float] = field(default_factory=list)
    #: the largest residual over its scale (docs/verify.md, "The tolerance's scale"): what "exact" is
    #: decided on; None in a result written before DeSyR 0.6
    relative: float | None = None

    def worst(self) -> float:
        """The number "exact" is decided on: the largest relative residual (max(R_eq, R_con) in an older
        result); inf where it is not finite."""
        values = [self.relative] if self.relative is not None else [self.R_eq, self.R_con]
        known = [float(v) for v in values if v is not None]
        worst = max(known) if known else math.inf
        return worst if math.isfinite(worst) else math.inf


@dataclass
class CandidateRecord:
    """One pooled candidate as it went through Stages B and C."""

    id: str
    searcher: str
    search_seed: int | None
    topology: dict[str, str]
    pre_refit_expression: dict[str, str]
    expression: dict[str, str] | None
    search_complexity: int | None
    search_loss: float | None
    complexity: int | None
    status: str
    converged: bool
    reason: str | None
    nfev: int
    objective: float | None
    params_initial: list[float]
    params_refined: list[float]
    refit_seconds: float | None
    shared_rates: list[dict[str, Any]]
    cleaned: bool
    cleaning: str | None
    eps_T: float | None
    phi: float | None
    rho_r: float | None
    rho_c: float | None
    removed_by: str | None
    removed_reason: str | None
    screening: dict[str, Any] | None = None
    refit_starts: int = 0                         # schema 3 files written before 0.4.1 lack these three
    eps_T_fields: dict[str, float] | None = None
    refit_expression: dict[str, str] | None = None   # the refiner's own, before Stage C's cleaning
    unknowns: str | None = None                   # an inverse problem's identification (desyr.stages.unknowns)


@dataclass
class SelectionRecord:
    gates: list[GateRecord]
    fallback: str | None = None


@dataclass
class ConstantRecord:
    """One refined constant and the closed form proposed for it (accepted or not, and why)."""

    value: float
    proposed: str | None
    accepted: bool
    residuals_before: list[float | None] | None
    residuals_after: list[float | None] | None
    reason: str | None


@dataclass
class RewriteRecord:
    """One checked canonical rewrite of one field's expression."""

    name: str
    field: str
    before: str
    after: str
    accepted: bool
    residuals_before: list[float | None] | None
    residuals_after: list[float | None] | None
    reason: str | None


@dataclass
class ExactFormRecord:
    """The exact closed form of the selected expression (``docs/exact.md``)."""

    expressions: dict[str, str]
    latex: dict[str, str]
    complexity: int
    constants: list[ConstantRecord]
    rewrites: list[RewriteRecord]
    residuals_numeric: list[float | None] | None
    residuals_exact: list[float | None] | None
    symbolic_match: bool | None = None     # post hoc: equal to the reference symbolically (None without one)
    seconds: float = 0.0
    note: str | None = None
    rule: dict[str, float] = field(default_factory=dict)


@dataclass
class ExecutionRecord:
    """How the run's units ran: never part of what the run found (compare results without it)."""

    executor: str
    workers: int
    units_computed: int = 0
    units_reused: int = 0          # read back from the run store (``--resume``)
    units_failed: int = 0
    store_key: str | None = None


@dataclass
class Provenance:
    """Where a result came from: versions, components and the config's content hash."""

    desyr_version: str
    components: dict[str, str] = field(default_factory=dict)     # role -> component name
    config_sha256: str | None = None
    execution: ExecutionRecord | None = None
    origins: list[ComponentOrigin] = field(default_factory=list)  # each component's distribution and version


@dataclass
class ConfigRecord:
    """The problem as data, as the verifier read it: ``desyr verify RESULT`` reads it again."""

    format: str                 # toml, or json (a problem a plugin built from a table)
    source: str
    sha256: str
    text: str


@dataclass
class VerificationRecord:
    """The separate verifier's answer (``answer``, unchanged), and how the run's own numbers compare."""

    verdict: str                                # proved | verified | not_exact | unverified
    reason: str
    answer: dict[str, Any] | None = None        # the verifier's JSON verdict as it printed it
    run_residuals: Residuals | None = None      # the run's in-process numbers, for comparison only
    disagreement: str | None = None             # when those differ from the verifier's beyond round-off


@dataclass
class AttemptRecord:
    """One attempt of an escalated run (``docs/escalation.md``): what changed, its time and verdict."""

    index: int
    step: str                      # first, enrich_library, other_searcher, more_searches, larger_teacher
    change: str
    seconds: float
    exact: bool
    worst_residual: float | None   # the largest relative residual on the independent points
    expression: dict[str, str] | None
    searchers: str = ""
    failures: list[str] = field(default_factory=list)   # stage 0: why each candidate is not the answer
    reason: str = ""               # why this change (the library: what the problem or the teacher's values show)


@dataclass
class SolverCall:
    """One call of an exact searcher's solver in stage 0 (docs/solvers.md)."""

    searcher: str
    solver: str
    seconds: float
    outcome: str            # "candidates: n", "no solution", "timeout", "not applicable", "skipped", "error: ..."
    detail: str = ""


@dataclass
class SeriesField:
    """How one field's series was cut for the result's numbers (``docs/series.md``)."""

    terms: int                      # terms kept (per index) on the verification points
    tail_bound: float | None        # the proved bound of what they leave out there (None: no bound holds)
    capped: bool                    # the cap was reached before the bound met the tolerance
    bound_holds: str | None = None  # the part of the domain where a tail bound is proved (None: nowhere found)
    sums: int = 1                   # how many sums the field has


@dataclass
class SeriesRecord:
    """The truncation of each field that is a series (absent for finite formulas)."""

    fields: dict[str, SeriesField]
    note: str = ""


@dataclass
class Result:
    """What ``desyr run`` / ``desyr refine`` found, typed; ``result.json`` is its JSON form."""

    command: str
    problem: ProblemInfo
    seed: int
    expression: dict[str, str] | None
    pre_refit_expression: dict[str, str] | None
    selected_id: str | None
    converged: bool
    status: str
    complexity: int | None
    exact: bool
    exact_tolerance: float
    residuals: Residuals | None
    errors: Errors
    selection: SelectionRecord
    candidates: list[CandidateRecord]
    teacher: TeacherInfo | None
    search: SearchInfo | None
    coupled: CoupledInfo | None
    timings: dict[str, float]
    provenance: Provenance
    exact_form: ExactFormRecord | None = None
    attempts: list[AttemptRecord] = field(default_factory=list)   # escalated runs only
    escalation_stop: str | None = None                              # why the escalated run stopped
    solvers: list[SolverCall] = field(default_factory=list)        # stage 0's solver calls (docs/solvers.md)
    verification: VerificationRecord | None = None                  # the verifier's verdict (schema 3)
    config: ConfigRecord | None = None                              # the problem as the verifier read it
    series: SeriesRecord | None = None                              # how series answers were truncated
    stopped: list[StoppedCall] = field(default_factory=list)       # calls stopped at the budget's wall
    schema: str = SCHEMA

    @property
    def verdict(self) -> str:
        """proved, verified, not_exact, or unverified (no verifier answer, e.g. a schema-2 file)."""
        return self.verification.verdict if self.verification else "unverified"

    # ---------------------------------------------------------------- reading
    def sympy(self, field: str | None = None) -> sp.Expr | None:
        """The selected expression of ``field`` (the only field by default) as sympy, or None."""
        if self.expression is None:
            return None
        name = field or self.problem.fields[0]
        if name not in self.expression:
            raise KeyError(f"no field {name!r}; fields: {', '.join(self.expression)}")
        exprs = self.solution()
        return exprs[name] if exprs else None

    def to_callable(self, backend: str = "numpy") -> Callable[[Any], Any]:
        """The selected solution as ``f(X (n, d)) -> (n, n_fields)`` (the exact form if any; numpy, torch, jax)."""
        from desyr.exact import to_callable

        exprs = self.solution()
        if exprs is None:
            raise ConfigError("the result has no selected expression")
        f = to_callable(exprs, self.problem.variables, backend=backend)
        d = len(self.problem.variables)

        def solution(X: Any) -> Any:
            shape = getattr(X, "shape", None)
            if shape is not None and len(shape) == 1:      # n points of a 1-D problem, or one point
                X = X.reshape(-1, 1) if d == 1 else X.reshape(1, -1)
            shape = getattr(X, "shape", None)
            if shape is None or len(shape) != 2 or shape[1] != d:
                raise ConfigError(f"X must be an array of shape (n, {d}) in the variables "
                                  f"{', '.join(self.problem.variables)}; got shape {shape}")
            return f(X)
        return solution

    def solution(self, exact: bool = True) -> dict[str, sp.Expr] | None:
        """The selected expressions as sympy, by field: the exact form when ``exact`` and one exists
        (an inverse problem's unknowns are :meth:`unknown_values`)."""
        texts = self._texts(exact)
        if texts is None:
            return None
        from desyr.symbolic.expressions import Vocabulary, parse_expression

        vocabulary = Vocabulary(self.problem.variables)
        return {f: parse_expression(t, vocabulary) for f, t in texts.items() if f in self.problem.fields}

    def unknown_values(self, exact: bool = True) -> dict[str, sp.Expr]:
        """An inverse problem's coefficients as the selected candidate gives them (``{"nu": 1/10}``)."""
        from desyr.symbolic.expressions import Vocabulary, parse_expression

        texts = self._texts(exact) or {}
        return {n: parse_expression(texts[n], Vocabulary([])) for n in self.problem.unknowns if n in texts}

    def _texts(self, exact: bool) -> dict[str, str] | None:
        return (self.exact_form.expressions if exact and self.exact_form else None) or self.expression

    def get_best(self) -> CandidateRecord | None:
        """The selected candidate's record."""
        return next((c for c in self.candidates if c.id == self.selected_id), None)

    def candidates_table(self) -> Any:
        """The candidates as a pandas DataFrame: id, searcher, complexity, status, Phi, eps_T,
        expression, removed_by, selected (like PySR's ``equations_``)."""
        return table_view()(self)

    # ---------------------------------------------------------------- notebooks (views: desyr.model.views)
    def _repr_html_(self) -> str | None:
        return VIEWS.html(self) if VIEWS.html is not None else None

    def _repr_latex_(self) -> str | None:
        return VIEWS.latex(self) if VIEWS.latex is not None else None

    # ---------------------------------------------------------------- writing
    def to_dict(self) -> dict[str, Any]:
        data = _plain(self)
        data["errors"] = _plain(self.errors.as_dict())
        order = ["schema"] + [f.name for f in dataclasses.fields(self) if f.name != "schema"]
        return {k: data[k] for k in order}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<result>") -> Result:
        """The result in ``data`` (a parsed ``result.json``), every value of its declared type and every
        field and variable name checked like a config's (they end up in exported code); else
        :class:`ConfigError` (names), or ``TypeError`` / ``ValueError`` / ``KeyError`` (shape)."""
        if not isinstance(data, dict) or data.get("schema") not in READABLE_SCHEMAS:
            found = data.get("schema") if isinstance(data, dict) else type(data).__name__
            raise ConfigError(f"not a DeSyR result of schema {', '.join(READABLE_SCHEMAS)} (found {found!r:.60})")
        data = dict(data)
        problem = build_typed(ProblemInfo, data["problem"], "problem")
        check_names(problem.fields, problem.variables, source)
        data["errors"] = _errors_from(data.get("errors") or {}, problem.fields)
        result: Result = build_typed(cls, data, "")
        check_consistency(result, source)
        return result


def load_result(path: str | Path) -> Result:
    """Read ``result.json`` (or a folder holding one) back into a :class:`Result`."""
    path, data = read_result_data(path)
    try:
        return Result.from_dict(data, str(path))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: malformed result ({type(exc).__name__}: {short_message(exc)})") from None


# ------------------------------------------------------------------ plumbing
def number(value: float | None) -> float | str | None:
    """A float for JSON: non-finite values become strings ('inf', 'nan')."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else str(value)


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, float):
        return number(obj)
    return obj


def _errors_from(flat: dict[str, Any], fields: list[str]) -> Errors:
    if not isinstance(flat, dict):
        raise TypeError(f"errors must be a mapping, got {type(flat).__name__}")
    def get(key: str) -> float | None:
        return _float(flat.get(key))
    def each(prefix: str) -> dict[str, float]:
        return {f: v for f in fields if (v := _float(flat.get(f"{prefix}_{f}"))) is not None}
    return Errors(get("rel_l2"), get("pre_refit_rel_l2"), get("teacher_rel_l2"), each("rel_l2"), each("abs_l2"))


def _float(value: Any) -> float | None:
    return None if value is None else convert_typed(float, value, "errors")


__all__ = ["SCHEMA", "Result", "ProblemInfo", "Residuals", "CandidateRecord", "SelectionRecord", "Provenance",
           "GateRecord", "Errors", "ExactFormRecord", "VerificationRecord", "ConfigRecord", "VERDICTS", "AttemptRecord", "ConstantRecord", "RewriteRecord", "TeacherInfo", "SearchInfo", "SearchRun", "CoupledInfo", "load_result", "number",
           "read_result_data", "MAX_RESULT_BYTES"]
