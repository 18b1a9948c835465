"""The parts of a result (``result.json``): the problem it answers, the residuals, each candidate, the exact
form, where it ran, the verifier's verdict, the attempts, stage 0's solver calls, a series' truncation.
:class:`desyr.model.result.Result` holds them."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from desyr.model.outcomes import ComponentOrigin, GateRecord


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
