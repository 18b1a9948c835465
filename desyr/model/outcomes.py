"""Typed outcomes of the stages, each returned by its stage and passed on by the api to the
next stage and to the result (no stage writes them into a shared context)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desyr.model.candidates import Candidate
from desyr.model.context import CoupledInfo, TeacherInfo


@dataclass(frozen=True)
class TeacherOutcome:
    """Stage A, teacher: its facts, its values on the search points (read-only) and its seconds."""

    info: TeacherInfo
    values: np.ndarray                 # (N_S, n_fields)
    seconds: float
    model: Any = field(repr=False, compare=False)   # the TeacherModel, for post hoc errors and figures


@dataclass(frozen=True)
class RefitPassOutcome:
    """Stage B over a pool: how many candidates were refit, their statuses, and the seconds."""

    refit: int
    statuses: Mapping[str, int]
    seconds: float


@dataclass(frozen=True)
class CoupledGroups:
    """The coupled stage's candidates: the best groups of the fields' shortlists, to be screened."""

    pool: list[Candidate]
    info: CoupledInfo                  # screening_seconds is filled in once the screening ran
    seconds: float


@dataclass
class GateRecord:
    """What one gate did."""

    gate: str
    active: bool
    note: str
    kept: list[str]
    removed: dict[str, str] = field(default_factory=dict)    # candidate id -> reason

    def as_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "active": self.active, "note": self.note, "kept": self.kept,
                "removed": [{"id": k, "reason": v} for k, v in self.removed.items()]}


@dataclass(frozen=True)
class Selection:
    """Stage C's answer: the selected candidate (or None), the gate records, a tie-break note and
    the seconds the gates took."""

    selected: Candidate | None
    records: list[GateRecord]
    fallback: str | None = None
    seconds: float = 0.0
    #: candidate id -> (the gate that removed it, or "eligibility"; the reason)
    removed: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class StoppedCall:
    """A component call the run stopped at the budget's wall (``--budget``; docs/escalation.md): which
    component of which role, how long it ran, the seconds it was given, and what the run did instead."""

    role: str
    name: str
    seconds: float
    share: float
    instead: str
    what: str = "its call"
    #: seconds past its stop time at which the call ended: it caught the stops until then (in the run's
    #: process; docs/escalation.md, "A component that overruns is stopped")
    late: float = 0.0

    def line(self) -> str:
        """The one line the run prints and the reports show."""
        if self.late >= LATE_STOP:
            return (f"{self.role} '{self.name}' ran {self.seconds:.1f} s ({self.what}; its share of the budget: "
                    f"{self.share:.1f} s), {self.late:.1f} s past its stop time: it caught every stop until then "
                    f"(only a worker process can abandon such a call): {self.instead}")
        return (f"{self.role} '{self.name}' was stopped after {self.seconds:.1f} s ({self.what}; its share of "
                f"the budget: {self.share:.1f} s): {self.instead}")


#: seconds past its stop time from which a stopped call is said to have caught the stops (a signal's stop
#: lands within milliseconds; a call in C code or a catching loop ends later)
LATE_STOP = 1.0


@dataclass
class ComponentOrigin:
    """Where one component of a run came from: the origin ``desyr plugins`` shows, and the distribution
    and version that declare it (None for a module loaded with ``-p`` or ``DESYR_PLUGINS``, or registered
    in process: it has no distribution)."""

    role: str
    name: str
    origin: str
    distribution: str | None = None
    version: str | None = None

    def text(self) -> str:
        """``gate max_complexity (desyr-myplugin 0.1.0)``; without a distribution, where it came from."""
        where = (f"{self.distribution} {self.version}" if self.distribution else
                 f"{self.origin.strip('()')}, no distribution")
        return f"{self.role} {self.name} ({where})"


@dataclass
class Errors:
    """Post hoc errors against the reference (None without one); never used by any stage."""

    rel_l2: float | None = None
    pre_refit_rel_l2: float | None = None
    teacher_rel_l2: float | None = None
    fieldwise: dict[str, float] = field(default_factory=dict)     # coupled: relative L2 per field
    #: fields whose reference is 0 everywhere: the absolute (RMS) error, as no relative one exists
    absolute: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rel_l2": self.rel_l2}
        if self.pre_refit_rel_l2 is not None or self.rel_l2 is not None:
            out["pre_refit_rel_l2"] = self.pre_refit_rel_l2
        out.update({f"rel_l2_{f}": v for f, v in self.fieldwise.items()})
        out.update({f"abs_l2_{f}": v for f, v in self.absolute.items()})
        if self.teacher_rel_l2 is not None:
            out["teacher_rel_l2"] = self.teacher_rel_l2
        return out


@dataclass(frozen=True)
class Outcome:
    """Selection plus verification of the selected candidate on independent points."""

    selection: Selection
    verification: Any            # desyr.symbolic.physics.Verification or None
    errors: Errors
    seconds: float = 0.0         # the verification's
