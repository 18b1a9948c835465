"""``python -I -m desyr.verify``: one request (JSON) on standard input, one verdict (JSON) on standard output.

Bad input is one ``desyr: error: ...`` line on standard error and exit status 2.
"""
from __future__ import annotations

import json
import sys
from typing import NoReturn

MAX_REQUEST = 16 * 1024 * 1024


def _request_text() -> str:
    """The request: its first line when that is a whole JSON document (a run's verifier answers once
    that line arrives, without waiting for the end of the input), else everything up to the end."""
    text = sys.stdin.readline(MAX_REQUEST + 1)
    if len(text) <= MAX_REQUEST:
        try:
            json.loads(text)
            return text
        except (ValueError, RecursionError):
            pass
    return text + sys.stdin.read(MAX_REQUEST + 1 - len(text))


def _warm_up() -> None:
    """Load what every verdict needs before the request comes: a run starts this process early
    (desyr.verify.child.start_verifier), so these imports overlap the run's own work."""
    import sympy as sp

    from desyr.symbolic.numeric import lambdify

    x = sp.Symbol("x")
    lambdify([x], [sp.sin(x) * sp.exp(x)])    # lambdify's printer and code generation, on first use
    # SymPy's simplify imports its helpers (units, tensors, combinatorics: 34 modules, about 0.15 s)
    # on its first call, which the proof of an answer of the exact solvers usually makes
    sp.simplify(sp.exp(x) / (1 + sp.exp(x)) - 1 / (1 + sp.exp(-x)))


def serve() -> NoReturn:
    """The verifier process: :func:`main`, then an exit without the interpreter's teardown (freeing
    SymPy's objects would only delay the run waiting for this process to end)."""
    from desyr.runtime.spare import leave_now

    leave_now(main())


def main() -> int:
    from desyr.errors import DesyrError
    from desyr.symbolic.expressions import ExpressionError
    from desyr.verify.verdict import decide

    _warm_up()
    try:
        text = _request_text()
        if len(text) > MAX_REQUEST:
            raise DesyrError(f"the request is larger than {MAX_REQUEST} bytes")
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise DesyrError(f"the request is not JSON ({type(exc).__name__})") from None
        verdict = decide(request)
    except (DesyrError, ExpressionError, RecursionError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"desyr: error: {message}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - whatever SymPy or numpy raises: one line, no verdict
        message = " ".join(str(exc).split())[:200]
        print(f"desyr: error: the verifier could not evaluate this ({type(exc).__name__}: {message})",
              file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(verdict, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    serve()
