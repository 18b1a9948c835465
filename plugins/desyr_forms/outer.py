"""Outer functions ``y = A*f(inner)**p + B`` and their inverses on the teacher values.

``f`` is a unary operator of the task (its meaning from the common operator table) or the identity
(then only ``p`` acts: ``inner**p``).  Each inverse takes the principal branch; an even ``f``
(``cos``, ``cosh``, ``sech``) gives ``|inner|``, so its inner is fitted through ``inner**2``.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from desyr.plugin import UNARY_OPERATORS

Array = np.ndarray


def _inv(f: Callable[[Array], Array]) -> Callable[[Array], Array]:
    return lambda v: f(1.0 / v)


#: name -> (inverse on its principal branch, range low, range high, even); only those in the operator table are used
KNOWN: dict[str, tuple[Callable[[Array], Array], float, float, bool]] = {
    "sin": (np.arcsin, -1.0, 1.0, False), "cos": (np.arccos, -1.0, 1.0, True),
    "tan": (np.arctan, -math.inf, math.inf, False), "exp": (np.log, 0.0, math.inf, False),
    "log": (np.exp, -math.inf, math.inf, False), "tanh": (np.arctanh, -1.0, 1.0, False),
    "sinh": (np.arcsinh, -math.inf, math.inf, False), "cosh": (np.arccosh, 1.0, math.inf, True),
    "atan": (np.tan, -math.pi / 2, math.pi / 2, False), "asin": (np.sin, -math.pi / 2, math.pi / 2, False),
    "sech": (_inv(np.arccosh), 0.0, 1.0, True), "csch": (_inv(np.arcsinh), -math.inf, math.inf, False),
    "coth": (_inv(np.arctanh), -math.inf, math.inf, False),
}
SUPPORTED = frozenset(KNOWN) & frozenset(UNARY_OPERATORS)
#: functions whose powers f**p (p in FUNCTION_POWERS) are tried too (sech**2 from cosh: cosh**-2)
POWERED = frozenset({"sin", "cos", "tanh", "sinh", "cosh", "sech", "csch", "coth"})
FUNCTION_POWERS = (Fraction(1), Fraction(-1), Fraction(2), Fraction(-2))
PLAIN_POWERS = (Fraction(1), Fraction(-2), Fraction(-1), Fraction(-1, 2), Fraction(1, 2), Fraction(2))
#: magnitudes of A tried for an outer whose scale the inner cannot absorb
NICE_SCALES = (1.0, 2.0, 4.0, 0.5, 3.0)
#: a stand-in for an unbounded end of a range
BIG = 1e6
#: how far (a fraction of the range) teacher values may overshoot a bound of the outer
SLACK = 0.02


@dataclass(frozen=True)
class Outer:
    """``A*f(inner)**p + B``; ``name`` "" is the identity."""

    name: str
    power: Fraction

    @property
    def even(self) -> bool:
        return bool(self.name) and KNOWN[self.name][3]

    def f(self, z: Array) -> Array:
        with np.errstate(all="ignore"):
            v = UNARY_OPERATORS[self.name].numpy(z) if self.name else z
            return v if self.power == 1 else real_power(v, self.power)

    def inverse(self, v: Array) -> Array:
        """inner from f(inner)**p = v (nan where v is outside the range)."""
        with np.errstate(all="ignore"):
            if self.power != 1:
                v = real_power(v, 1 / self.power)
            return KNOWN[self.name][0](v) if self.name else v

    @functools.cache  # noqa: B019 - a handful of frozen outers per process
    def range(self) -> tuple[float, float]:
        """The values f(inner)**p can take (the function's own range, carried through the power)."""
        if not self.name:
            even = self.power.numerator % 2 == 0 or self.power.denominator % 2 == 0
            return (0.0 if even else -math.inf), math.inf
        lo, hi = KNOWN[self.name][1], KNOWN[self.name][2]
        if self.power == 1:
            return lo, hi
        grid = np.concatenate([np.linspace(-1.0, 1.0, 201), np.logspace(-12, 6, 200), -np.logspace(-12, 6, 200)])
        v = np.concatenate([grid[(grid >= lo) & (grid <= hi)], [e for e in (lo, hi) if math.isfinite(e)]])
        with np.errstate(all="ignore"):
            w = real_power(v, self.power)
        w = w[np.isfinite(w)]
        low, high = float(w.min()), float(w.max())
        return (-math.inf if low < -BIG else 0.0 if abs(low) < 1e-5 else low), (math.inf if high > BIG else high)


def real_power(v: Array, p: Fraction) -> Array:
    """``v**p`` on the reals: with an odd denominator a negative ``v`` has a real root (negative for an odd
    numerator); with an even one it is nan."""
    if p.denominator % 2 == 0:
        return np.asarray(v, dtype=float) ** float(p)
    out = np.sign(v) * np.abs(v) ** float(p) if p.numerator % 2 else np.abs(v) ** float(p)
    return np.asarray(out, dtype=float)


def outers(unary: set[str]) -> Iterator[Outer]:
    """The identity's powers, then each allowed function (and its powers where they make sense)."""
    for p in PLAIN_POWERS:
        yield Outer("", p)
    for name in sorted(unary & SUPPORTED):
        for p in (FUNCTION_POWERS if name in POWERED else (Fraction(1),)):
            yield Outer(name, p)


def scale_guesses(outer: Outer, y: Array) -> list[tuple[float, float]]:
    """(A, B) pairs to invert y with: nice scales and offsets under which y fits f's range (within a
    small slack: the inverse clips).  The identity's powers absorb any scale: only the sign is free."""
    lo, hi = outer.range()
    ylo, yhi = float(np.min(y)), float(np.max(y))
    span = yhi - ylo
    absorbed = not outer.name or (outer.name == "exp" and outer.power == 1)   # A*exp(P) = exp(P + log A)
    scales = [1.0] if absorbed else list(NICE_SCALES)
    if not absorbed and math.isfinite(hi - lo) and span > 0:
        scales.append(_nice_above(span / (hi - lo)))
    slack = SLACK * (hi - lo if math.isfinite(hi - lo) else max(1.0, abs(lo) if math.isfinite(lo) else abs(hi)))
    out: list[tuple[float, float]] = []
    for a in dict.fromkeys(scales):
        for A in (a, -a):
            offsets = [0.0]
            if outer.name and (math.isfinite(lo) or math.isfinite(hi)):
                mid_f = (lo + hi) / 2 if math.isfinite(hi - lo) else (lo if math.isfinite(lo) else hi)
                offsets.append(_nice((ylo + yhi) / 2 - A * mid_f))
            for B in dict.fromkeys(offsets):
                v = (np.array([ylo, yhi]) - B) / A
                if np.all((v >= lo - slack) & (v <= hi + slack)):
                    out.append((A, B))
    return out


def clipped(outer: Outer, v: Array) -> Array:
    """``v`` moved just inside the outer's range (teacher values overshoot a bound a little)."""
    lo, hi = outer.range()
    eps = 1e-9 * (hi - lo if math.isfinite(hi - lo) else 1.0)
    return np.asarray(np.clip(v, lo + eps if math.isfinite(lo) else -np.inf, hi - eps if math.isfinite(hi) else np.inf))


def _nice(x: float) -> float:
    return float(Fraction(x).limit_denominator(4)) if abs(x) < 1e6 else x


def _nice_above(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten (or a quarter-step) just above ``x``."""
    if x <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(x))
    for m in (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if m * e > x * 1.02:
            return float(m * e)
    return float(10 * e)
