"""Proved, for a series: the four parts of docs/verify.md ("What Proved means for a series").

From the config and the printed series alone (no plugin, nothing the run computed):

1. **terms**: each term meets the equation and the homogeneous conditions identically, for a symbolic
   integer index in its range (:mod:`desyr.verify.series_modes`: the conditions at both ends of each
   expansion direction; :mod:`desyr.verify.series_expansion`: the equation and the other conditions);
2. **coefficients**: on every target where the terms are not zero, the coefficients are the expansion
   coefficients of what the finite part leaves of the data, an identity in the index through exact
   integrals, with every special index on its own and quadratures at drawn indices
   (:mod:`desyr.verify.series_expansion`);
3. **family**: the eigenfunctions are the complete orthogonal family of the Sturm-Liouville problem the
   config implies, every eigenvalue once (:mod:`desyr.verify.series_sturm`, :mod:`desyr.verify.series_coverage`);
4. **differentiation**: the series converges absolutely and uniformly on every compact part of the open
   domain, and the derivatives the equation and the conditions take are summed term by term where their
   series converge uniformly; where they do not, the sense in which the equation or the condition holds
   is said (:mod:`desyr.verify.series_decay`).

A series failing any part is not proved (Verified at best); the whole proof is bounded in time.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy as sp

from desyr.model.problem import Problem
from desyr.symbolic.eigenvalues import unit_robin
from desyr.symbolic.time_limit import OutOfTime, time_limit
from desyr.verify import witness
from desyr.verify.series_decay import Diverges, Senses, senses
from desyr.verify.series_disk import THEOREM, round_domain
from desyr.verify.series_disk import meet as disk_meet
from desyr.verify.series_disk import pieces as disk_pieces
from desyr.verify.series_expansion import Check, Expansion, Unproved, check_coefficients, image_coefficient
from desyr.verify.series_form import Answer, NotASeries, Series, split_answer
from desyr.verify.series_identity import Range, Undecided, integer_zeros, zero_for_all
from desyr.verify.series_integrals import integral_steps
from desyr.verify.series_modes import NotAnExpansion, Piece, pieces
from desyr.verify.series_multiplier import through_denominator
from desyr.verify.series_roots import named
from desyr.verify.series_sturm import Family, NoFamily, family
from desyr.verify.series_targets import NotLinear, Target, targets
from desyr.verify.unforeseen import proof_key
from desyr.verify.unforeseen import rng as witness_rng

#: the bound on a whole series proof (it leaves the series unproved, never hangs the verifier); in the
#: verifier the proof's share of its time bound (desyr.verify.budget) holds it first
SECONDS = 40.0


@dataclass(frozen=True)
class SeriesProof:
    proved: bool
    reason: str                                             # one line
    steps: tuple[tuple[str, bool], ...] = field(default_factory=tuple)
    parts: Mapping[str, str] = field(default_factory=dict)   # part -> what was shown


def prove_series(problem: Problem, exprs: Mapping[str, sp.Expr]) -> SeriesProof:
    """The four parts for the series in ``exprs`` (one field), each a reason when it fails."""
    try:
        with time_limit(SECONDS):
            return _prove(problem, exprs)
    except OutOfTime:
        return SeriesProof(False, f"the series is not proved within the time bound ({SECONDS:g} s)")
    except (NotASeries, NotLinear, NoFamily, NotAnExpansion, Unproved, Diverges) as exc:
        return SeriesProof(False, f"the series is not proved: {exc}")
    except Exception as exc:  # noqa: BLE001 - SymPy can fail on unusual trees: not proved, never a crash
        return SeriesProof(False, f"the series is not proved: the proof failed ({type(exc).__name__})")


def _prove(problem: Problem, exprs: Mapping[str, sp.Expr]) -> SeriesProof:
    if len(problem.fields) != 1:
        raise NotLinear("a series is proved for one field")
    name = problem.fields[0]
    names = {*problem.variable_names, *problem.fields, *problem.parameters, *problem.unknown_names}
    # Robin roots in one writing per family (robinroot(n, 0, 1/4, -1/4) is robinroot(n, 0, 1, -1)): the
    # identities then hold one named function
    answer = split_answer(unit_robin(exprs[name]), names)
    if not answer.series:
        raise NotASeries("the answer has no infinite sum")
    key = proof_key(problem, exprs)
    ranges = _ranges(problem)
    all_targets = targets(problem)
    lowers = {i.symbol: i.lower for s in answer.series for i in s.indices}
    steps: list[tuple[str, bool]] = []
    if problem.geometry is not None:
        found, classes, active, used = _round(problem, name, answer, all_targets, ranges, key)
    else:
        found, classes, active, used = _box(problem, name, answer, all_targets, ranges, lowers, key)
    steps.append(("terms meet the homogeneous conditions", True))
    steps += [(t.name, True) for t in all_targets]
    decay = senses(problem, name, found, all_targets, ranges, active)
    steps += integral_steps(problem, name, answer, ranges, decay.closed)
    parts = {
        "terms": "each term meets the equation and the homogeneous conditions for every index",
        "coefficients": f"the coefficients are the data's expansion coefficients ({classes} index classes, "
                        "special indices and drawn quadratures included)",
        "family": used,
        "differentiation": decay.text,
    }
    return SeriesProof(True, _reason(decay, len(steps)), tuple(steps), parts)


Outcome = tuple[list[Piece], int, set[str], str]


def _box(problem: Problem, name: str, answer: Answer, all_targets: list[Target], ranges: Mapping[sp.Symbol, Range],
         lowers: Mapping[sp.Symbol, int], key: bytes) -> Outcome:
    """Intervals, rectangles and boxes: a family along each direction with conditions at both ends."""
    families, ends = _directions(problem, all_targets)

    def meets(term: sp.Expr, v: sp.Symbol) -> bool:
        return all(_vanishes(problem, name, t, term, ranges, lowers, key) for t in ends[v])

    found: list[Piece] = []
    for s in answer.series:
        _defined(s)
        found += pieces(s, families, ranges, meets, key)
    expansions = _expansions(found)
    classes, active = 0, set[str]()
    for target in all_targets:
        count = _meet(problem, name, target, answer.finite, expansions, ranges, key)
        if count:
            classes, active = classes + count, active | {target.name}
    used = {f.variable: f for e in expansions for f in e.families}
    return found, classes, active, "; ".join(f"{f.describe()}, {f.conditions}: {f.theorem}" for f in used.values())


def _round(problem: Problem, name: str, answer: Answer, all_targets: list[Target], ranges: Mapping[sp.Symbol, Range],
           key: bytes) -> Outcome:
    """A disk: each angular mode's Fourier-Bessel (or Dini) family."""
    rnd = round_domain(problem, all_targets)
    found: list[Piece] = []
    for s in answer.series:
        _defined(s)
        found += disk_pieces(s, rnd, key)
    classes, active = 0, set[str]()
    for target in all_targets:
        count = disk_meet(problem, name, target, answer.finite, found, rnd, ranges, key)
        if count < 0:
            _finite_meets(problem, name, target, answer.finite, key)
        else:
            classes, active = classes + count, active | {target.name}
    modes = sorted({p.angular for p in found if p.angular})
    said = ", ".join(f"{kind}({m}*theta)" for m, kind in modes)
    return found, classes, active, (f"the disk of radius {rnd.radius}, rim {rnd.rim_kind}, "
                                    f"angular modes {said}: {THEOREM}")


def _finite_meets(problem: Problem, name: str, target: Target, finite: sp.Expr, key: bytes) -> None:
    from desyr.verify.proof import reduces
    rho = target.value - target.image(problem, name, finite)
    rng = witness_rng(key, f"series {target.name}")
    points = witness.interior(problem, rng) if target.face is None else witness.on_set(problem, target.face, rng)
    if named(rho):          # a finite part with a named root (a growing mode): its equation put in
        if not zero_for_all(rho, _free(target, _ranges(problem)), {}, key, f"finite {target.name}"):
            raise Unproved(f"{target.name}: the finite part does not meet it, and no term of the series is nonzero "
                           "there")
        return
    if not reduces(problem, rho, points):
        raise Unproved(f"{target.name}: the finite part does not meet it, and no term of the series is nonzero there")


def _reason(decay: Senses, checked: int) -> str:
    return (f"the series is proved ({checked} checked): its terms, coefficients and eigenfunction family; "
            f"{decay.text}")


def _ranges(problem: Problem) -> dict[sp.Symbol, Range]:
    from desyr.verify.proof import exact_number
    out = {}
    for v in problem.variables:
        lo, hi = exact_number(v.lo, problem.numbers), exact_number(v.hi, problem.numbers)
        if lo is None or hi is None:
            raise NotLinear(f"the range of {v.name} is not at exact values")
        out[problem.vocabulary.var_symbols[v.name]] = (lo, hi)
    return out


def _directions(problem: Problem, all_targets: list[Target]) -> tuple[dict[sp.Symbol, Family], dict[sp.Symbol, list[Target]]]:
    """The spatial variables with a Sturm-Liouville family (conditions at both ends), and those conditions."""
    families: dict[sp.Symbol, Family] = {}
    ends: dict[sp.Symbol, list[Target]] = {}
    why = []
    for name in problem.variable_names:
        if name == problem.time:
            continue
        v = problem.vocabulary.var_symbols[name]
        mine = [t for t in all_targets if t.face is not None and set(t.fixed) == {v}]
        try:
            families[v] = family(problem, name, mine)
            ends[v] = mine
        except NoFamily as exc:
            why.append(f"{name}: {exc}")
    if not families:
        raise NoFamily("no direction has a Sturm-Liouville family (" + "; ".join(why) + ")")
    return families, ends


def _free(target: Target, ranges: Mapping[sp.Symbol, Range]) -> dict[sp.Symbol, Range]:
    return {s: r for s, r in ranges.items() if s not in target.fixed}


def _vanishes(problem: Problem, name: str, target: Target, term: sp.Expr, ranges: Mapping[sp.Symbol, Range],
              lowers: Mapping[sp.Symbol, int], key: bytes) -> bool:
    image = target.image(problem, name, term)
    mine = {s: lowers[s] for s in term.free_symbols if s in lowers}
    return zero_for_all(image, _free(target, ranges), mine, key, f"homogeneous {target.name}")


def _defined(series: Series) -> None:
    """Every term is defined for every index in range: no denominator of the term vanishes at an integer
    index from its lower limit (``1/(n - 3)``)."""
    denominator = sp.denom(sp.together(series.term))
    for index in series.indices:
        others = [i.symbol for i in series.indices if i is not index]
        try:
            roots = sorted(r for r in integer_zeros(denominator.xreplace({s: 1 for s in others}), index.symbol)
                           if r >= index.lower)
        except Undecided as exc:
            raise NotAnExpansion(f"a term of the series is not shown defined for every index: {exc}") from None
        if roots:
            raise NotAnExpansion(f"a term of the series is undefined at {index.symbol} = {roots[0]}")


def _expansions(found: list[Piece]) -> list[Expansion]:
    groups: dict[tuple[sp.Symbol, ...], list[Piece]] = {}
    for p in found:
        groups.setdefault(p.variables, []).append(p)
    return [Expansion(tuple(m.family for m in ps[0].modes), tuple(ps)) for ps in groups.values()]


def _meet(problem: Problem, name: str, target: Target, finite: sp.Expr, expansions: list[Expansion],
          ranges: Mapping[sp.Symbol, Range], key: bytes) -> int:
    """The target holds: the data the finite part leaves are 0, or one expansion's coefficients are
    theirs. Returns how many index classes were checked."""
    rho = target.value - target.image(problem, name, finite)
    free = _free(target, ranges)
    active = []
    for e in expansions:
        lowers = {i.symbol: i.lower for p in e.pieces for i in p.indices}
        if any(v in target.fixed for v in e.variables):
            for p in e.pieces:
                image = target.image(problem, name, p.term)
                if not zero_for_all(image, free, lowers, key, f"vanish {target.name}"):
                    raise Unproved(f"{target.name}: the terms do not vanish there, and their eigenfunctions are "
                                   "not free on it")
            continue
        rs = tuple(image_coefficient(problem, name, target, p, key, free) for p in e.pieces)
        if all(zero_for_all(r, free, lowers, key, f"zero {target.name}") for r in rs):
            continue
        rest = {s: r for s, r in free.items() if s not in e.variables}
        active.append(Check(target, e, rho, rs, rest))
    if len(active) > 1:
        raise Unproved(f"{target.name}: two expansions are nonzero there")
    if active:
        done = through_denominator(active[0], key, problem.numbers)     # None: the route does not apply
        return check_coefficients(active[0], key, problem.numbers) if done is None else done
    _finite_meets(problem, name, target, finite, key)
    return 0
