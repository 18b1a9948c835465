"""A real ``result.json`` to edit, for the tests of untrusted results (test_trust_results.py,
test_fuzz_results.py): the finished tiny Sine-Poisson run of the study fixture, pointed at its
config so that ``desyr exact`` can load the problem."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "study_bench"
RESULT = next((FIXTURES / "runs").glob("tiny_sine-*/seed0")) / "result.json"
CONFIG = FIXTURES / "configs" / "tiny_sine.toml"
_DATA = json.loads(RESULT.read_text(encoding="utf-8"))


def fixture_result() -> dict[str, Any]:
    """A fresh copy of the fixture's result (field u, variable x), its problem at :data:`CONFIG`."""
    data = copy.deepcopy(_DATA)
    data["problem"]["source"] = str(CONFIG.resolve())
    return data


def hostile_name(marker: Path) -> str:
    """A name that is Python code creating ``marker`` when pasted as a line into generated source."""
    return f"u\nimport os; os.system('touch {marker}')\n#"


def rename_field(data: dict[str, Any], new: str, old: str = "u") -> dict[str, Any]:
    """``data`` with field ``old`` called ``new`` everywhere a result names it."""
    def rekey(mapping: Any) -> Any:
        return {new if k == old else k: v for k, v in mapping.items()} if isinstance(mapping, dict) else mapping

    data["problem"]["fields"] = [new if f == old else f for f in data["problem"]["fields"]]
    for key in ("expression", "pre_refit_expression"):
        data[key] = rekey(data[key])
    if data.get("exact_form"):
        for key in ("expressions", "latex"):
            data["exact_form"][key] = rekey(data["exact_form"][key])
        for rewrite in data["exact_form"]["rewrites"]:
            rewrite["field"] = new if rewrite["field"] == old else rewrite["field"]
    for c in data["candidates"]:
        for key in ("topology", "pre_refit_expression", "expression"):
            c[key] = rekey(c[key])
    if data.get("search"):
        data["search"]["pool_size_per_field"] = rekey(data["search"]["pool_size_per_field"])
        for run in data["search"]["runs"]:
            run["field"] = new if run["field"] == old else run["field"]
    return data


def write_result(folder: Path, data: Any) -> Path:
    """``data`` as ``folder/result.json`` (text as given when it is a string); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data)
    (folder / "result.json").write_text(text, encoding="utf-8")
    return folder
