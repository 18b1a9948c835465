"""Where the proof's numeric cross-checks look: points no one can know before writing the candidate.

The witness of a residual (:mod:`desyr.verify.witness`) and the quadrature of an integral at a few
times (:mod:`desyr.verify.integrals`) look at finitely many points.  Fixed points could be aimed at: a
red team made a term ``sin(pi*(a*t - b)/c)`` vanish exactly at the two fixed times, and a wrong integral
was Proved.  So the points are drawn from a SHA-256 hash of the config text and of the exact form's
text: changing the formula to aim at them changes them.  Each point is an exact rational strictly
inside its range whose denominator is drawn as well (an odd 64-bit number), so not even a term that
vanishes at every binary fraction (``sin(2**200*pi*t)``) vanishes there.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
import sympy as sp

from desyr.model.problem import Problem

#: a point's fraction of its range is m/q, both drawn from the hash (q odd, of BITS bits), kept off the ends
BITS = 64


def proof_key(problem: Problem, exprs: Mapping[str, sp.Expr], seed: int | None = None) -> bytes:
    """The hash of the config text (or, without one, the problem as SymPy prints it), the exact form, and the
    verification's seed (fresh entropy unless a replay names it: the verdict records it)."""
    h = hashlib.sha256()
    if seed is not None:
        h.update(b"seed=" + str(int(seed)).encode() + b"\0")
    h.update((problem.config_text or repr((problem.name, [str(e.lhs) for e in problem.equations]))).encode())
    for name in sorted(exprs):
        h.update(b"\0" + name.encode() + b"=" + sp.srepr(exprs[name]).encode())
    return h.digest()


def fractions(key: bytes, label: str, n: int) -> list[sp.Rational]:
    """``n`` exact fractions in (1/64, 63/64), drawn from ``key`` and ``label`` (one draw per use). Each is
    ``m/q`` with an odd ``q`` of :data:`BITS` bits drawn too: a binary fraction (``k/2**BITS``) would be
    a zero of ``sin(2**200*pi*t)``, which vanishes at every binary fraction, and any fixed ``q`` of
    ``sin(q*pi*t)``."""
    out = []
    for k in range(n):
        digest = hashlib.sha256(key + label.encode() + b"\0" + str(k).encode()).digest()
        q = int.from_bytes(digest[8:16], "big") | (1 << (BITS - 1)) | 1
        m = int.from_bytes(digest[:8], "big") % q
        out.append(sp.Rational(1, 64) + sp.Rational(62, 64) * sp.Rational(m, q))
    return out


def rng(key: bytes, label: str) -> np.random.Generator:
    """A generator seeded from ``key`` and ``label``: the witness points of one proof."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(key + label.encode()).digest()[:16], "big"))
