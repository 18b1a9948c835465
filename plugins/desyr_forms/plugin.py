"""``forms``: an outer function of a low-degree inner form, rational functions, and either times a
separate time factor, fitted in seconds without evolution.

The shapes that sums of separable terms (the ``dictionary``) and short genetic runs miss:
``4*atan(exp(x))``, ``log(1 + x**2 + y**2)``, ``1/cosh(x)``, ``(1 + x**2/3)**(-1/2)``,
``-x/(x**2 + t/2 + 1)``, ``exp(-(x - t)**2/(t + 1))/sqrt(t + 1)``, ``cos(t/2)/cosh(x)``.  Each is
``(A*f(inner)**p + B) * g(t)`` with ``f`` one of the task's unary operators (or none), ``inner`` a
polynomial of total degree <= 2, ``exp`` of a linear form or a ratio of such polynomials, and
``g`` an optional factor in a time variable.  A linear pass inverts the outer on the teacher values
for a few guessed ``A``, ``B`` and fits the inner by least squares (:mod:`desyr_forms.linear`); the
best few are refined by nonlinear least squares and their constants cleaned
(:mod:`desyr_forms.refine`).  numpy and scipy only.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

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
from desyr_forms.factor import guesses
from desyr_forms.linear import Candidate, linear_candidates, relative_residual
from desyr_forms.outer import SUPPORTED
from desyr_forms.refine import clean, refine, sparser
from desyr_forms.symmetry import Reduction, reductions

#: a refined form whose relative residual is at most this is exact (to rounding)
EXACT_FORM = 1e-10
#: refined fits (best first) whose inner terms are dropped one at a time (refine.sparser): each drop is a refit
LADDERS = 3
#: a larger form joins the numeric front only when it cuts the relative residual by this factor
FRONT_GAIN = 0.5


class FormsSearcher(Searcher):
    """Outer-of-inner forms, rational functions and time factors (see the module doc).

    Unary operators it has no inverse for are left unused (``info["unused_operators"]``).  The
    same task and seed give the same front: the only randomness is the row subsample and the
    perturbed refinement starts, both drawn from ``task.seed``."""

    name = "forms"
    # the default pool: a rational or a power of a polynomial needs no unary operator, so a first attempt
    # can find it, and a search costs seconds (measurements: docs/searchers.md); the rank serves configs
    # that name their searchers
    escalation_rank = 2
    joins_default_pool = True
    quick = True
    supported_binary = frozenset({"+", "-", "*", "/", "^"})
    supported_unary = SUPPORTED
    budget_aliases = {"time_limit": "time_limit"}
    budget_ignored = frozenset({"iterations", "populations"})
    options = {
        "max_rows": Option(500, "rows of X_S fitted; more are subsampled with the task seed", kind=int,
                           low=10, high=1_000_000),
        "refine": Option(10, "linear fits (distinct shapes, best first) refined by nonlinear least squares",
                         kind=int, low=1, high=200),
        "starts": Option(2, "least-squares starts per refined fit (the first from the linear fit, the "
                            "others seeded perturbations of it)", kind=int, low=1, high=20),
        "evaluations": Option(100, "residual evaluations per least-squares start", kind=int, low=10,
                              high=100_000),
        "factor_variables": Option(["t"], "variables a separate factor exp(a*v), (v + c)**p or "
                                          "cos(w*v + phi) is tried in", kind=list, item=str, low=0, high=16),
        "accept_tolerance": Option(1e-2, "largest relative residual (RMS of residual / RMS of y - mean) of "
                                         "the best member; above it the front is empty", kind=float, low=0,
                                   open_low=True),
        "snap_tolerance": Option(1e-3, "a constant within this (relative) of 0, a fraction with denominator "
                                       "<= 12 or a multiple of pi/4 is snapped to it when the fit stays as good",
                                 kind=float, low=0, high=0.1),
        "prune_tolerance": Option(1e-4, "an inner term below this fraction of the largest term is dropped "
                                        "when the fit stays as good", kind=float, low=0, high=0.5),
        "noise_floor": Option(3e-3, "relative residual a teacher's own error may leave: a fit's inner terms are "
                                    "dropped one at a time (smallest first) while the fit stays within it, "
                                    "each sparser form a further candidate", kind=float, low=0, high=0.1),
        "time_limit": Option(None, "seconds after which no further fit is refined (off by default: the "
                                   "work is bounded by refine, starts and evaluations)", kind=float, low=0,
                             open_low=True, nullable=True),
        "symmetries": Option(True, "also fit in the reduced variables of a rotation or a dilation the samples "
                                   "show (a radius about a centre, r**2/(t + t0), y/x) and map the forms back",
                             kind=bool),
        "enforce_max_size": Option(False, "drop members whose complexity exceeds the task's max_size (by "
                                          "default they are kept, as the dictionary's are)", kind=bool),
    }

    def check_operators(self, binary: Any, unary: Any) -> None:
        """Any operator list is accepted: unknown unary operators are left unused, and without "/"
        no rational inner or negative power is tried."""

    def search(self, task: SearchTask) -> SearchResult:
        s, ignored_budget = self.settings_for(task)
        s = self.validate_options(s)
        X, y = self.task_arrays(task)
        if X.shape[0] < 8 or not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
            raise ComponentError(f"searcher 'forms' needs at least 8 finite samples, got {X.shape[0]} rows")
        rng = np.random.default_rng(int(task.seed))
        if X.shape[0] > int(s["max_rows"]):
            rows = np.sort(rng.choice(X.shape[0], size=int(s["max_rows"]), replace=False))
            X, y = X[rows], y[rows]
        variables = list(task.variables)
        unary = {u for u in task.unary if u in SUPPORTED}
        rational = "/" in task.binary
        symbols = list(Vocabulary(variables).var_symbols.values())
        start = time.perf_counter()

        import scipy.optimize  # noqa: F401  SciPy's own BLAS, loaded before the limit so the limit holds it
        from threadpoolctl import threadpool_limits

        # one core: K seeded runs are the parallel units (where no executor pinned the process, SciPy's
        # BLAS loaded after the limit ran on every core: 28 s for a 3-variable search on a loaded machine
        # against 6 s)
        with threadpool_limits(limits=1):
            cands, factors = self._linear(X, y, variables, s["factor_variables"], unary, rational)
            linear_seconds = time.perf_counter() - start
            finals = self._refined(cands, X, y, rng, s, start)
            found = [(c.shape.sympy(symbols, c.theta), c.rr) for c in finals]
            reduced: list[str] = []
            out_of_time = s["time_limit"] is not None and time.perf_counter() - start > float(s["time_limit"])
            if s["symmetries"] and not out_of_time and not any(c.rr <= EXACT_FORM for c in finals):
                for red in reductions(X, y, symbols, _time_column(task, variables, s["factor_variables"])):
                    got = self._reduced_forms(red, y, unary, rational, rng, s, start)
                    found += got
                    reduced.append(f"{red.name}: {', '.join(map(str, red.exprs))} ({len(got)} form(s))")
        elapsed = time.perf_counter() - start

        info: dict[str, Any] = {
            "seed": int(task.seed), "seconds": elapsed, "linear_seconds": linear_seconds,
            "rows": int(X.shape[0]), "linear_fits": len(cands), "factor_guesses": factors,
            "refined": len(finals), "unused_operators": [u for u in task.unary if u not in SUPPORTED],
            "ignored_budget": ignored_budget, "symmetries": reduced,
        }
        best = min((rr for _, rr in found), default=float("inf"))
        info["relative_residual"] = best
        if not best <= float(s["accept_tolerance"]):
            info["rejected"] = (f"the best of {len(found)} refined form(s) leaves a relative residual of "
                                f"{best:.3g} > accept_tolerance {float(s['accept_tolerance']):g}")
            return SearchResult([], info)
        exprs = [e for e, rr in found if rr <= float(s["accept_tolerance"])]
        info["over_max_size"] = sum(complexity(e) > int(task.max_size) for e in exprs)
        if s["enforce_max_size"]:
            exprs = [e for e in exprs if complexity(e) <= int(task.max_size)]
        members, dropped = self.scored_members(((str(e), complexity(e), _constant(e)) for e in exprs), task)
        info["dropped"] = dropped
        return SearchResult(empirical_front(members), info)

    @staticmethod
    def _linear(X: np.ndarray, y: np.ndarray, variables: list[str], factor_variables: list[str], unary: set[str],
                rational: bool) -> tuple[list[Candidate], int]:
        """The linear fits in every variable and, unless one is exact, with a factor in each factor
        variable; and how many factor guesses were tried."""
        cands = linear_candidates(X, y, range(X.shape[1]), unary, rational)
        factors = 0
        exact = any(c.rr <= EXACT_FORM for c in cands)     # no factor form can be simpler and better
        for v in factor_variables:
            if v in variables and len(variables) > 1 and not exact:
                for g in guesses(X, y, variables.index(v), unary, rational):
                    factors += 1
                    cands += linear_candidates(X, y, g.cols, unary, rational, g.factor, g.theta)
        return cands, factors

    def _reduced_forms(self, red: Reduction, y: np.ndarray, unary: set[str], rational: bool,
                       rng: np.random.Generator, s: dict[str, Any], start: float) -> list[tuple[Any, float]]:
        """Forms fitted in a symmetry's reduced variables, mapped back to the field, each with its
        relative residual on the field's own samples."""
        names = [f"z{i}" for i in range(red.Z.shape[1])]
        time_names = [names[-1]] if red.name == "rotation" and len(red.exprs) > 1 and red.exprs[-1].is_Symbol \
            and str(red.exprs[-1]) in s["factor_variables"] else []
        cands, _ = self._linear(red.Z, red.w, names, time_names, unary, rational)
        zs = list(Vocabulary(names).var_symbols.values())
        out = []
        for c in self._refined(cands, red.Z, red.w, rng, s, start):
            values = red.factor * c.shape.predict(red.Z, c.theta)
            out.append((red.mapped_back(c.shape.sympy(zs, c.theta), zs), relative_residual(values, y)))
        return out

    @staticmethod
    def _refined(cands: list[Candidate], X: np.ndarray, y: np.ndarray, rng: np.random.Generator,
                 s: dict[str, Any], start: float) -> list[Candidate]:
        """The best distinct linear fits refined, each with its cleaned version when that holds."""
        picked: list[Candidate] = []
        seen: set[Any] = set()
        for c in sorted(cands, key=lambda c: (c.rank(), c.rr)):
            key = (c.shape.outer, c.shape.inner, c.shape.factor)
            if key in seen or not np.isfinite(c.rr):
                continue
            seen.add(key)
            picked.append(c)
            if len(picked) == int(s["refine"]):
                break
        out: list[Candidate] = []
        exact_size = None        # once a form is exact, a larger one cannot join the front
        ladders = 0
        for c in picked:
            if s["time_limit"] is not None and time.perf_counter() - start > float(s["time_limit"]):
                break
            if exact_size is not None and c.shape.size >= exact_size:
                continue
            raw = refine(c, X, y, rng, int(s["starts"]), int(s["evaluations"]))
            out.append(raw)
            tidy = clean(raw, X, y, rng, int(s["evaluations"]), float(s["snap_tolerance"]),
                         float(s["prune_tolerance"]))
            if tidy is not None:
                out.append(tidy)
            best = tidy if tidy is not None and tidy.rr <= raw.rr * 1.5 else raw
            # only a fit within the teacher's error can hide the right structure under spurious terms
            if EXACT_FORM < best.rr <= float(s["noise_floor"]) and ladders < LADDERS:
                ladders += 1
                out += sparser(best, X, y, rng, int(s["evaluations"]), float(s["snap_tolerance"]),
                               float(s["prune_tolerance"]), float(s["noise_floor"]))
            for got in (raw, tidy):
                if got is not None and got.rr <= EXACT_FORM:
                    exact_size = min(exact_size or got.shape.size, got.shape.size)
        return numeric_front(out)


def numeric_front(cands: list[Candidate]) -> list[Candidate]:
    """The candidates no other beats on both the number of nonzero constants and the residual
    (building and scoring SymPy expressions costs more than the fits: only these are built)."""
    ordered = sorted(cands, key=lambda c: (_nonzero(c), max(c.rr, EXACT_FORM), len(c.shape.inner.den), c.rr))
    front: list[Candidate] = []
    for c in ordered:
        if not front or c.rr < FRONT_GAIN * front[-1].rr:
            front.append(c)
    return front


def _nonzero(c: Candidate) -> int:
    return int(np.count_nonzero(c.theta)) + int(bool(c.shape.outer.name)) + int(c.shape.outer.power != 1)


def _time_column(task: SearchTask, variables: list[str], factor_variables: list[str]) -> int | None:
    """The column of the task's time variable (else of the first factor variable among the variables)."""
    named = task.time if task.time in variables else next((v for v in factor_variables if v in variables), None)
    return None if named is None else variables.index(named)


def _constant(e: Any) -> Any:
    return lambda: e


@hookimpl
def desyr_register_searchers() -> list[type[Searcher]]:
    return [FormsSearcher]
