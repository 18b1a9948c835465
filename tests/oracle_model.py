"""The differential oracle's problems (issue 35): plain Python data, rendered as the config text the
verifier reads (:func:`toml`). Nothing here comes from desyr: the oracle (tests/oracle.py) must read
problems its own way to be an independent check.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp

DIGITS = 50
Point = dict[str, Any]        # variable name -> mpf


@dataclass(frozen=True)
class Part:
    """A boundary part: ``at(s)`` for s in [0, 1] gives the spatial coordinates, ``normal(s)`` the
    outward unit normal (by name)."""

    at: Callable[[Any], Point]
    normal: Callable[[Any], Point]


@dataclass(frozen=True)
class Con:
    """A constraint: ``on`` is the TOML set text (or list); ``sets`` the oracle's reading of it, each
    ``("part", name)`` or ``("fix", {var: value})``; ``at`` listed points instead of a set."""

    operator: str
    value: str
    on: Any = None
    sets: tuple[Any, ...] = ()
    periodic: tuple[str, str, str, Any] | None = None   # (TOML set B, variable, value on B, value on A)
    integral: bool = False
    at: tuple[tuple[Any, ...], ...] | None = None


@dataclass
class Problem:
    name: str
    ranges: dict[str, tuple[Any, Any]]          # every variable (time, parameters' ranges excluded), in order
    equations: list[tuple[str, str]]
    constraints: list[Con]
    truth: dict[str, str]                       # a solution (fields and unknowns), "" where none exists
    fields: tuple[str, ...] = ("u",)
    time: str | None = None
    shape: str | None = None                    # the TOML shape text; None for a box
    space: tuple[str, ...] | None = None
    inside: str | None = None                   # a SymPy relation (or And) of the space variables
    parts: dict[str, Part] = field(default_factory=dict)
    disk: tuple[Any, Any, Any] | None = None    # (cx, cy, r) for integrals on a disk
    parameters: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    unknowns: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    observations: dict[str, Any] | None = None  # {"u": truth text, "points": n, "noise": s}
    names: tuple[str, ...] = ()                 # names worth colliding with (time, parameters...)
    #: the domain for integrals as signed pieces: (sign, ("box", lo, hi) | ("disk", cx, cy, r) |
    #: ("polygon", *vertices)), numbers as exact text; () for a box or ``disk``
    regions: tuple[tuple[int, tuple[Any, ...]], ...] = ()
    kind: str = ""                              # the one category that draws it ("" for the general ones)
    points: dict[str, int] | None = None        # [points] as the config asks (None: verify 300, constraint 100)

    @property
    def variables(self) -> list[str]:
        return [*self.ranges, *self.parameters]

    @property
    def spatial(self) -> list[str]:
        return [v for v in self.ranges if v != self.time]

    def __post_init__(self) -> None:
        if self.shape is None:           # a box: its faces are its parts
            for v in self.spatial:
                lo, hi = self.ranges[v]
                for end, sign in ((lo, -1), (hi, 1)):
                    self.parts[f"{v} = {end}"] = _face(self, v, end, sign)


def _face(p: Problem, var: str, end: Any, sign: int) -> Part:
    others = [w for w in p.spatial if w != var]     # problems here have at most two space variables

    def at(s: Any) -> Point:
        pt = {var: mp.mpf(end)}
        for w in others:
            lo, hi = p.ranges[w]
            pt[w] = mp.mpf(lo) + s * (mp.mpf(hi) - mp.mpf(lo))
        return pt
    return Part(at, lambda s: {w: mp.mpf(sign if w == var else 0) for w in p.spatial})


# ------------------------------------------------------------------ the config text
def q(x: Any) -> str:
    return json.dumps(x) if isinstance(x, str) else str(x)


def toml(p: Problem, verify_points: int = 300) -> str:
    out = [f"name = {q(p.name)}", f"fields = {json.dumps(list(p.fields))}"]
    if p.time:
        out.append(f"time = {q(p.time)}")
    out.append("[domain]")
    if p.shape:
        out.append(f"shape = {q(p.shape)}")
        if p.space:
            out.append(f"space = {json.dumps(list(p.space))}")
    for v, (lo, hi) in p.ranges.items():
        if p.shape is None or v == p.time:
            out.append(f"{v} = [{lo}, {hi}]")
    for table, values in (("parameters", p.parameters), ("unknowns", p.unknowns)):
        if values:
            out.append(f"[{table}]")
            out += [f"{n} = [{lo}, {hi}]" for n, (lo, hi) in values.items()]
    for lhs, rhs in p.equations:
        out += ["[[equations]]", f"lhs = {q(lhs)}", f"rhs = {q(rhs)}"]
    for c in p.constraints:
        out += ["[[constraints]]", f"operator = {q(c.operator)}"]
        if not c.periodic:
            out.append(f"value = {q(c.value)}")
        if c.at is not None:
            out.append(f"at = {json.dumps([list(map(float, a)) for a in c.at])}")
        elif c.on is not None:
            out.append(f"on = {json.dumps(c.on)}")
        if c.periodic:
            out.append(f"periodic = {q(c.periodic[0])}")
        if c.integral:
            out.append("integral = true")
    if p.observations:
        out.append("[observations]")
        out += [f"{k} = {q(v)}" for k, v in p.observations.items()]
    asked = p.points if p.points is not None else {"verify": verify_points, "constraint": 100}
    out += ["[points]", *(f"{k} = {v}" for k, v in asked.items())]
    return "\n".join(out) + "\n"
