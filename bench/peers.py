"""DeSyR side by side with plain SymPy on public problem sets, in one run (issue 22, acceptance 1-2).

For every problem of the chosen set, one at a time:

- SymPy as a user would call it (``bench/peers_sympy.py``): ``dsolve`` (with ``ics``) for ODEs and ODE
  systems, ``pdsolve`` for PDEs, in a child process capped at ``--sympy-timeout`` seconds (60); the
  verdict is "exact" when the answer satisfies the equations and conditions (or equals the reference),
  else "wrong", "fails: <reason>" or "timeout"; the time is the solver call's.
- DeSyR as a user would call it: ``python -m desyr run FILE --out DIR`` with default settings
  (``--budget``, ``--desyr-args`` add options); the verdict is ``verification.verdict`` of
  ``DIR/result.json`` (Proved, Verified, Not exact), the time the command's wall time.

Sets: ``lagaris`` and ``ssde`` (``bench/peers/<set>/*.toml``), ``paper`` (the bundled ``paper:*``
configurations, as ``desyr bench --all`` takes them), ``all``.  Writes a markdown table (problem, SymPy
verdict and seconds, DeSyR verdict and seconds) and the summary lines to stdout and ``--out``, and the
raw rows to the same path with ``.json``.

    PYTHONPATH=.:plugins python bench/peers.py --set all --sympy-only --out runs/peers/sympy.md
    PYTHONPATH=.:plugins python bench/peers.py --set lagaris --only ode4,ode7 --budget 60 --out runs/peers/two.md
"""
from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peers_sympy  # noqa: E402

EXACT_DESYR = {"proved", "verified"}


@functools.cache
def registry():
    from desyr.extension.registry import load_registry
    return load_registry()


def _order(path: Path) -> tuple:
    """ode1..9, nlode1..4, sode1..4, pde1..6, nguyen1..8: the papers' own order."""
    m = re.fullmatch(r"([a-z]+)(\d+)", path.stem)
    kinds = ["ode", "nlode", "sode", "pde", "nguyen"]
    return (kinds.index(m[1]) if m and m[1] in kinds else len(kinds), int(m[2]) if m else 0, path.stem)


def problems(which: str, only: list[str]) -> list[tuple[str, str]]:
    """(display name, spec for desyr) of every problem of the set, filtered by ``only``."""
    out: list[tuple[str, str]] = []
    for name in ["lagaris", "ssde", "paper"] if which == "all" else [which]:
        if name == "paper":
            from desyr.bench.suite import resolve_names
            out += [(spec, spec) for spec in resolve_names(registry(), [], True, "paper")]
        else:
            out += [(f"{name}/{p.stem}", str(p)) for p in sorted((HERE / "peers" / name).glob("*.toml"), key=_order)]
    if only:
        out = [(n, s) for n, s in out if {n, n.rpartition("/")[2], n.partition(":")[2]} & set(only)]
    return out


def _verdict(recv, timeout: float) -> tuple[str, str]:
    """The child's last verdict within ``timeout``: a numeric "exact" first, then the symbolic check's."""
    verdict, how = "unchecked: the check timed out", ""
    deadline = time.monotonic() + timeout
    try:
        while recv.poll(max(0.0, deadline - time.monotonic())):
            msg = recv.recv()
            verdict, how = msg["verdict"], msg["check"]
            if how != "numeric" or verdict != "exact":
                break
    except EOFError:
        pass
    return verdict, how


def run_sympy(spec: str, timeout: float) -> dict:
    """SymPy on one problem in a forked child: the call's time, how it was called, the verdict."""
    from desyr.config.loading import load_problem

    problem = load_problem(spec, registry() if ":" in spec else None)
    recv, send = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=peers_sympy.attempt, args=(problem, send.send))
    child.start()
    send.close()
    row: dict = {"sympy": "timeout", "sympy_s": timeout, "sympy_how": "", "sympy_solution": None}
    try:
        if recv.poll(timeout):
            first = recv.recv()
            row.update(sympy_s=first["seconds"], sympy_how=first["how"], sympy_solution=first["solution"])
            row["sympy"], row["sympy_check"] = _verdict(recv, timeout)
    except EOFError:
        row["sympy"] = "fails: the child process died"
    finally:
        if child.is_alive():
            child.kill()
        child.join()
    return row


def run_desyr(spec: str, out: Path, budget: float | None, extra: list[str], timeout: float) -> dict:
    """``python -m desyr run`` on one problem: its verdict and wall time."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "desyr", "run", spec, "--out", str(out)]
    cmd += ["--budget", str(budget)] if budget else []
    cmd += extra
    start = time.perf_counter()
    with open(out / "desyr.log", "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:       # the run and the workers and verifier it started
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
    seconds = time.perf_counter() - start
    row = {"desyr_s": seconds, "desyr_cmd": shlex.join(cmd), "desyr_dir": str(out)}
    result = out / "result.json"
    if result.is_file():
        data = json.loads(result.read_text())
        verdict = (data.get("verification") or {}).get("verdict") or "unverified"
        row.update(desyr=verdict.replace("_", " ").capitalize(), desyr_expression=data.get("expression"),
                   desyr_total_s=(data.get("timings") or {}).get("total"))
    elif code is None:
        row["desyr"] = f"timeout ({timeout:g} s)"
    else:
        tail = [ln for ln in (out / "desyr.log").read_text().splitlines() if ln.strip()][-1:] or [""]
        row["desyr"] = f"fails: exit {code}: {tail[0][:80]}"
    return row


def summary(rows: list[dict], ran_desyr: bool) -> list[str]:
    solved = [r for r in rows if r["sympy"] == "exact"]
    lines = [f"SymPy exact: {len(solved)}/{len(rows)}."]
    if not ran_desyr:
        return lines + ["DeSyR not run (--sympy-only)."]
    ok = [r for r in rows if str(r.get("desyr", "")).lower() in EXACT_DESYR]
    missed = [r["problem"] for r in solved if r not in ok]
    lines.append(f"DeSyR exact (Proved or Verified): {len(ok)}/{len(rows)}.")
    lines.append("DeSyR solves everything SymPy solves: " + ("yes." if not missed else f"no; missed {', '.join(missed)}."))
    if solved:
        lines.append(f"Median DeSyR time on the {len(solved)} problems SymPy solves: "
                     f"{statistics.median(r['desyr_s'] for r in solved):.1f} s "
                     f"(SymPy: {statistics.median(r['sympy_s'] for r in solved):.2f} s).")
    return lines


def table(rows: list[dict], ran_desyr: bool) -> str:
    lines = ["| problem | SymPy | SymPy s | DeSyR | DeSyR s |", "|---|---|---|---|---|"]
    for r in rows:
        desyr = (r.get("desyr", ""), f"{r['desyr_s']:.1f}") if ran_desyr and "desyr_s" in r else ("not run", "")
        lines.append(f"| {r['problem']} | {r['sympy'].replace('|', '/')[:90]} | {r['sympy_s']:.2f} | {desyr[0]} | {desyr[1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="which", choices=["lagaris", "ssde", "paper", "all"], default="all")
    ap.add_argument("--only", default="", help="comma-separated problem names (ode4, lagaris/ode4, burgers, ...)")
    ap.add_argument("--sympy-only", action="store_true", help="skip DeSyR")
    ap.add_argument("--sympy-timeout", type=float, default=60.0, help="cap of each SymPy call, seconds (60)")
    ap.add_argument("--budget", type=float, default=None, help="passed to desyr run --budget")
    ap.add_argument("--desyr-args", default="", help="more options for desyr run, one string")
    ap.add_argument("--desyr-timeout", type=float, default=None,
                    help="kill a DeSyR run after this many seconds (default: budget + 120, else 3600)")
    ap.add_argument("--runs", type=Path, default=Path("runs/peers"), help="where DeSyR's run folders go")
    ap.add_argument("--out", type=Path, default=None, help="markdown file (default runs/peers/<set>.md); rows: .json")
    args = ap.parse_args(argv)
    out = args.out or args.runs / f"{args.which}{'-sympy' if args.sympy_only else ''}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    timeout = args.desyr_timeout or ((args.budget + 120) if args.budget else 3600)
    rows: list[dict] = []
    todo = problems(args.which, [s.strip() for s in args.only.split(",") if s.strip()])
    for i, (name, spec) in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {name}: sympy ...", file=sys.stderr, flush=True)
        row = {"problem": name, "spec": spec, **run_sympy(spec, args.sympy_timeout)}
        if not args.sympy_only:
            print(f"[{i}/{len(todo)}] {name}: desyr ...", file=sys.stderr, flush=True)
            folder = args.runs / stamp / name.replace(":", "_").replace("/", "_")
            row.update(run_desyr(spec, folder, args.budget, shlex.split(args.desyr_args), timeout))
        print(f"    sympy {row['sympy']} ({row['sympy_s']:.2f} s)"
              + (f"; desyr {row['desyr']} ({row['desyr_s']:.1f} s)" if "desyr_s" in row else ""),
              file=sys.stderr, flush=True)
        rows.append(row)
        out.with_suffix(".json").write_text(json.dumps(rows, indent=1, default=str))
    text = table(rows, not args.sympy_only) + "\n\n" + "\n".join(summary(rows, not args.sympy_only)) + "\n"
    print(text)
    out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
