"""Run a DeepXDE example script unchanged (runpy), time it, and report the final variables.

usage: run_dde.py SCRIPT NAME=TRUE [NAME=TRUE ...]
The script's own module globals are read after it finishes (or fails after training).
"""
import os, sys, time, json, traceback, runpy
os.environ.setdefault("DDE_BACKEND", "pytorch")
os.environ.setdefault("MPLBACKEND", "Agg")
import torch
if os.environ.get("TORCH_THREADS"):
    torch.set_num_threads(int(os.environ["TORCH_THREADS"]))
script = sys.argv[1]
truth = dict(a.split("=") for a in sys.argv[2:])
print("torch threads:", torch.get_num_threads(), "interop:", torch.get_num_interop_threads(), flush=True)
ns = {}
t0 = time.perf_counter()
err = None
import deepxde as dde
mod_globals = {}
class Capture:
    pass
# run the script in a namespace we keep even if it fails after training
code = compile(open(script).read(), script, "exec")
g = {"__name__": "__main__", "__file__": script}
try:
    exec(code, g)
except Exception as exc:
    err = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    traceback.print_exc()
wall = time.perf_counter() - t0
res = {"script": script, "wall_s": wall, "error_after_or_during": err, "torch_threads": torch.get_num_threads()}
for name, true in truth.items():
    v = g.get(name)
    if v is None:
        continue
    val = float(v.detach().item())
    res[name] = val
    res[name + "_rel_err"] = abs(val - float(true)) / abs(float(true))
ts = g.get("train_state")
if ts is not None:
    res["best_step"] = int(ts.best_step); res["final_step"] = int(ts.step)
    res["best_metrics"] = [float(m) for m in ts.best_metrics] if ts.best_metrics is not None else None
    res["final_metrics"] = [float(m) for m in ts.metrics_test] if ts.metrics_test is not None else None
print("RESULT", json.dumps(res), flush=True)
json.dump(res, open("dde_result.json", "w"), indent=1)
