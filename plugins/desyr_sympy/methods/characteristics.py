"""The exact method ``characteristics``: first-order linear PDEs in two variables: `pdsolve`'s general solution fixed by the data on a line."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import first_order
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Characteristics(ExactMethod):
    name = "characteristics"
    summary = "first-order linear PDEs in two variables: `pdsolve`'s general solution fixed by the data on a line"

    def applies(self, problem: Problem) -> str:
        return first_order.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return first_order.characteristics(problem)
