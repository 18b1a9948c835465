"""The typed, versioned result of ``run`` and ``refine`` (``result.json``).

A :class:`Result` is a tree of dataclasses (its parts: :mod:`desyr.model.result_parts`);
:meth:`Result.to_json` writes it and :func:`load_result` reads it back into the same types.  Schema
history is in ``docs/results.md`` (``desyr.result/2`` added ``provenance`` and ``exact_form``;
0.3 added the optional ``attempts`` and ``escalation_stop``).

The data model draws nothing: how a result shows itself in a notebook (``_repr_html_``,
``_repr_latex_``, ``candidates_table``) are the :class:`ResultViews` given to it by whoever made it.
``desyr.api`` gives the report's (:data:`desyr.report.notebook.NOTEBOOK_VIEWS`) to every result its
``run``, ``refine`` and ``load_result`` return; a result read with this module's :func:`load_result`
has none. So what a result shows never depends on what was imported before.
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import sympy as sp

from desyr.errors import ConfigError
from desyr.model.context import CoupledInfo, SearchInfo, SearchRun, TeacherInfo
from desyr.model.names import check_names
from desyr.model.outcomes import Errors, GateRecord, StoppedCall
from desyr.model.result_parts import (
    AttemptRecord,
    CandidateRecord,
    ConfigRecord,
    ConstantRecord,
    ExactFormRecord,
    ExecutionRecord,
    ProblemInfo,
    Provenance,
    Residuals,
    RewriteRecord,
    SelectionRecord,
    SeriesField,
    SeriesRecord,
    SolverCall,
    VerificationRecord,
)
from desyr.model.result_reading import MAX_RESULT_BYTES, build_typed, convert_typed, read_result_data, short_message

SCHEMA = "desyr.result/3"
READABLE_SCHEMAS = ("desyr.result/2", "desyr.result/3")
#: the verdicts: the first three are the verifier's, "unverified" when it gave none
VERDICTS = ("proved", "verified", "not_exact", "unverified")


class ResultViews(Protocol):
    """How a result shows itself to people: an HTML fragment, LaTeX, and its candidates as a table."""

    def html(self, result: Result) -> str: ...

    def latex(self, result: Result) -> str | None: ...

    def table(self, result: Result) -> Any: ...


#: a field the result carries but ``result.json`` does not (its views)
NOT_STORED = {"stored": False}


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
    #: how it shows itself in a notebook (None: as plain text); given by whoever made it, never stored
    views: ResultViews | None = field(default=None, repr=False, compare=False, metadata=NOT_STORED)

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
        from desyr.codegen.export import to_callable

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
        if self.views is None:
            raise ConfigError("Result.candidates_table() needs the report's views: read the result with "
                              "desyr.api.load_result (run and refine of desyr.api give them too)")
        return self.views.table(self)

    # ---------------------------------------------------------------- notebooks (views: ResultViews)
    def _repr_html_(self) -> str | None:
        return self.views.html(self) if self.views is not None else None

    def _repr_latex_(self) -> str | None:
        return self.views.latex(self) if self.views is not None else None

    # ---------------------------------------------------------------- writing
    def to_dict(self) -> dict[str, Any]:
        data = _plain(self)
        data["errors"] = _plain(self.errors.as_dict())
        order = ["schema"] + [f.name for f in dataclasses.fields(self) if f.name != "schema" and stored(f)]
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


def load_result(path: str | Path, views: ResultViews | None = None) -> Result:
    """Read ``result.json`` (or a folder holding one) back into a :class:`Result` that shows itself with
    ``views`` (``desyr.api.load_result`` gives the report's)."""
    path, data = read_result_data(path)
    try:
        return dataclasses.replace(Result.from_dict(data, str(path)), views=views)
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: malformed result ({type(exc).__name__}: {short_message(exc)})") from None


def check_consistency(result: Result, source: str) -> None:
    """Everything keyed by field, or naming one, names one of the problem's (checked) fields; the seed
    is one a run can have (``desyr exact`` draws its verification points from it)."""
    if not 0 <= result.seed < 2**32:
        raise ConfigError(f"{source}: seed must be an integer in [0, 2**32), got {str(result.seed):.40}")
    keyed: list[tuple[str, dict[str, Any] | None]] = [
        ("expression", result.expression), ("pre_refit_expression", result.pre_refit_expression)]
    if result.exact_form is not None:
        keyed += [("exact_form.expressions", result.exact_form.expressions), ("exact_form.latex", result.exact_form.latex)]
        keyed += [(f"exact_form.rewrites[{i}]", {r.field: None}) for i, r in enumerate(result.exact_form.rewrites)]
    for i, c in enumerate(result.candidates):
        keyed += [(f"candidates[{i}].{name}", getattr(c, name)) for name in ("topology", "pre_refit_expression", "expression")]
    keyed += [(f"attempts[{i}].expression", a.expression) for i, a in enumerate(result.attempts)]
    if result.search is not None:
        keyed.append(("search.pool_size_per_field", result.search.pool_size_per_field))
        keyed += [(f"search.runs[{i}]", {run.field: None}) for i, run in enumerate(result.search.runs)]
    fields = [*result.problem.fields, *result.problem.unknowns]
    for where, mapping in keyed:
        for name in mapping or {}:
            if name not in fields:
                raise ConfigError(f"{source}: {where} names field {name!r:.40}, which is not one of the "
                                  f"problem's fields ({', '.join(fields)})")


# ------------------------------------------------------------------ plumbing
def number(value: float | None) -> float | str | None:
    """A float for JSON: non-finite values become strings ('inf', 'nan')."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else str(value)


def stored(f: dataclasses.Field[Any]) -> bool:
    """Whether a field of a result's dataclass goes into ``result.json`` (its views do not)."""
    return bool(f.metadata.get("stored", True))


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj) if stored(f)}
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


__all__ = ["SCHEMA", "Result", "ResultViews", "ProblemInfo", "Residuals", "CandidateRecord", "SelectionRecord",
           "Provenance", "GateRecord", "Errors", "ExactFormRecord", "ExecutionRecord", "VerificationRecord",
           "ConfigRecord", "VERDICTS", "AttemptRecord", "ConstantRecord", "RewriteRecord", "SolverCall", "SeriesField",
           "SeriesRecord", "TeacherInfo", "SearchInfo", "SearchRun", "CoupledInfo", "load_result", "number",
           "check_consistency", "read_result_data", "MAX_RESULT_BYTES"]
