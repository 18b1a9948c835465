"""What a series must meet: the equation on the domain and each constraint on each of its sets.

Each is a *target*: a linear operator ``B`` (over the field's jets), the data ``g`` it must equal, and
the set (the whole domain, or a face with some variables fixed, or a periodic pair).  For a series
``u = P + sum of terms``, the proof compares ``B[term]`` on the set with the expansion of
``g - B[P]`` there (:mod:`desyr.verify.series_expansion`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from desyr.model.geometry import Part
from desyr.model.problem import Face, Problem
from desyr.symbolic.expressions import Jet


class NotLinear(Exception):
    """The problem is not one the series proof reads (one line)."""


@dataclass(frozen=True)
class Target:
    name: str
    operator: sp.Expr                       # over jets, exact
    value: sp.Expr                          # the data (forcing, boundary or initial values), exact
    fixed: Mapping[sp.Symbol, sp.Expr]      # the set's fixed variables at exact values ({} : the domain)
    shift: Mapping[sp.Symbol, sp.Expr]      # a periodic pair: the operator here minus there ({} : none)
    face: Face | Part | None                # the constraint's set (None: the equation)

    @property
    def periodic(self) -> bool:
        return bool(self.shift)

    def image(self, problem: Problem, field: str, expr: sp.Expr) -> sp.Expr:
        """``B[expr]`` on the set (for a periodic pair, the difference between the two ends)."""
        applied = problem.apply(self.operator, {field: expr})
        if self.shift:
            applied = applied - applied.xreplace({v: v + d for v, d in self.shift.items()})
        return applied.xreplace(dict(self.fixed)) if self.fixed else applied


def linear_coefficients(problem: Problem, expr: sp.Expr) -> dict[Jet, sp.Expr] | None:
    """``expr = sum of c_J * jet_J`` with each ``c_J`` free of jets and no jet-free part (None if not)."""
    symbols = {s: problem.vocabulary.jet_of(s) for s in expr.free_symbols}
    jets = {s: j for s, j in symbols.items() if j is not None}
    out: dict[Jet, sp.Expr] = {}
    for s, jet in jets.items():
        c = sp.diff(expr, s)
        if c.free_symbols & set(jets):
            return None
        out[jet] = c
    rest = sp.expand(expr - sum((c * problem.jet_symbol(j) for j, c in out.items()), sp.Integer(0)))
    return out if rest == 0 else None


def targets(problem: Problem) -> list[Target]:
    """The equation and each constraint on each of its faces, as exact targets."""
    from desyr.model.shapes import Disk
    from desyr.verify.proof import config_exact, set_values

    if problem.geometry is not None and not isinstance(problem.geometry.shape, Disk):
        raise NotLinear("a series is proved on a box (an interval, a rectangle, a box) or a disk")
    if len(problem.fields) != 1 or len(problem.equations) != 1 or problem.unknowns or problem.parameters:
        raise NotLinear("a series is proved for one equation in one field, without unknowns or parameters")
    eq = problem.equations[0]
    out = [Target("the equation", config_exact(eq.lhs), config_exact(eq.forcing), {}, {}, None)]
    for con in problem.constraints:
        if con.kind == "integral":
            continue            # proved termwise once the rest is (desyr.verify.series_integrals)
        shift: dict[sp.Symbol, sp.Expr] = {}
        if con.kind == "periodic":
            from desyr.model.patches import exact_number
            shift = {problem.vocabulary.var_symbols[v]: exact_number(d)
                     for v, d in zip(problem.variable_names, con.shift) if d}
        for face in con.faces:
            values = set_values(problem, face)
            if values is None:
                raise NotLinear(f"constraint {con.label}: its set {face.describe()} is not at an exact value")
            # the data on the set itself (on a circle, ``x`` is the parameter's cosine there)
            data = config_exact(con.value).xreplace(dict(values)) if values else config_exact(con.value)
            out.append(Target(_target_name(con.label, face.describe()), config_exact(con.operator), data,
                              values, shift, face))
    for target in out:
        if linear_coefficients(problem, target.operator) is None:
            raise NotLinear(f"{target.name} is not linear in the field")
    return out


def _target_name(label: str, where: str) -> str:
    """``constraint u on y = 1`` where the label already names the set, else the set added
    (``constraint u on initial, at t = 0``): a side is named once."""
    return f"constraint {label}" if label.endswith(f"on {where}") else f"constraint {label}, at {where}"
