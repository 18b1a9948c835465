"""The lines ``desyr run`` and ``desyr refine`` print for a finished result: the only lines on their
standard output (:func:`results_apart` sends everything else to standard error)."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desyr.model.result import Result


def _num(value: object) -> str:
    return f"{value:.3e}" if isinstance(value, float) else str(value)


def print_summary(result: Result, out: str | None) -> None:
    """What the terminal shows of a finished ``run`` or ``refine``: the formula, its exact form, the
    residuals, the verdict, the inverse problem's lines, warnings, and where the files went."""
    if result.expression is None:
        print("no candidate could be selected")
    else:
        from desyr.report.markdown import inverse_lines, undecided, visible

        hidden = undecided(result)          # values the data cannot decide are not printed as found
        for f, e in result.expression.items():
            if f not in hidden:
                print(f"{f} = {e}")
        exact = result.exact_form.expressions if result.exact_form else {}
        if exact and exact != result.expression:      # decimals the exact-form step identified
            print("exact form: " + "; ".join(f"{f} = {e}" for f, e in exact.items() if f not in hidden))
        res, err = result.residuals, result.errors
        print(f"converged={result.converged} complexity={result.complexity} "
              f"R_eq={_num(res.R_eq if res else None)} R_con={_num(res.R_con if res else None)}"
              + (f" rel_l2={_num(err.rel_l2)}" if err.rel_l2 is not None else ""))
        words = {"proved": "Proved", "verified": "Verified (not proved)", "not_exact": "Not exact",
                 "unverified": "Unverified"}

        # a reason can quote a config's label: terminal escapes in it must not redraw the screen
        reason = visible(result.verification.reason) if result.verification else ""
        print(f"verdict: {words.get(result.verdict, result.verdict)} ({reason})")
        for line in inverse_lines(result):
            print(visible(line))
        answer = result.verification.answer if result.verification else None
        data = answer.get("observations") if isinstance(answer, dict) else None
        if isinstance(data, dict) and isinstance(data.get("warning"), str) and data["warning"]:
            print(f"desyr: warning: {visible(data['warning'])}", file=sys.stderr)
        if not result.exact:
            print("warning: not an exact solution; see report.md")
    if out:
        print(f"wrote {out}/result.json, {out}/report.md and {out}/report.html")


@contextmanager
def results_apart() -> Iterator[None]:
    """Standard output onto standard error inside the block, for Python's ``print`` and for file
    descriptor 1 (a C library's writes, and the worker processes started meanwhile): a component's
    output never lands among the result's lines, which are all that ``run`` and ``refine`` print there."""
    from desyr.extension.discovery import descriptor_1_to_2

    with descriptor_1_to_2(), redirect_stdout(sys.stderr):
        yield
