"""Plain SymPy on a DeSyR problem, as a user would call it: ``dsolve`` for an ODE or an ODE system (with
``ics`` where it accepts them), ``pdsolve`` for a PDE; then a check of what came back.

The config's equations are rewritten with ``Function('u')(x, ...)`` and ``Derivative`` (decimals as
rationals, as SymPy's docs advise).  Conditions that are a field or one of its derivatives at a point go
into ``ics``; when ``dsolve`` refuses them, it is called without them and the free constants C1, C2, ...
are solved for from every condition, as a user would by hand.  ``pdsolve`` takes no conditions: a
general solution with an arbitrary function left in it is not an answer to the problem.

The verdict (:func:`check`): "exact" when a returned solution satisfies every equation and condition
(``simplify`` to 0, or within 1e-9 on 20 sample points where simplify gives up) or equals the reference;
"wrong" otherwise; "fails: <reason>" when SymPy raised or returned nothing usable.  Used by
``bench/peers.py``, which runs :func:`attempt` in a child process under a time cap.
"""
from __future__ import annotations

import time
import traceback

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef


def _rational(expr: sp.Expr) -> sp.Expr:
    return sp.nsimplify(expr, rational=True) if expr.has(sp.Float) else expr


def _point(value: float) -> sp.Expr:
    return sp.nsimplify(value, [sp.E, sp.pi])


def translate(problem):
    """(variables, {field: f(vars)}, [Eq], [(Constraint, sympy residual)]) in SymPy's own terms."""
    xs = [problem.vocabulary.var_symbols[v] for v in problem.variable_names]
    funcs = {f: sp.Function(f)(*xs) for f in problem.fields}

    def sym(expr: sp.Expr) -> sp.Expr:
        subs = {}
        for s in expr.free_symbols:
            jet = problem.vocabulary.jet_of(s)
            if jet is not None:
                base = funcs[jet.field]
                subs[s] = sp.Derivative(base, *[problem.vocabulary.var_symbols[v] for v in jet.wrt]) if jet.wrt else base
        return _rational(expr.xreplace(subs))

    eqs = [sp.Eq(sym(e.lhs), _rational(e.forcing)) for e in problem.equations]
    cons = [(c, sym(c.residual)) for c in problem.constraints]
    return xs, funcs, eqs, cons


def _ics(problem, xs, funcs, cons) -> dict:
    """Conditions of the form (field or derivative) = value at a point, as dsolve's ``ics``."""
    ics = {}
    for con, _ in cons:
        jets = [problem.vocabulary.jet_of(s) for s in con.operator.free_symbols]
        if len(con.faces) != 1 or len(jets) != 1 or jets[0] is None or con.operator != problem.jet_symbol(jets[0]):
            continue
        x0 = _point(dict(con.faces[0].fixed)[problem.variable_names[0]])
        f = funcs[jets[0].field]
        key = f.diff(xs[0], len(jets[0].wrt)).subs(xs[0], x0) if jets[0].wrt else f.subs(xs[0], x0)
        ics[key] = _rational(con.value)
    return ics


def _candidates(answer, funcs) -> list[dict]:
    """dsolve/pdsolve's answer as a list of {field: expression}; implicit answers solved for the field."""
    items = answer if isinstance(answer, list) else [answer]
    if len(funcs) > 1:
        sets = items if items and isinstance(items[0], list) else [items]
        by_func = {v: k for k, v in funcs.items()}
        return [{by_func[e.lhs]: e.rhs for e in s if e.lhs in by_func} for s in sets]
    (field, f), = funcs.items()
    out = []
    for e in items:
        if e.lhs == f:
            out.append({field: e.rhs})
        else:
            out.extend({field: s} for s in sp.solve(e, f))
    return out


def _free_constants(sol: dict) -> set:
    return {s for e in sol.values() for s in e.free_symbols if s.name.startswith("C") and s.name[1:].isdigit()}


def _substitute(expr: sp.Expr, sol: dict, funcs: dict) -> sp.Expr:
    reps = {funcs[f]: e for f, e in sol.items()}
    return expr.subs(reps).doit()


def _on_faces(problem, cons, sol, funcs):
    for con, residual in cons:
        r = _substitute(residual, sol, funcs)
        for face in con.faces:
            fixed = {problem.vocabulary.var_symbols[n]: _point(v) for n, v in face.fixed}
            yield r.subs(fixed), dict(face.fixed)


def _fit_constants(problem, cons, sol, funcs) -> list[dict]:
    consts = sorted(_free_constants(sol), key=lambda s: s.name)
    if not consts:
        return [sol]
    conditions = [r for r, _ in _on_faces(problem, cons, sol, funcs) if not r.free_symbols - set(consts)]
    fitted = sp.solve(conditions, consts, dict=True) if conditions else []
    return [{f: e.subs(values) for f, e in sol.items()} for values in fitted]


def solve(problem) -> tuple[list[dict], str, str]:
    """Call SymPy as a user would: ([{field: expr}, ...], how it was called, why nothing usable came back)."""
    xs, funcs, eqs, cons = translate(problem)
    if len(xs) > 1:
        if len(eqs) > 1:
            raise NotImplementedError("pdsolve takes a single equation, not a system")
        return _candidates(sp.pdsolve(eqs[0], funcs[problem.fields[0]]), funcs), "pdsolve", ""
    target = list(funcs.values()) if len(funcs) > 1 else funcs[problem.fields[0]]
    system = eqs if len(eqs) > 1 else eqs[0]
    ics = _ics(problem, xs, funcs, cons)
    refused = ""
    try:
        answer, how = sp.dsolve(system, target, ics=ics or None), "dsolve(ics)" if ics else "dsolve"
    except (NotImplementedError, ValueError, TypeError) as exc:
        if not ics:
            raise
        refused = f"dsolve(ics) raised {type(exc).__name__}: {str(exc)[:60]}"
        answer, how = sp.dsolve(system, target), "dsolve, then the constants solved for"
    general = _candidates(answer, funcs)
    out = [fitted for sol in general for fitted in _fit_constants(problem, cons, sol, funcs)]
    if any(_free_constants(sol) for sol in general) and "constants" not in how:
        how += ", then the constants solved for"
    note = "" if out else "; ".join(filter(None, [refused, "no constants fit the conditions in "
                                                  + "; ".join(str(s) for s in general)[:80]]))
    return out, how, note


def _numeric_zero(expr: sp.Expr, problem, fixed: dict) -> bool:
    """|expr| <= 1e-9 on 20 sample points of the set (``fixed`` variables held at their values)."""
    xs = [problem.vocabulary.var_symbols[v] for v in problem.variable_names]
    if expr.has(AppliedUndef) or expr.free_symbols - set(xs):
        return False
    f = sp.lambdify(xs, expr, "mpmath")
    rng = np.random.default_rng(0)
    for _ in range(20):
        point = [fixed.get(v.name, v.lo + (v.hi - v.lo) * rng.uniform(0.05, 0.95)) for v in problem.variables]
        try:
            if abs(complex(f(*point))) > 1e-9:
                return False
        except (ValueError, TypeError, ZeroDivisionError):
            return False
    return True


def _residuals(problem, sol: dict, funcs, eqs, cons) -> list[tuple[sp.Expr, dict]]:
    out = [(_substitute(e.lhs - e.rhs, sol, funcs), {}) for e in eqs]
    return out + list(_on_faces(problem, cons, sol, funcs))


def _unusable(sol: dict) -> str:
    if any(e.has(AppliedUndef) for e in sol.values()):
        return "general solution with an arbitrary function"
    if _free_constants(sol):
        return "free constants left: " + ", ".join(sorted(s.name for s in _free_constants(sol)))
    if any(e.has(sp.Integral) for e in sol.values()):
        return "the answer holds unevaluated integrals"
    if any(e.has(sp.Order) for e in sol.values()):
        return "a truncated series, not a closed form"
    return ""


def check(problem, candidates: list[dict], note: str = "", send=None) -> str:
    """The verdict on what SymPy returned (see the module docstring).  With ``send``, the numeric
    verdict is sent first, then the symbolic one (simplify can take long)."""
    if not candidates:
        return f"fails: {note or 'no solution returned'}"
    _, funcs, eqs, cons = translate(problem)
    reasons = [r for r in map(_unusable, candidates) if r]
    usable = [s for s in candidates if set(s) == set(problem.fields) and not _unusable(s)]
    ref = problem.reference
    for sol in usable:
        if (all(_numeric_zero(r, problem, fixed) for r, fixed in _residuals(problem, sol, funcs, eqs, cons))
                or (ref and all(_numeric_zero(sol[f] - ref[f], problem, {}) for f in problem.fields))):
            if send:
                send({"verdict": "exact", "check": "numeric"})
            symbolic = all(sp.simplify(r) == 0 for r, _ in _residuals(problem, sol, funcs, eqs, cons))
            if send:
                send({"verdict": "exact", "check": "symbolic" if symbolic else "numeric (simplify did not reach 0)"})
            return "exact"
    return f"fails: {reasons[0]}" if reasons and not usable else "wrong"


def attempt(problem, send) -> None:
    """In the child: solve, report the time, check, report the verdict (messages through ``send``)."""
    start = time.perf_counter()
    try:
        candidates, how, note = solve(problem)
    except Exception as exc:  # noqa: BLE001 - any SymPy failure is a verdict
        where = traceback.extract_tb(exc.__traceback__)[-1].name
        reason = f"{type(exc).__name__}: {str(exc).strip() or f'(no message, raised in {where})'}".splitlines()[0][:120]
        send({"seconds": time.perf_counter() - start, "how": "", "solution": None})
        send({"verdict": f"fails: {reason}", "check": ""})
        return
    seconds = time.perf_counter() - start
    send({"seconds": seconds, "how": how, "solution": [{k: str(v) for k, v in c.items()} for c in candidates][:4]})
    try:
        verdict = check(problem, candidates, note, send)
        if verdict != "exact":
            send({"verdict": verdict, "check": "numeric"})
    except Exception as exc:  # noqa: BLE001
        send({"verdict": f"fails: checking raised {type(exc).__name__}: {str(exc)[:80]}", "check": ""})
