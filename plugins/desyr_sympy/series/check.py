"""The numeric check of every closed-form coefficient: the exact formula at a few indices against a
quadrature of the same orthogonality integral (a SymPy simplification that lost a case would show here,
before the candidate goes out)."""
from __future__ import annotations

import itertools
from collections.abc import Sequence

import mpmath
import numpy as np
import sympy as sp

from desyr_sympy.series.eigen import Family
from desyr_sympy.series.law import kinks
from desyr_sympy.series.layout import Declined
from desyr_sympy.series.names import numeric_roots
from desyr_sympy.series.project import Expansion

#: relative agreement asked of a coefficient (to the data's size), and the indices sampled per family
TOLERANCE = 1e-8
_OFFSETS = (0, 1, 4)
#: Gauss-Legendre nodes per variable for the integrals in two or three variables
_NODES = 48


def verify_expansion(data: sp.Expr, expansion: Expansion, at: dict[sp.Symbol, sp.Expr] | None = None) -> None:
    """Raise :class:`Declined` unless ``expansion`` gives the data's coefficients at the sampled indices
    (other symbols of the data, such as the time of a source, set by ``at``)."""
    data = data.xreplace(at or {})
    if data == 0:
        return
    families = expansion.families
    for indices in _samples(expansion):
        exact = complex(sp.N(numeric_roots(expansion.at(indices).xreplace(at or {})), 20))
        numeric, size = _quadrature(data, families, indices)
        if abs(exact - numeric) > TOLERANCE * max(size, abs(numeric), 1e-12):
            raise Declined(f"a closed-form coefficient disagrees with its quadrature at index {indices} "
                           f"({exact:.12g} against {numeric:.12g})")


def _samples(expansion: Expansion) -> list[tuple[int, ...]]:
    choices = []
    for fam, start in zip(expansion.families, expansion.starts):
        if fam.index is None:
            choices.append([0])
            continue
        fixed = {k for key in expansion.parts if (k := key[len(choices)]) is not None}
        choices.append(sorted({fam.lower, *(start + o for o in _OFFSETS), *fixed}))
    combos = list(itertools.product(*choices))
    if len(combos) > 6:      # in several variables, the corners of the sampled index box and its middle
        combos = combos[:: max(1, len(combos) // 6)][:6]
    return combos


def _quadrature(data: sp.Expr, families: Sequence[Family], indices: Sequence[int]) -> tuple[complex, float]:
    """The projection integral at ``indices`` by quadrature, and the data's size (for the tolerance)."""
    integrand, norm = data, sp.Integer(1)
    for fam, k in zip(families, indices):
        _, function, fam_norm = fam.at(k)
        integrand *= function * fam.weight
        norm *= fam_norm
    integrand = numeric_roots(integrand).evalf(30)
    norm_value = complex(sp.N(numeric_roots(norm), 20))
    variables = [f.variable for f in families]
    bounds = [(float(f.lo), float(f.hi)) for f in families]
    if integrand.free_symbols - set(variables):
        raise Declined(f"a coefficient with symbols {integrand.free_symbols - set(variables)} left")
    if len(families) == 1:
        f = sp.lambdify(variables, integrand, modules="mpmath")
        g = sp.lambdify(variables, data, modules="mpmath")
        points = [float(k) for k in kinks(data, variables[0], *bounds[0])]
        with mpmath.workdps(20):
            value = complex(mpmath.quad(f, points))
            size = max(abs(complex(g(mpmath.mpf(p)))) for p in np.linspace(*bounds[0], 7))
        return value / norm_value, size
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)
    grids = [lo + (hi - lo) * (nodes + 1) / 2 for lo, hi in bounds]
    scales = [(hi - lo) / 2 * weights for lo, hi in bounds]
    mesh = np.meshgrid(*grids, indexing="ij")
    wmesh = np.prod(np.meshgrid(*scales, indexing="ij"), axis=0)
    values = np.asarray(sp.lambdify(variables, integrand, modules=["scipy", "numpy"])(*mesh), dtype=complex)
    sizes = np.asarray(sp.lambdify(variables, data, modules=["scipy", "numpy"])(*mesh), dtype=complex)
    value = complex(np.sum(np.broadcast_to(values, wmesh.shape) * wmesh))
    return value / norm_value, float(np.max(np.abs(np.broadcast_to(sizes, wmesh.shape))))
