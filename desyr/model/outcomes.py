"""Typed outcomes of Stage C and of verification, passed from the stages to the result."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desyr.model.candidates import Candidate


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


@dataclass
class Selection:
    """Stage C's answer: the selected candidate (or None), the gate records, and a tie-break note."""

    selected: Candidate | None
    records: list[GateRecord]
    fallback: str | None = None


@dataclass
class Errors:
    """Post hoc errors against the reference (None without one); never used by any stage."""

    rel_l2: float | None = None
    pre_refit_rel_l2: float | None = None
    teacher_rel_l2: float | None = None
    fieldwise: dict[str, float] = field(default_factory=dict)     # coupled: relative L2 per field

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rel_l2": self.rel_l2}
        if self.pre_refit_rel_l2 is not None or self.rel_l2 is not None:
            out["pre_refit_rel_l2"] = self.pre_refit_rel_l2
        out.update({f"rel_l2_{f}": v for f, v in self.fieldwise.items()})
        if self.teacher_rel_l2 is not None:
            out["teacher_rel_l2"] = self.teacher_rel_l2
        return out


@dataclass
class Outcome:
    """Selection plus verification of the selected candidate on independent points."""

    selection: Selection
    verification: Any            # desyr.symbolic.physics.Verification or None
    errors: Errors
