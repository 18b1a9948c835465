"""A series in the verifier's numbers: what is read of it before its truncated sums and its proof
(``docs/verify.md``, "What Proved means for a series"; :mod:`desyr.verify.series_verdict`).

- :func:`is_series`: whether an expression set holds a sum;
- :func:`written_out`: each expression with its sums written out as their first terms, from which its
  regularity is read (:func:`desyr.symbolic.series.head`): a term singular in the variables makes the
  series so; the index is not a variable of the domain.
"""
from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from desyr.symbolic.series import has_series, head


def is_series(exprs: Mapping[str, sp.Expr]) -> bool:
    return any(has_series(e) for e in exprs.values())


def written_out(exprs: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """Each expression with its sums written out as their first terms (for the regularity check)."""
    return {f: head(e) for f, e in exprs.items()}
