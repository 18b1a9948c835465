"""The oracle's invariant (issue 35): Proved means residuals below 1e-25 and real values everywhere the
oracle looks (tests/oracle.py), Verified below 100 times the exact tolerance, both relative to the
problem's scale (issue 44: the largest RMS of its data, in the oracle's own reading); the printed formula
agrees with the proved exact form; an inverse problem's values fit its data.
"""
from __future__ import annotations

import random
from typing import Any

import mpmath as mp

from tests.oracle import (  # noqa: F401
    DIGITS,
    Candidate,
    Point,
    Problem,
    _digits,
    _draw,
    _mpmath,
    _on,
    bad,
    interior,
    look,
    probe_points,
    read,
    symbols,
    value,
)
from tests.oracle import set_points as _set_points


@_digits
def agreement(p: Problem, printed: dict[str, str], exact: dict[str, str], seed: int, n: int = 12) -> Any:
    """The worst relative difference of the printed formula and the exact form where the oracle looks
    (interior, near corners, every boundary part, and the probes of both)."""
    rng = random.Random(seed + 7)
    a, b = Candidate(p, printed), Candidate(p, exact)
    pts = interior(p, rng, n) + [pt for pt, _, _ in probe_points(p, a, rng) + probe_points(p, b, rng)]
    for part in p.parts.values():
        pts += [_on(p, part, mp.mpf(rng.random()), rng) for _ in range(4)]
    worst = mp.mpf(0)
    for f in p.fields:
        fa, fb = a.fn(a.fields[f]), b.fn(b.fields[f])
        for pt in pts:
            za, zb = a.at(fa, pt), b.at(fb, pt)
            gap = mp.inf if bad(za) or bad(zb) else abs(za - zb) / (1 + abs(zb))
            worst = max(worst, gap)
    for u in p.unknowns:
        worst = max(worst, abs(mp.mpmathify(complex(a.sub[a.syms[u]].evalf(30)))
                               - mp.mpmathify(complex(b.sub[b.syms[u]].evalf(30)))))
    return worst


@_digits
def misfit(p: Problem, texts: dict[str, str], seed: int, n: int = 40) -> Any:
    """The relative RMS distance of the candidate to the field that generated the observations."""
    if not p.observations:
        return mp.mpf(0)
    rng, cand = random.Random(seed + 11), Candidate(p, texts)
    num = den = mp.mpf(0)
    for f in p.fields:
        if f not in p.observations:
            continue
        fa, fb = cand.fn(cand.fields[f]), cand.fn(read(p, p.observations[f]))
        for _ in range(n):
            pt = _draw(p, rng)
            za, zb = cand.at(fa, pt), cand.at(fb, pt)
            num += abs(za - zb) ** 2 if not (bad(za) or bad(zb)) else mp.inf
            den += abs(zb) ** 2
    return mp.sqrt(num / den)


PROVED_BELOW = mp.mpf("1e-25")


@_digits
def data_scale(p: Problem, seed: int, n: int = 24) -> Any:
    """The problem's scale in the oracle's own reading: the largest RMS of one equation's right-hand side
    on interior points, or of one constraint's value on its sets (1 when the problem holds no data: then
    every multiple of a solution is one). Verified promises each residual within the tolerance of at most
    twice this (docs/verify.md, "The tolerance's scale")."""
    rng, syms = random.Random(seed + 13), symbols(p)
    names = list(p.variables)
    best = mp.mpf(0)

    def rms(text: str, pts: list[Point]) -> Any:
        fn = _mpmath(read(p, text), names, syms)
        values = [value(fn, [pt[v] for v in names]) for pt in pts]
        return mp.sqrt(mp.fsum(abs(z) ** 2 for z in values) / len(values)) if values else mp.mpf(0)

    inner = interior(p, rng, n)
    for _, rhs in p.equations:
        best = max(best, rms(rhs, inner))
    for c in p.constraints:
        if c.periodic or not c.value:
            continue
        pts = [_draw(p, rng)] if c.integral else [pt for pt, _ in _set_points(p, c, rng, n)]
        best = max(best, rms(c.value, pts))
    return best if best > 0 and mp.isfinite(best) else mp.mpf(1)


@_digits
def broken(p: Problem, verdict: str, printed: dict[str, str], exact: dict[str, str] | None, seed: int,
           tolerance: float = 1e-8) -> str:
    """Why a verdict breaks the invariant ("" when it holds).

    Both bounds are relative to the problem's scale (:func:`data_scale`).
    Proved: the proved form's residuals below 1e-25 everywhere the oracle looks, probes included, every
    value real, no kink the equations differentiate across, the printed formula within 1e-9 of it
    everywhere (floats aside), and within the stated noise of the field that made the observations.
    Verified: the printed formula's residuals below 100 times the tolerance on the oracle's sampled points
    (a sampled verdict is held to sampled points, not to the probes) and real values there."""
    scale = data_scale(p, seed)
    if verdict == "proved":
        form = exact or printed
        seen = look(p, form, seed)
        if seen.complex_at:
            return f"Proved, but not real: {seen.complex_at}"
        if seen.rough:
            return f"Proved, but {seen.rough}"
        if not seen.worst() < PROVED_BELOW * scale:
            return f"Proved, but a residual is {mp.nstr(seen.worst(), 3)} ({seen.where})"
        if exact:
            gap = agreement(p, printed, exact, seed)
            if not gap < 1e-9:
                return f"Proved, but the printed formula differs from the exact form by {mp.nstr(gap, 3)}"
        noise = (p.observations or {}).get("noise", 0)
        off = misfit(p, form, seed)
        if not off <= max(noise, PROVED_BELOW):
            return f"Proved, but {mp.nstr(off, 3)} (relative) from the field that made the observations"
    elif verdict == "verified":
        seen = look(p, printed, seed)
        if seen.complex_at:
            return f"Verified, but not real: {seen.complex_at}"
        if not seen.worst(probes=False) < 100 * tolerance * scale:
            return f"Verified, but a residual is {mp.nstr(seen.worst(False), 3)} ({seen.where})"
    return ""
