"""The DeepXDE teacher on an inverse problem: each unknown trains as a ``dde.Variable`` with the
network, the observations are a ``PointSetBC``, S_val holds the misfit to them, and the estimate at
the chosen checkpoint reaches the run (where the refit starts)."""
import pytest
from desyr_deepxde.plugin import DeepXDETeacher
from helpers import DECAY_INVERSE

from desyr.config.reading import problem_from_toml
from desyr.model.context import RunContext
from desyr.model.points import make_point_sets
from desyr.stages.teach import unknown_estimates

ODE = DECAY_INVERSE


@pytest.mark.slow
def test_the_unknown_trains_with_the_network_towards_the_data(tmp_path):
    problem = problem_from_toml(ODE, source="t.toml")
    ctx = RunContext(problem, make_point_sets(problem, 0), cache_dir=tmp_path)
    start = problem.unknowns[0].start()                     # sqrt(0.2 * 5) = 1
    model = DeepXDETeacher(adam_steps=400, lbfgs_steps=100, checkpoint_every=50, layers=[20, 20]).prepare(problem, ctx)
    info = model.info()
    k = info["unknowns"]["k"]
    assert abs(k - 2) < 0.25 * abs(start - 2), (start, k)
    # S_val's components: the equation, the constraint and the misfit to the observations
    assert len(info["components_selected"]) == 3
    assert unknown_estimates(ctx, info) == {"k": k}
    # a cached teacher carries its estimate too
    again = DeepXDETeacher(adam_steps=400, lbfgs_steps=100, checkpoint_every=50, layers=[20, 20]).prepare(problem, ctx)
    assert again.info()["cached"] and again.info()["unknowns"] == {"k": k}
