"""Exponential rates shared across fields (paper §3.5 and the Kovasznay settings of appendix B).

Two rules live here, both pure sympy/numpy:

* **Rate clustering** (Stage A, shared-factor augmentation): factors
  ``exp(r*x_q + b)`` whose exponent is linear in one variable are collected
  from every field's candidates and grouped by :func:`cluster_rates`.
* **Rate tying** (Stage B, joint parameterization): a rate that appears, to
  1e-9 relative, in at least two fields becomes one shared parameter ``R``;
  any rate that is ``k * r_b`` (k = 1..4, to 1e-8) for such a base becomes
  ``k*R`` (:func:`tie_shared_rates`).
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from desyr.model.constants import METHOD


@dataclass(frozen=True)
class ExpFactor:
    """One ``exp`` atom whose exponent is ``rate*variable (+ offset)``."""

    atom: sp.Expr
    variable: sp.Symbol
    rate: float
    rate_node: sp.Expr | None     # the Float holding the rate, None when the rate is structural (±1)


def exp_factors(expr: sp.Expr, variables: Sequence[sp.Symbol]) -> list[ExpFactor]:
    """Distinct exp atoms with an exponent linear in exactly one variable, in preorder."""
    found, seen = [], set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.exp) and node not in seen:
            seen.add(node)
            factor = _linear_exponent(node, variables)
            if factor is not None and abs(factor.rate) >= METHOD.rate_minimum:
                found.append(factor)
    return found


def _linear_exponent(atom: sp.exp, variables: Sequence[sp.Symbol]) -> ExpFactor | None:
    arg = atom.args[0]
    used = [v for v in variables if arg.has(v)]
    if len(used) != 1:
        return None
    q = used[0]
    rate = sp.diff(arg, q)
    if rate.free_symbols or not rate.is_number or sp.diff(arg, q, 2) != 0:
        return None
    linear_terms = [t for t in sp.Add.make_args(arg) if t.has(q)]
    if len(linear_terms) != 1:
        return None
    coeff, rest = linear_terms[0].as_independent(q, as_Add=False)
    rate_node = coeff if isinstance(coeff, sp.Float) and rest == q else None
    return ExpFactor(atom, q, float(rate), rate_node)


# ----------------------------------------------------------------- clustering
@dataclass
class RateObservation:
    field: str
    variable: str
    rate: float
    loss: float                   # search-stage loss of the candidate it came from


@dataclass
class RateCluster:
    variable: str
    sign: int
    members: list[RateObservation] = field(default_factory=list)

    @property
    def median(self) -> float:
        return float(statistics.median(m.rate for m in self.members))

    @property
    def fields(self) -> set[str]:
        return {m.field for m in self.members}

    @property
    def median_loss(self) -> float:
        return float(statistics.median(m.loss for m in self.members))

    @property
    def dispersion(self) -> float:
        """Relative spread: (max - min) / |median|."""
        rates = [m.rate for m in self.members]
        return (max(rates) - min(rates)) / max(abs(self.median), 1e-12)

    def accepts(self, obs: RateObservation, tolerance: float) -> bool:
        if obs.variable != self.variable or _sign(obs.rate) != self.sign:
            return False
        rc = self.median
        return abs(obs.rate - rc) <= tolerance * max(abs(rc), abs(obs.rate), 1e-12)

    def as_dict(self) -> dict[str, Any]:
        return {"variable": self.variable, "median_rate": self.median, "fields": sorted(self.fields),
                "observations": len(self.members), "median_loss": self.median_loss,
                "dispersion": self.dispersion}


def _sign(value: float) -> int:
    return 1 if value > 0 else -1


def cluster_rates(observations: Iterable[RateObservation], tolerance: float = METHOD.rate_cluster_tolerance) -> list[RateCluster]:
    """Observations in increasing |r|, each joining the first compatible cluster (eq. coupled-rate-clustering)."""
    clusters: list[RateCluster] = []
    for obs in sorted(observations, key=lambda o: abs(o.rate)):
        home = next((c for c in clusters if c.accepts(obs, tolerance)), None)
        if home is None:
            home = RateCluster(obs.variable, _sign(obs.rate))
            clusters.append(home)
        home.members.append(obs)
    return clusters


def shared_clusters(clusters: Iterable[RateCluster], keep: int = 2) -> list[RateCluster]:
    """Clusters seen in two or more fields, by support, median loss, dispersion, |median rate|."""
    eligible = [c for c in clusters if len(c.fields) >= 2]
    eligible.sort(key=lambda c: (-len(c.fields), c.median_loss, c.dispersion, abs(c.median)))
    return eligible[:keep]


# --------------------------------------------------------------------- tying
def rates_match(r: float, s: float, tolerance: float = METHOD.rate_match_tolerance) -> bool:
    return abs(r - s) < tolerance * max(1.0, abs(r), abs(s))


def base_rates(rates_by_field: Mapping[str, Sequence[float]]) -> list[float]:
    """Rates matched in at least two fields, in first-occurrence (field, atom) order."""
    bases: list[float] = []
    for f, rates in rates_by_field.items():
        others = [r for g, rs in rates_by_field.items() if g != f for r in rs]
        for r in rates:
            if any(rates_match(r, b) for b in bases):
                continue
            if any(rates_match(r, s) for s in others):
                bases.append(r)
    return bases


def multiple_of(rate: float, bases: Sequence[float], multiples: Sequence[int] = METHOD.rate_multiples,
                tolerance: float = METHOD.rate_multiple_tolerance) -> tuple[int, int] | None:
    """(base index, k) for the first base with rate = k * base, k in ``multiples``; else None."""
    for i, base in enumerate(bases):
        ratio = rate / base
        k = round(ratio)
        if k in multiples and abs(ratio - k) <= tolerance:
            return i, int(k)
    return None


@dataclass
class TiedRates:
    """Exponential rates shared across fields, tied to common parameters for a joint refit (paper §3.6)."""

    expressions: dict[str, sp.Expr]        # rate Floats replaced by k*R_i
    symbols: list[sp.Symbol]               # R_1.. (shared parameters)
    values: list[float]                    # their starting values (the base rates)
    ties: list[dict[str, Any]]                    # what was tied, for the report


def tie_shared_rates(exprs: Mapping[str, sp.Expr], variables: Sequence[sp.Symbol],
                     prefix: str = "rate") -> TiedRates:
    """Replace every rate that is a multiple of a shared base rate by ``k*R``."""
    factors = {f: [x for x in exp_factors(e, variables) if x.rate_node is not None] for f, e in exprs.items()}
    bases = base_rates({f: [x.rate for x in fs] for f, fs in factors.items()})
    symbols = [sp.Dummy(f"{prefix}{i + 1}", real=True) for i in range(len(bases))]   # never a config's name
    out, ties = dict(exprs), []
    for f, fs in factors.items():
        swaps = {}
        for factor in fs:
            hit = multiple_of(factor.rate, bases)
            if hit is None:
                continue
            i, k = hit
            swaps[factor.atom] = _with_rate(factor, k * symbols[i])
            ties.append({"field": f, "rate": factor.rate, "base": bases[i], "multiple": k,
                         "parameter": symbols[i].name})
        out[f] = exprs[f].xreplace(swaps) if swaps else exprs[f]
    return TiedRates(out, symbols, list(bases), ties)


def _with_rate(factor: ExpFactor, rate: sp.Expr) -> sp.Expr:
    arg = factor.atom.args[0]
    terms = [rate * factor.variable if t.has(factor.variable) else t for t in sp.Add.make_args(arg)]
    return sp.exp(sp.Add(*terms))
