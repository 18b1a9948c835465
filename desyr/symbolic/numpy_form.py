"""A sum-free sympy expression as a vectorised NumPy function: the names NumPy lacks (``DiracDelta`` as nan,
``Heaviside``, ``factorial``, the reciprocal hyperbolic functions, ``0F1``), the numeric form SymPy's
printer can print (``zoo`` as nan, integers past a double's exact range as floats, each named eigenvalue
as a number or a function of its index), and the function itself. Apart from
:mod:`desyr.symbolic.numeric`, which sends an expression with sums to its series evaluation and this one
here, so that what NumPy is given for a plain expression reads in one place."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp

from desyr.symbolic.eigenvalues import EigenvalueFunction, numpy_function
from desyr.symbolic.nodes import ExpressionError
from desyr.symbolic.special import DERIVATIVE_CLASSES


def _dirac_delta(*args: Any) -> np.ndarray:
    """nan everywhere: a DiracDelta (second derivative of ``abs``, derivative of ``Heaviside``)
    means the expression is not a classical solution.  Reading it as 0 off its support made a
    kinked ``sin(pi*x) + abs(x - 1/2) - 1/2`` pass the residual check of ``u_xx = -pi^2 sin(pi x)``
    (relative L2 0.41); as nan the residuals are non-finite and the candidate fails."""
    return np.full(np.shape(np.asarray(args[0], dtype=float)), np.nan)


def _gamma(x: Any) -> Any:
    from scipy.special import gamma
    return gamma(x)


def _hyper(a: Any, b: Any, z: Any) -> np.ndarray:
    """0F1(; b; z), the form of an even analytic function of a root (:mod:`desyr.verify.removable`); any
    other hypergeometric function is nan (not evaluated)."""
    if len(a) == 0 and len(b) == 1:
        import scipy.special

        return np.asarray(scipy.special.hyp0f1(float(b[0]), z))
    return np.full(np.shape(np.asarray(z, dtype=float)), np.nan)


# numpy has no names for these; Heaviside (a first derivative of a kink) is a function,
# DiracDelta is not (see _dirac_delta)
_EXTRA: dict[str, Callable[..., Any]] = {"DiracDelta": _dirac_delta, "factorial": lambda k: _gamma(k + 1),
          "Heaviside": lambda x, h=0.5: np.heaviside(x, h),
          # as reciprocals of numpy's own: SymPy's rewrite in exp overflows to inf/inf = nan for |x| > 710
          "sech": lambda x: 1 / np.cosh(x), "csch": lambda x: 1 / np.sinh(x), "coth": lambda x: 1 / np.tanh(x),
          "hyper": _hyper}


#: what SymPy's "numpy" namespace adds to the module's own names (``I``; its ``Heaviside`` is :data:`_EXTRA`'s),
#: and the module under its own name, for a printer that writes ``numpy.sin``
_NUMPY = {"I": 1j, "numpy": np}
#: functions NumPy lacks: evaluated through scipy.special
_SPECIAL = (sp.erf, sp.erfc, sp.besselj, sp.bessely, sp.besseli, sp.besselk, sp.airyai, sp.airybi, sp.hyper,
            *DERIVATIVE_CLASSES)


#: sympy's "undefined" values, which numpy printers have no name for (``KeyError:
#: 'ComplexInfinity'``); they evaluate to nan, i.e. count as non-finite.
_UNDEFINED = {sp.zoo: sp.nan}


#: beyond this an integer has no exact double anyway; lambdify would print it as a Python int, which
#: numpy cannot take (``tanh(10**300*x)``: ``OverflowError: int too large to convert to float``)
_EXACT_INT = 2**53


def _numeric_form(expr: Any, named: dict[str, Callable[..., Any]] | None = None) -> sp.Expr:
    expr = sp.sympify(expr) if not isinstance(expr, sp.Basic) else expr
    expr = expr.xreplace(_UNDEFINED) if expr.has(sp.zoo) else expr
    if named is not None and expr.has(EigenvalueFunction):
        expr = _named_values(expr, named)
    huge = {q: sp.Float(q, 17) for q in expr.atoms(sp.Rational)
            if abs(q.p) > _EXACT_INT or q.q > _EXACT_INT}
    return expr.xreplace(huge) if huge else expr


def _named_values(expr: sp.Expr, named: dict[str, Callable[..., Any]]) -> sp.Expr:
    """Each named eigenvalue as a number (a constant index) or as a function of its index alone, whose
    values come from :func:`desyr.symbolic.eigenvalues.numpy_function` (the printer cannot print it)."""
    mapping: dict[sp.Basic, sp.Expr] = {}
    for node in expr.atoms(EigenvalueFunction):
        if node.index.is_number:
            mapping[node] = sp.Float(node.evalf(20), 17)
            continue
        name = f"_desyr_eigenvalue{len(named)}"
        named[name] = numpy_function(node)
        mapping[node] = sp.Function(name)(node.index)
    return expr.xreplace(mapping)


def numpy_lambdify(args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]) -> Callable[..., Any]:
    """One numpy function returning every expression (none holds a sum), sharing subexpressions: what
    :func:`desyr.symbolic.numeric.lambdify` gives an expression without sums (see there)."""
    named: dict[str, Callable[..., Any]] = {}
    exprs = [_numeric_form(e, named) for e in exprs]
    try:
        # erf, the Bessel and Airy functions need SciPy's printer and scipy.special; the rest takes the
        # numpy module itself, not "numpy": SymPy's "numpy" namespace is ``from numpy import *``, which
        # imports every numpy submodule listed in its __all__ (testing, f2py, ma, ...; 0.1 s of CPU on
        # each process's first call); the printer imports the names it prints either way
        special = any(e.has(*_SPECIAL) for e in exprs)
        modules: list[Any] = [{**_EXTRA, **named}, "scipy", "numpy"] if special else [{**_EXTRA, **named}, _NUMPY, np]
        fn: Callable[..., Any] = sp.lambdify(list(args), exprs, modules=modules, cse=True)
        return fn
    except (KeyError, TypeError, ValueError, NameError, SyntaxError, RecursionError) as exc:
        text = ", ".join(str(e) for e in exprs)
        text = text if len(text) <= 80 else text[:77] + "..."
        raise ExpressionError(f"cannot evaluate {text} numerically: {type(exc).__name__}: {exc}") from None
