"""The plain SymPy script that bench/logistic_latency.py times desyr against.

What a SymPy user would write for u' = u (1 - u), u(0) = 1/2: solve with the initial condition,
check that the ODE residual simplifies to 0 (and the initial condition holds), print the solution.
"""
import sympy as sp


def main() -> None:
    t = sp.symbols("t")
    u = sp.Function("u")
    ode = sp.Eq(u(t).diff(t), u(t) * (1 - u(t)))
    solution = sp.dsolve(ode, u(t), ics={u(0): sp.Rational(1, 2)})
    residual = sp.simplify(solution.rhs.diff(t) - solution.rhs * (1 - solution.rhs))
    assert residual == 0, residual
    assert sp.simplify(solution.rhs.subs(t, 0) - sp.Rational(1, 2)) == 0
    assert sp.checkodesol(ode, solution)[0]
    print(solution)


if __name__ == "__main__":
    main()
