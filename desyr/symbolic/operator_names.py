"""The names of the common vocabulary's operators, without their meaning (no SymPy, no NumPy).

A config's ``[search] binary`` and ``unary`` are checked against these before SymPy is imported, so a
wrong config fails fast; :mod:`desyr.symbolic.operators` gives each name its meaning and refuses to
load if its table and these names part ways.
"""
from __future__ import annotations

#: binary operators, in the order the docs list them
BINARY = ("+", "-", "*", "/", "^")
#: unary operators, in the order the docs list them
UNARY = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "asin", "acos", "atan", "abs", "square",
         "cube", "sech", "csch", "coth")
