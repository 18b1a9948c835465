"""Stage-A retention rule and pooling of search fronts (pure numpy/sympy).

Every seeded search returns an empirical Pareto front (``ParetoMember`` list).
Stage A keeps at most :data:`MAX_KEEP` representatives of each front and merges
the kept members of all seeds into one candidate pool.

Retention rule (:func:`retain`), stated exactly
-----------------------------------------------
1. Clean the front with :func:`empirical_front`: drop members whose loss is not
   finite, sort by (complexity, loss) and keep a member only if its loss is
   strictly lower than the loss of every simpler-or-equal member kept before it.
   The result is strictly increasing in complexity and strictly decreasing in
   loss; call it ``m[0..n-1]``.
2. If ``n <= max_keep`` (default 5) every member is kept.
3. Otherwise keep, in this order of priority,

   * ``simplest``: ``m[0]``;
   * ``best_fit``: ``m[n-1]``;
   * ``knee``: for ``i = 1..n-1`` the drop
     ``d_i = log10(max(loss[i-1], floor)) - log10(max(loss[i], floor))``
     (``floor = 1e-30``) measures the loss improvement, in decades, bought by
     moving from ``m[i-1]`` to ``m[i]``.  Members with ``d_i >= knee_decades``
     (default 0.5) are ranked by ``d_i`` descending (ties: lower complexity
     first) and the first ``max_knees`` (default 2) not yet kept are kept;
   * ``coverage``: the ``r = max_keep - kept`` remaining slots go to evenly
     spaced positions ``t_j = j (n-1) / (r+1)``, ``j = 1..r``; for each ``t_j``
     in turn the not-yet-kept index nearest to ``t_j`` is kept (ties: the lower
     index).

   The kept members are returned in increasing complexity.  A member can hold
   several roles (e.g. the best fit may also be a knee); it is then counted once.

Pooling rule (:func:`pool_fronts`)
----------------------------------
Two members are the same candidate when their expression trees are equal after
every sympy ``Float`` is replaced by one placeholder (same topology, any
constants): see :func:`topology_key`; the key is built without re-evaluating
the tree, so sympy cannot merge placeholders.  Of each group the member with
the lowest loss is kept (ties: lower complexity, then the earlier run); the
pooled entry records the seed of that member and every seed that produced the
topology.  Pooled entries are ordered by (complexity, loss).
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import sympy as sp

from desyr.model.candidates import Candidate
from desyr.model.search import ParetoMember, teacher_fit_mse

if TYPE_CHECKING:  # pragma: no cover
    from desyr.model.context import SearchInfo
    from desyr.stages.search import SearchOutcome

MAX_KEEP = 5
MAX_KNEES = 2
KNEE_DECADES = 0.5
LOSS_FLOOR = 1e-30

__all__ = [
    "MAX_KEEP", "MAX_KNEES", "KNEE_DECADES", "LOSS_FLOOR",
    "Retained", "PooledCandidate",
    "empirical_front", "select_representatives", "retain",
    "topology_key", "pool_fronts", "teacher_fit_mse",
]


@dataclass(frozen=True)
class Retained:
    """A kept front member and why it was kept (``simplest``, ``best_fit``, ``knee``, ``coverage``)."""

    member: ParetoMember
    roles: tuple[str, ...]


@dataclass
class PooledCandidate:
    """One distinct topology in the pool."""

    member: ParetoMember          # the best-loss member of this topology
    seed: int                     # search seed that produced ``member``
    seeds: tuple[int, ...]        # every seed whose kept front had this topology (first-seen order)
    key: Hashable                 # topology key, see :func:`topology_key`
    searcher: str = ""            # the searcher that produced ``member``


# --------------------------------------------------------------------- fronts
def _finite(member: ParetoMember) -> bool:
    try:
        return math.isfinite(float(member.loss))
    except (TypeError, ValueError):
        return False


def empirical_front(members: Iterable[ParetoMember]) -> list[ParetoMember]:
    """Non-dominated members by (complexity, loss), both minimised.

    Members with a non-finite loss are dropped.  A member is kept when its loss
    is strictly below that of every member of lower or equal complexity (ties
    at equal complexity and loss keep the first one met).  The result is sorted
    by increasing complexity with strictly decreasing loss.
    """
    ordered = sorted(
        (m for m in members if _finite(m)),
        key=lambda m: (int(m.complexity), float(m.loss)),
    )
    front: list[ParetoMember] = []
    best = math.inf
    for m in ordered:
        if float(m.loss) < best:
            front.append(m)
            best = float(m.loss)
    return front


def _decades(loss: float, floor: float) -> float:
    return math.log10(max(float(loss), floor))


def select_representatives(members: Sequence[ParetoMember], max_keep: int = MAX_KEEP,
                           max_knees: int = MAX_KNEES, knee_decades: float = KNEE_DECADES,
                           floor: float = LOSS_FLOOR) -> list[Retained]:
    """Apply the retention rule of this module's docstring, with the roles of each kept member."""
    if max_keep < 1:
        raise ValueError("max_keep must be at least 1")
    front = empirical_front(members)
    n = len(front)
    if n == 0:
        return []
    roles: dict[int, list[str]] = {}

    def add(i: int, role: str) -> None:
        roles.setdefault(i, []).append(role)

    if n <= max_keep:
        for i in range(n):
            if i == 0:
                add(i, "simplest")
            if i == n - 1:
                add(i, "best_fit")
            if i not in roles:
                add(i, "front")
        return [Retained(front[i], tuple(roles[i])) for i in sorted(roles)]

    add(0, "simplest")
    if max_keep >= 2:
        add(n - 1, "best_fit")

    drops = [(_decades(front[i - 1].loss, floor) - _decades(front[i].loss, floor), i)
             for i in range(1, n)]
    knees = sorted((d, i) for d, i in drops if d >= knee_decades)
    knees.sort(key=lambda di: (-di[0], di[1]))
    taken = 0
    for _d, i in knees:
        if taken >= max_knees or len(roles) >= max_keep:
            break
        if i in roles:
            roles[i].append("knee")       # already kept; record the role, do not count a slot
            continue
        add(i, "knee")
        taken += 1

    r = max_keep - len(roles)
    for j in range(1, r + 1):
        target = j * (n - 1) / (r + 1)
        free = [i for i in range(n) if i not in roles]
        if not free:
            break
        i = min(free, key=lambda k: (abs(k - target), k))
        add(i, "coverage")
    return [Retained(front[i], tuple(roles[i])) for i in sorted(roles)]


def retain(members: Sequence[ParetoMember], max_keep: int = MAX_KEEP, max_knees: int = MAX_KNEES,
           knee_decades: float = KNEE_DECADES) -> list[ParetoMember]:
    """The kept members of one front (at most ``max_keep``), in increasing complexity."""
    return [r.member for r in select_representatives(members, max_keep, max_knees, knee_decades)]


# -------------------------------------------------------------------- pooling
_COMMUTATIVE = (sp.Add, sp.Mul)


def topology_key(expr: sp.Expr) -> Hashable:
    """A hashable structural key of ``expr`` with every Float replaced by ``"C"``.

    Built by walking the tree (no sympy re-evaluation), so ``2.0*x`` and
    ``-3.1*x`` share a key while ``sin(1.0*x)`` and ``sin(x)`` (no constant) do
    not.  Arguments of sums and products are sorted, so argument order does not
    matter.  Rationals/Integers and named constants (pi, E) are structure.
    """
    if isinstance(expr, sp.Float):
        return "C"
    if isinstance(expr, sp.Symbol):
        return ("S", expr.name)
    if isinstance(expr, sp.Rational):
        return ("Q", int(expr.p), int(expr.q))
    if isinstance(expr, sp.NumberSymbol) or not expr.args:
        return ("A", sp.srepr(expr))
    children = [topology_key(a) for a in expr.args]
    if isinstance(expr, _COMMUTATIVE):
        children.sort(key=repr)
    return (type(expr).__name__, tuple(children))


def pool_fronts(runs: Iterable[tuple[int, Sequence[ParetoMember]]], searcher: str = "") -> list[PooledCandidate]:
    """Merge the kept members of one searcher's seeded runs, one entry per distinct topology."""
    pooled: dict[Hashable, PooledCandidate] = {}
    for seed, members in runs:
        for m in members:
            if not _finite(m):
                continue
            key = topology_key(m.expression)
            entry = pooled.get(key)
            if entry is None:
                pooled[key] = PooledCandidate(m, seed, (seed,), key, searcher)
                continue
            if seed not in entry.seeds:
                entry.seeds = entry.seeds + (seed,)
            if (float(m.loss), int(m.complexity)) < (float(entry.member.loss), int(entry.member.complexity)):
                entry.member, entry.seed = m, seed
    return _ordered(pooled.values())


def _ordered(entries: Iterable[PooledCandidate]) -> list[PooledCandidate]:
    return sorted(entries, key=lambda e: (int(e.member.complexity), float(e.member.loss)))


def merge_pools(pools: Sequence[Sequence[PooledCandidate]]) -> list[PooledCandidate]:
    """Several searchers' pools as one: a topology two searchers found is kept once, from the
    searcher whose member fits better (ties: the earlier searcher)."""
    merged: dict[Hashable, PooledCandidate] = {}
    for pool in pools:
        for e in pool:
            seen = merged.get(e.key)
            if seen is None or (float(e.member.loss), int(e.member.complexity)) < (
                    float(seen.member.loss), int(seen.member.complexity)):
                merged[e.key] = e
    return _ordered(merged.values())


def pool_searches(outcome: SearchOutcome, fields: Sequence[str], searchers: Sequence[str]
                  ) -> tuple[dict[str, list[PooledCandidate]], SearchInfo]:
    """Retention of every front, then one pool per field in seed order (the searchers' pools merged);
    the search facts with what was kept and the pool sizes filled in."""
    kept_runs: dict[tuple[str, str], list[tuple[int, list[ParetoMember]]]] = {}
    kept_count: dict[tuple[str, str, int], int] = {}
    for (field, searcher), runs in outcome.fronts.items():
        for seed, front in runs:
            kept = retain(front)
            kept_runs.setdefault((field, searcher), []).append((seed, kept))
            kept_count[(field, searcher, seed)] = len(kept)
    per_field = {f: merge_pools([pool_fronts(kept_runs.get((f, s), []), s) for s in searchers]) for f in fields}
    info = outcome.info
    updated = [replace(r, kept=kept_count.get((r.field, r.info.get("searcher", ""), r.seed), r.kept)) for r in info.runs]
    sizes = {f: len(per_field[f]) for f in fields}
    return per_field, replace(info, runs=updated, pool_size_per_field=sizes, pool_size=sum(sizes.values()))


def with_carried(pooled: dict[str, list[PooledCandidate]], info: SearchInfo,
                 carried: Mapping[str, Sequence[PooledCandidate]]) -> tuple[dict[str, list[PooledCandidate]], SearchInfo]:
    """A round's pools with the earlier rounds' (``carried``, the anytime order's rounds of one attempt):
    a topology this round found keeps this round's member (its loss is on this round's teacher values);
    one only an earlier round found stays in the pool, so a later round whose searches were stopped
    never loses it. The pool sizes in ``info`` count both."""
    if not any(carried.values()):
        return pooled, info
    merged = {f: _ordered([*entries, *(e for e in carried.get(f, ()) if e.key not in {n.key for n in entries})])
              for f, entries in pooled.items()}
    sizes = {f: len(merged[f]) for f in merged}
    return merged, replace(info, pool_size_per_field=sizes, pool_size=sum(sizes.values()))


def pooled_candidates(pooled: list[PooledCandidate], field: str) -> list[Candidate]:
    """The single-field pool as candidates, in pool order."""
    return [Candidate(f"c{i}", {field: e.member.expression}, searcher=e.searcher,
                      search_seed=e.seed, search_complexity=int(e.member.complexity),
                      search_loss=float(e.member.loss), extra={"seeds": list(e.seeds)})
            for i, e in enumerate(pooled)]
