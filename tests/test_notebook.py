"""docs/examples/quickstart.ipynb, executed in a real Jupyter kernel (nbclient): a problem written
in SymPy, run, shown as HTML and LaTeX, and read back as a DataFrame."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "examples" / "quickstart.ipynb"
pytestmark = pytest.mark.slow      # a kernel and a whole (stage-0) run


def test_the_example_notebook_runs_and_shows_its_result(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    toml, shown, exact, table, verdict = (c.outputs for c in code)
    assert 'operator = "u_x"\non = "x = 1"' in "".join(o.get("text", "") for o in toml)
    result = next(o for o in shown if o.output_type == "execute_result")
    assert "Proved" in result.data["text/html"] and "data:image/svg+xml;base64," in result.data["text/html"]
    assert result.data["text/latex"].startswith("$$ u = ")
    assert "exp" in next(o for o in exact if o.output_type == "execute_result").data["text/plain"]
    frame = next(o for o in table if o.output_type == "execute_result").data
    assert "<table" in frame["text/html"] and "sympy" in frame["text/html"]
    assert next(o for o in verdict if o.output_type == "execute_result").data["text/plain"].startswith("('proved',")
    assert (tmp_path / "runs" / "notebook" / "report.html").is_file()
