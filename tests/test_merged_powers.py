"""A power of a power of a quantity positive on the domain is one power in the proof: ``1/sqrt(1/A)`` is
``sqrt(A)`` there, so a correct formula is Proved however a run printed it (outside user, issue 47)."""
import sympy as sp

from desyr.testing import make_problem
from desyr.verify.proof import prove
from desyr.verify.regularity import merge_powers, resolve_abs

EIKONAL = '''[domain]
x = [0, 1]
y = [0, 1]
[[equations]]
lhs = "u_x**2 + u_y**2"
rhs = 1
[[constraints]]
on = "boundary"
value = "sqrt((x + 1)**2 + (y + 1)**2)"
'''
x, y = sp.symbols("x y")


def test_a_reciprocal_root_of_a_reciprocal_is_proved_as_the_root():
    problem = make_problem(EIKONAL)
    printed = problem.parse("1/sqrt(1/(2 + x**2 + y**2 + 2*x + 2*y))")
    assert not prove(problem, {"u": printed}).proved             # as SymPy keeps it, not reduced on x = 0
    assert prove(problem, resolve_abs(problem, {"u": printed})).proved
    assert prove(problem, resolve_abs(problem, {"u": problem.parse("(2 + x**2 + y**2 + 2*x + 2*y)**(1/2)")})).proved


def test_powers_merge_only_where_the_base_is_shown_positive():
    box = {x: (sp.Integer(0), sp.Integer(1))}
    assert merge_powers(1 / sp.sqrt(1 / (1 + x)), box) == sp.sqrt(1 + x)
    assert merge_powers(((2 + x) ** 3) ** sp.Rational(1, 3), box) == 2 + x
    # x - 1/2 changes sign on [0, 1] (and x is 0 at one end): the branches differ, both stay
    for kept in (1 / sp.sqrt(1 / (x - sp.Rational(1, 2))), (x ** 2) ** sp.Rational(1, 2)):
        assert merge_powers(kept, box) == kept
