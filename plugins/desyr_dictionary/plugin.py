"""``dictionary``: sparse linear combinations of separable basis terms, chosen by a beam search of
orthogonal least squares.

A second search family next to the genetic-programming searchers: no evolution, one deterministic
pass, numpy and scipy only.  The dictionary holds products over the variables of
``v**k * u(w*v + phi)`` (``u`` one of sin, cos, exp, sinh, cosh where the task allows it, and
``log(v)`` for a variable whose samples are positive), the
frequencies and rates taken from grids and from the teacher's own spectra (see
:mod:`desyr_dictionary.basis`); a beam search (:mod:`desyr_dictionary.select`) keeps the best
supports of each size 1..``max_terms``, the best few of each size are refitted (their frequencies
and rates by variable projection, see :mod:`desyr_dictionary.fit`) and become front members, so a
noisy teacher still leaves the exact support on the front.  When even the densest support leaves
a relative residual above ``accept_tolerance`` the teacher field is not in the span of the
dictionary and the front is empty, with the reason in ``info["rejected"]``; unless a support of a few terms
comes within ``noise_tolerance`` (see :func:`desyr_dictionary.fit.clear_support`): then the rest is
teacher error, and the front is kept.  Where the task
allows log or exp, the same fit of ``exp(u)`` or ``log(|u|)`` gives members ``log(s)`` and
``+-exp(s)`` too (see :class:`Outer`).
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from desyr.plugin import (
    ComponentError,
    Option,
    Searcher,
    SearchResult,
    SearchTask,
    Vocabulary,
    complexity,
    empirical_front,
    hookimpl,
)
from desyr_dictionary.basis import KNOWN_UNARY, Dictionary, build_dictionary
from desyr_dictionary.fit import Fit, clear_support, columns, expression, relative_residual, sparse_fits
from desyr_dictionary.special import SPECIAL, Coordinate, coordinates

#: binary operators the expressions are built from (sums of products; powers of variables are Pow nodes):
#: without "+" a member is one term (no intercept), without "*" a term is one variable's factor
SUM, PRODUCT = "+", "*"
#: generic budget keys (see SearchTask.budget) this searcher has no use for; ignored, noted in the info
BUDGET_IGNORED = frozenset({"iterations", "populations", "time_limit"})
DEFAULT_EXP_RATES = [-3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0]


class DictionarySearcher(Searcher):
    """Sparse regression on a dictionary of separable terms; front members of each support size.

    Unary operators it does not know (sqrt, tanh, ...) are not used and are listed in
    ``info["unused_operators"]``: a search library is shared by several searchers, so they are not
    an error.  No binary operator list is an error either: without "+" a member is a single term
    (no intercept), without "*" each term is one variable's power or function.  The same task and seed always give the same front; seeds differ only when X_S has
    more than ``max_rows`` rows (each seed fits its own row subsample)."""

    name = "dictionary"
    escalation_rank = 0
    joins_default_pool = True      # seconds per search: it costs a default run almost nothing
    quick = True                   # so it also runs first, and its verified answer ends the attempt
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = KNOWN_UNARY
    budget_ignored = BUDGET_IGNORED
    options = {
        "degree": Option(None, "largest power of one variable in a term; default: total_degree in one variable "
                               "(which has no cross terms to limit), 3 in several", kind=int, low=0, high=12,
                         nullable=True),
        "total_degree": Option(6, "largest total polynomial degree of a term (the sum of its variables' powers)",
                               kind=int, low=0, high=36),
        "max_harmonic": Option(8, "sin/cos frequencies k*pi/L for k = 1..max_harmonic (L: the variable's "
                                  "sample span, snapped up to a nice length within 5%)", kind=int, low=1, high=64),
        "spectrum_peaks": Option(2, "extra frequencies (and exp rates) per variable: the strongest peaks of "
                                    "the teacher's least-squares periodogram (and exponential scan) along it",
                                 kind=int, low=0, high=16),
        "exp_rates": Option(list(DEFAULT_EXP_RATES), "rates a of exp(a*v) (abs(a) for sinh/cosh); rates -w^2, -w and +w from the "
                            "first two harmonics w of the other variables are added", kind=list,
                            item=float, low=0, high=64),
        "max_terms": Option(6, "largest number of terms (besides the intercept) of a front member", kind=int,
                            low=1, high=64),
        "beam": Option(8, "supports of each size kept by the beam search (1: plain orthogonal least squares); "
                          "the best 3 of each size are fitted", kind=int, low=1, high=64),
        "max_columns": Option(6000, "dictionary size cap (cheapest terms first: low degree, low harmonics)",
                              kind=int, low=1, high=200_000),
        "max_rows": Option(2000, "rows of X_S fitted; more are subsampled with the task seed", kind=int,
                           low=10, high=10_000_000),
        "accept_tolerance": Option(1e-2, "largest relative residual (RMS of residual / RMS of y - mean) of the "
                                         "best member; above it the front is empty", kind=float, low=0,
                                   open_low=True),
        "noise_tolerance": Option(5e-2, "a front above accept_tolerance is still kept when a support of at most "
                                        "noise_terms terms leaves at most this relative residual (the field is in "
                                        "the span, the rest is teacher error); 0: never", kind=float, low=0, high=1),
        "noise_terms": Option(3, "the most terms (the intercept counted) of a support that noise_tolerance accepts",
                              kind=int, low=1, high=64),
        "prune_tolerance": Option(1e-7, "terms contributing less than this fraction of the largest term are "
                                        "dropped and the rest refitted", kind=float, low=0, high=1, open_high=True),
        "outer": Option(["log", "exp"], "outer functions u = op(s) also tried where the task's unary operators "
                                        "allow them: the dictionary fits s = exp(u) for log, s = log(|u|) for exp "
                                        "(when u keeps one sign)", kind=list, item=str, choices=("log", "exp"),
                        low=0, high=2),
        "special": Option(list(SPECIAL), "special functions offered on derived coordinates: erf(a*v/sqrt(t)) "
                                         "where time is positive on every sample, besselj/bessely/besseli/besselk"
                                         "(0, k*r) with r the distance from a round shape's centre (bessely and besselk "
                                         "where the samples leave a hole round it); [] for none", kind=list, item=str, choices=SPECIAL,
                          low=0, high=len(SPECIAL)),
        "refine": Option(True, "refit each support's frequencies and rates (variable projection)", kind=bool),
        "enforce_max_size": Option(False, "drop members whose complexity exceeds the task's max_size (by "
                                          "default they are kept: a sparse sum is larger than its GP tree)",
                                   kind=bool),
    }

    def check_operators(self, binary: Sequence[str], unary: Sequence[str]) -> None:
        """Any operator list is accepted: unknown unary operators are left unused (listed in
        ``info["unused_operators"]``), and without "+" or "*" the members are single terms or single
        factors (see :meth:`search`)."""

    def search(self, task: SearchTask) -> SearchResult:
        self.check_operators(task.binary, task.unary)
        s, ignored_budget = self.settings_for(task)
        s = self.validate_options(s)          # budget values are checked like options
        X, y = self.task_arrays(task)
        if X.shape[0] < 2 or not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
            raise ComponentError(f"searcher 'dictionary' needs at least 2 finite samples, got {X.shape[0]} rows")
        variables = list(task.variables)
        ops = frozenset(u for u in task.unary if u in KNOWN_UNARY)
        unused = [u for u in task.unary if u not in KNOWN_UNARY]
        rows = self.rows(X.shape[0], int(s["max_rows"]), int(task.seed))
        sums = SUM in task.binary
        symbols: list[sp.Expr] = list(Vocabulary(variables).var_symbols.values())
        coords = coordinates(X[rows], symbols, task.time, task.centres, s["special"], int(s["max_harmonic"]))
        # each derived coordinate is one more column of the samples, after the variables
        Xs, ys = np.column_stack([X[rows], *(c.values for c in coords)]), y[rows]

        start = time.perf_counter()
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):       # one core: K seeded runs are the parallel units
            dic, fits = self._fit(Xs, ys, variables, ops, s, sums, PRODUCT in task.binary, coords)
            outer = {op: self._outer_fits(Xs, ys, variables, ops, s, sums, PRODUCT in task.binary, op, coords)
                     for op in OUTER if op in task.unary and op in s["outer"] and sums}
        elapsed = time.perf_counter() - start

        best = min(fits, key=lambda f: f.relative_residual, default=None)
        info: dict[str, Any] = {
            "seed": int(task.seed),
            "seconds": elapsed,
            "columns": len(dic.terms),
            "rows": int(len(rows)),
            "support": len(best.terms) if best else 0,
            "relative_residual": best.relative_residual if best else float("inf"),
            "unused_operators": unused,
            "frequencies": {v: [float(w) for w in ws] for v, ws in dic.frequencies.items()},
            "exp_rates": {v: [float(a) for a in rs] for v, rs in dic.rates.items()},
            "spectrum_peaks": {v: [float(w) for w in ws] for v, ws in dic.peaks.items()},
            "rate_peaks": {v: [float(a) for a in rs] for v, rs in dic.rate_peaks.items()},
            "length_scales": {v: L for v, L in zip(variables, dic.lengths)},
            "coordinates": {c.name: list(c.ops) for c in coords},
            "outer": {op: (got if isinstance(got, str) else f"{len(got[1])} fit(s), best relative residual "
                                                              f"{got[0]:.3g}") for op, got in outer.items()},
            "ignored_budget": ignored_budget,
        }
        wrapped = [(op, got) for op, got in outer.items() if not isinstance(got, str)]
        best_outer = min((got[0] for _, got in wrapped), default=float("inf"))
        if best is None and not wrapped:
            info["rejected"] = "no sparse fit is finite"
            return SearchResult([], info)
        best_rr = min(best.relative_residual if best else float("inf"), best_outer)
        clear = None if best_rr <= float(s["accept_tolerance"]) else \
            clear_support(fits, float(s["noise_tolerance"]), int(s["noise_terms"]))
        if clear is not None:
            info["noise_floor"] = (f"{len(clear.terms)} term(s) leave a relative residual of "
                                   f"{clear.relative_residual:.3g} <= noise_tolerance "
                                   f"{float(s['noise_tolerance']):g}: the rest is taken for teacher error")
        elif not best_rr <= float(s["accept_tolerance"]):
            info["rejected"] = (f"the best of {len(fits)} sparse fit(s) ({len(best.terms) if best else 0} term(s)) "
                                f"leaves a relative residual of {best_rr:.3g} > accept_tolerance "
                                f"{float(s['accept_tolerance']):g}: the field is not in the dictionary's span")
            return SearchResult([], info)

        symbols += [c.expr for c in coords]      # a derived coordinate's column stands for its expression
        exprs = [(fit, expression(fit, symbols)) for fit in fits]
        for op, (_, outer_fits) in wrapped:
            for fit, sign in outer_fits:
                e = OUTER[op].wrap(expression(fit, symbols), sign)
                snapped = snapped_powers(e)
                # the float power would be dominated on the front by a snapped one only through teacher noise
                keep_snap = snapped != e and _relative_error(snapped, symbols[:len(variables)], Xs[:, :len(variables)], ys) <= float(s["accept_tolerance"])
                exprs.append((fit, snapped if keep_snap else e))
        info["over_max_size"] = sum(complexity(e) > int(task.max_size) for _, e in exprs)
        if s["enforce_max_size"]:
            exprs = [(f, e) for f, e in exprs if complexity(e) <= int(task.max_size)]
        members, dropped = self.scored_members(
            ((_label(fit), complexity(e), functools.partial(_same, e)) for fit, e in exprs), task)
        info["dropped"] = dropped
        return SearchResult(empirical_front(members), info)

    @staticmethod
    def _fit(X: np.ndarray, y: np.ndarray, variables: list[str], ops: frozenset[str], s: dict[str, Any], sums: bool,
             products: bool, coords: Sequence[Coordinate] = ()) -> tuple[Dictionary, list[Fit]]:
        dic = build_dictionary(X[:, :len(variables)], y, variables, ops, _degree(s, len(variables)),
                               int(s["max_harmonic"]), s["exp_rates"], int(s["spectrum_peaks"]), int(s["max_columns"]),
                               total_degree=int(s["total_degree"]), products=products, special=coords)
        fits = sparse_fits(X, y, dic.terms, dic.params, int(s["max_terms"]) if sums else 1,
                           bool(s["refine"]), float(s["prune_tolerance"]), intercept=sums, beam=int(s["beam"]),
                           windows=dic.windows, accept=float(s["accept_tolerance"]))
        return dic, fits

    def _outer_fits(self, X: np.ndarray, y: np.ndarray, variables: list[str], ops: frozenset[str],
                    s: dict[str, Any], sums: bool, products: bool, op: str, coords: Sequence[Coordinate] = ()
                    ) -> str | tuple[float, list[tuple[Fit, float]]]:
        """Fits of ``OUTER[op]``'s inverse of ``y`` (``u = log(s)``: ``s = exp(u)``), each with its sign
        and the best relative residual back on ``y``; or why the transform does not apply."""
        outer = OUTER[op]
        z, sign, why = outer.inverse(y)
        if z is None:
            return why
        _, fits = self._fit(X, z, variables, ops, s, sums, products, coords)
        kept: list[tuple[Fit, float]] = []
        best = float("inf")
        for fit in fits:
            with np.errstate(all="ignore"):
                y_hat = outer.forward(columns(X, fit.terms, fit.params) @ fit.coefs, sign)
            rr = relative_residual(y - y_hat, y)
            if np.isfinite(rr):
                kept.append((fit, sign))
                best = min(best, rr)
        return (best, kept) if kept else f"no fit of {op}'s inverse is finite on the samples"

    @staticmethod
    def rows(n: int, max_rows: int, seed: int) -> np.ndarray:
        """All rows, or a sorted subsample of ``max_rows`` of them drawn with ``seed``."""
        if n <= max_rows:
            return np.arange(n)
        return np.sort(np.random.default_rng(seed).choice(n, size=max_rows, replace=False))


@dataclass(frozen=True)
class Outer:
    """An outer function ``u = sign * op(s)``: the dictionary fits ``s``, the inverse of ``op`` applied
    to the teacher values. It reaches what no sum of separable terms holds (``log(1 + x**2) + log(1 + x)``
    is ``log`` of a cubic, ``sqrt(x)`` is ``exp(log(x)/2)``): the output transforms of AI Feynman."""

    inverse: Callable[[np.ndarray], tuple[np.ndarray | None, float, str]]
    forward: Callable[[np.ndarray, float], np.ndarray]
    wrap: Callable[[sp.Expr, float], sp.Expr]


def _exp_of_values(y: np.ndarray) -> tuple[np.ndarray | None, float, str]:
    if float(np.abs(y).max(initial=0.0)) > OUTER_LIMIT:
        return None, 1.0, f"|u| reaches {float(np.abs(y).max()):.3g} > {OUTER_LIMIT:g}, so exp(u) would overflow"
    return np.exp(y), 1.0, ""


def _log_of_values(y: np.ndarray) -> tuple[np.ndarray | None, float, str]:
    sign = 1.0 if np.all(y > 0) else -1.0 if np.all(y < 0) else 0.0
    if sign == 0.0:
        return None, 1.0, "u changes sign (or is zero), so it is not sign * exp(s)"
    a = np.abs(y)
    if not a.min() >= OUTER_NEAR_ZERO * a.max():
        return None, sign, f"|u| comes within {OUTER_NEAR_ZERO:g} of its largest value of zero, where log(|u|) is noise"
    return np.log(a), sign, ""


#: largest |u| for which exp(u) is taken, and the smallest min |u| / max |u| for which log(|u|) is
OUTER_LIMIT, OUTER_NEAR_ZERO = 30.0, 1e-2
OUTER: dict[str, Outer] = {
    "log": Outer(_exp_of_values, lambda s, sign: np.log(s), lambda e, sign: sp.log(e)),
    "exp": Outer(_log_of_values, lambda s, sign: sign * np.exp(s), lambda e, sign: sp.exp(e) if sign > 0 else -sp.exp(e)),
}


#: a float power of a variable within this of a fraction with a denominator up to POWER_DENOMINATOR is
#: also offered as that fraction (Stage B refits no exponent, so x**0.50002 would stay as it is)
POWER_SNAP, POWER_DENOMINATOR = 1e-3, 6


def snapped_powers(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each float exponent of a non-numeric base near a simple fraction replaced by it
    (``exp(0.50002*log(x))``, which sympy writes ``x**0.50002``, becomes ``sqrt(x)``)."""
    from fractions import Fraction

    swaps = {}
    for power in expr.atoms(sp.Pow):
        if isinstance(power.exp, sp.Float) and not power.base.is_number:
            value = float(power.exp)
            near = Fraction(value).limit_denominator(POWER_DENOMINATOR)
            if abs(value - float(near)) <= POWER_SNAP * max(1.0, abs(value)):
                swaps[power] = power.base ** sp.Rational(near.numerator, near.denominator)
    return expr.xreplace(swaps) if swaps else expr


def _relative_error(expr: sp.Expr, symbols: Sequence[sp.Symbol], X: np.ndarray, y: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        y_hat = np.broadcast_to(sp.lambdify(symbols, expr, "numpy")(*X.T), y.shape)
    return relative_residual(y - y_hat, y)


def _same(expr: sp.Expr) -> sp.Expr:
    return expr


def _label(fit: Fit) -> str:
    return f"{len(fit.terms)} term(s), relative residual {fit.relative_residual:.2e}"


@hookimpl
def desyr_register_searchers() -> list[type[Searcher]]:
    return [DictionarySearcher]


def _degree(settings: dict[str, Any], n_variables: int) -> int:
    """The per-variable power cap: it limits cross terms, so in one variable only the total degree
    binds (SSDE's Nguyen-4, x**6 + ... + x, needs the sixth power)."""
    if settings["degree"] is not None:
        return int(settings["degree"])
    return min(int(settings["total_degree"]), 12) if n_variables == 1 else 3
