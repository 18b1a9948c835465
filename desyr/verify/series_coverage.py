"""Which canonical indices a series' pieces cover, once each, and which they leave out.

Along one direction a branch's eigenfunctions are numbered ``J >= first`` (or only ``J = first``).
The pieces cover progressions ``{p*k + q : k >= start}``.  Two progressions that share a residue
class modulo the least common multiple of their steps share infinitely many indices: an eigenvalue
counted twice, which is refused.  What no piece covers (residue classes, and the values below a
progression's first) is returned as progressions and single indices: there the data's expansion
coefficients must all be 0 (:mod:`desyr.verify.series_expansion`), which is what makes a missing
zero mode or a series over odd indices where even ones are needed fail.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence

from desyr.verify.series_modes import NotAnExpansion, Progression, lcm
from desyr.verify.series_sturm import Branch


def everything(branch: Branch) -> Progression:
    return Progression(0, branch.first, 0) if branch.single else Progression(1, 0, branch.first)


def uncovered(branch: Branch, covered: Sequence[Progression]) -> list[Progression]:
    """The indices of ``branch`` outside ``covered`` (which must lie inside the branch, disjoint)."""
    for p in covered:
        if (p.step == 0 and not everything(branch).contains(p.offset)) or (p.step and p.first() < branch.first):
            raise NotAnExpansion(f"a sum runs over index {p.first()} of the {branch.label} eigenfunctions, "
                                 f"which start at {branch.first}")
        if branch.single and p.step:
            raise NotAnExpansion(f"a sum repeats the {branch.label} eigenfunction")
    points = sorted(p.offset for p in covered if p.step == 0)
    if len(set(points)) != len(points):
        raise NotAnExpansion("an eigenfunction appears twice")
    if branch.single:
        return [] if points else [everything(branch)]
    runs = [p for p in covered if p.step]
    modulus = lcm([p.step for p in runs]) if runs else 1
    out: list[Progression] = []
    for residue in range(modulus):
        owners = [p for p in runs if (residue - p.offset) % p.step == 0]
        if len(owners) > 1:
            raise NotAnExpansion(f"two sums cover the same eigenfunctions (indices = {residue} mod {modulus})")
        if not owners:
            start = max(0, -((residue - branch.first) // modulus))
            out.append(Progression(modulus, residue, start))
            continue
        owner = owners[0]
        value = owner.first() - owner.step
        while value >= branch.first:             # the class's values below the sum's first index
            if value not in points:
                out.append(Progression(0, value, 0))
            value -= owner.step
    for value in points:
        if any(p.contains(value) for p in runs):
            raise NotAnExpansion(f"the eigenfunction of index {value} appears twice")
    return [part for p in out for part in _without(p, points)]


def _without(p: Progression, points: Sequence[int]) -> list[Progression]:
    """``p`` less the single indices ``points``: its members up to the last of them one by one, then the rest."""
    inside = [v for v in points if p.contains(v)]
    if not inside:
        return [p]
    if p.step == 0:
        return []
    last = max(inside)
    singles = [Progression(0, v, 0) for v in range(p.first(), last, p.step) if v not in inside]
    return singles + [Progression(p.step, p.offset, (last - p.offset) // p.step + 1)]


#: the most index cells a multiple series' coverage is split into (each is an identity to check)
MAX_CELLS = 64


def cells(branches: Sequence[Branch], boxes: Sequence[Sequence[Progression]]) -> list[tuple[list[Progression], int | None]]:
    """A multiple series whose pieces cover several products of index ranges (a Neumann rectangle's zero
    modes: ``n >= 1`` by ``m = 0``, ``n = 0`` by ``m >= 1``, ``n, m >= 1``): every index tuple of the branches,
    split into cells that each lie inside one box or outside all of them, with that box's position (None:
    uncovered, the data's coefficient must be 0 there).  Along each direction the cells are the single
    indices below a threshold past every box's first index and the residue classes, modulo the steps' least
    common multiple, above it: each lies inside or outside every progression.  Two boxes that share a cell
    count an eigenfunction twice, which is refused."""
    axes = [_atoms(b, [box[i] for box in boxes]) for i, b in enumerate(branches)]
    total = 1
    for atoms in axes:
        total *= len(atoms)
    if total > MAX_CELLS:
        raise NotAnExpansion(f"the multiple series' index ranges split into {total} cells (at most {MAX_CELLS})")
    out: list[tuple[list[Progression], int | None]] = []
    for cell in itertools.product(*axes):
        owners = [g for g, box in enumerate(boxes) if all(_inside(a, p) for a, p in zip(cell, box))]
        if len(owners) > 1:
            raise NotAnExpansion("two sums cover the same eigenfunctions of a multiple series")
        out.append((list(cell), owners[0] if owners else None))
    return out


def _atoms(branch: Branch, progressions: Sequence[Progression]) -> list[Progression]:
    whole = everything(branch)
    for p in progressions:
        if not (whole.contains(p.first()) if p.step == 0 else whole.step and p.first() >= whole.first()):
            raise NotAnExpansion(f"a sum runs over index {p.first()} of the {branch.label} eigenfunctions, "
                                 f"which start at {branch.first}")
    if whole.step == 0:
        return [whole]
    modulus = lcm([p.step for p in progressions if p.step])
    threshold = max([whole.first()] + [p.first() + (1 if p.step == 0 else 0) for p in progressions])
    singles = [Progression(0, v, 0) for v in range(whole.first(), threshold)]
    classes = [Progression(modulus, r, -((r - threshold) // modulus)) for r in range(modulus)]
    return singles + classes


def _inside(atom: Progression, p: Progression) -> bool:
    """Whether ``atom`` (a single index, or a residue class past every first index) lies inside ``p``."""
    if atom.step == 0:
        return p.contains(atom.offset)
    return p.step != 0 and atom.step % p.step == 0 and p.contains(atom.first())
