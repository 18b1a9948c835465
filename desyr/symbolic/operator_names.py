"""The names of the common vocabulary's operators, without their meaning (no SymPy, no NumPy).

A config's ``[search] binary`` and ``unary`` are checked against these before SymPy is imported, so a
wrong config fails fast; :mod:`desyr.symbolic.operators` gives each name its meaning and refuses to
load if its table and these names part ways.  The expression language's function and constant names
are here too, for the config's expression precheck (:mod:`desyr.config.early`); a test holds them
equal to :mod:`desyr.symbolic.expressions`' tables.
"""
from __future__ import annotations

import keyword

#: binary operators, in the order the docs list them
BINARY = ("+", "-", "*", "/", "^")
#: unary operators, in the order the docs list them
UNARY = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "asin", "acos", "atan", "abs", "square",
         "cube", "sech", "csch", "coth")

#: the expression language's one-argument functions (a config's equations, sources, values)
FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "asin", "acos", "atan", "abs", "Abs",
             "erf", "erfc", "airyai", "airybi", "sech", "csch", "coth")
#: its two-argument functions: ``besselj(order, argument)`` and kin
TWO_ARGUMENTS = ("besselj", "bessely", "besseli", "besselk")
#: its named constants
CONSTANTS = ("pi", "E")
#: the series language's constructs and their argument counts: ``Sum(term, (n, 1, oo))``, ``factorial``
#: of an integer, and the named eigenvalue functions (desyr.symbolic.eigenvalues)
SERIES = {"Sum": 2, "factorial": 1, "besseljzero": 2, "besseljpzero": 2, "robinroot": 4, "dinizero": 3,
          "robinsinhroot": 4}
#: names an expression vocabulary may not define: they already mean something in expressions, or in the
#: numpy code that expressions are compiled to (a test holds the tables equal to the parser's)
RESERVED = frozenset(FUNCTIONS) | frozenset(TWO_ARGUMENTS) | frozenset(CONSTANTS) | frozenset(SERIES) | frozenset(
    keyword.kwlist) | frozenset({"I", "oo", "zoo", "nan", "inf", "numpy", "np", "math", "mpmath", "sympy", "builtins",
                                "DiracDelta", "Heaviside", "square", "cube", "neg", "inv", "pow"})
