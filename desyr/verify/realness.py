"""Whether an expression is real, and defined, at every point of the domain: shown node by node.

A difference of logarithms that SymPy will not combine (``-log(1/2 + exp(2*x)/4 + exp(-2*x)/4)``
against ``log(2/(1 + cosh(2*x)))``) is 0 exactly when its exponential is 1, provided it is real: the real
exponential is one-to-one, the complex one is not (``2*pi*I``).  Realness is shown here, not sampled: each
logarithm's and fractional power's argument is enclosed positive and each denominator away from 0 by
interval arithmetic over the domain's box (:func:`desyr.verify.intervals.sign_on`), and every other
function is one that is real for every real argument.
"""
from __future__ import annotations

import sympy as sp

from desyr.model.problem import Problem
from desyr.verify.intervals import sign_on
from desyr.verify.regions import domain_bounds, domain_region

#: functions real and continuous for every real argument
REAL_FUNCTIONS = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.erf, sp.erfc)


def real_on_domain(problem: Problem, expr: sp.Expr) -> bool:
    """Whether ``expr`` is shown real and defined on the whole domain (False: not shown)."""
    bounds, region = domain_bounds(problem), domain_region(problem)

    def sign(arg: sp.Expr) -> str:
        return sign_on(arg, bounds, strict=True, region=region)

    for node in sp.preorder_traversal(expr):
        if not isinstance(node, sp.Expr) or node.is_Symbol or isinstance(node, (sp.Add, sp.Mul)):
            continue
        if node.is_number:
            if node.is_real is not True:
                return False
        elif isinstance(node, sp.Pow):
            power = node.exp
            if power.is_Integer:
                if power < 0 and sign(node.base) not in ("positive", "negative"):
                    return False
            elif power.free_symbols or sign(node.base) != "positive":
                return False
        elif isinstance(node, sp.log):
            if sign(node.args[0]) != "positive":
                return False
        elif not isinstance(node, REAL_FUNCTIONS):
            return False
    return True
