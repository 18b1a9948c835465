"""The exact method ``travelling``: one field in one space variable and time, its value at a fixed time given: that value shifted at a free speed."""
from __future__ import annotations

from typing import TYPE_CHECKING

from desyr_sympy import travelling
from desyr_sympy.method import ExactMethod, Solutions

if TYPE_CHECKING:  # pragma: no cover
    from desyr.plugin import Problem


class Travelling(ExactMethod):
    name = "travelling"
    summary = "one field in one space variable and time, its value at a fixed time given: that value shifted at a free speed"

    def applies(self, problem: Problem) -> str:
        return travelling.applies(problem)

    def solve(self, problem: Problem) -> Solutions:
        return travelling.travel(problem)
