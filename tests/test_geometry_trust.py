"""What an outside review of the shapes found, each held by a test: forged verdicts through CSG faces,
integrals of differences, slivers, rounded numbers and a time axis inside the shape; crashes on
huge or degenerate input; and the new user's defects (a rectangle as a polygon, a float 1.0 left in
an exact form, ``extends`` with an absolute path)."""
import math

import numpy as np
import pytest

from desyr.config.loading import load_problem
from desyr.config.reading import problem_from_toml
from desyr.errors import ConfigError
from desyr.model.points import make_verification_points
from desyr.model.residuals import verify
from desyr.model.shape_text import parse_shape
from desyr.verify.proof import prove

LAPLACE = '[[equations]]\nlhs = "u_xx + u_yy"\n'


def _problem(domain: str, constraints: str, equations: str = LAPLACE):
    return problem_from_toml(f'[domain]\nshape = "{domain}"\n' + equations + constraints, source="t.toml")


def _check(problem, text):
    exprs = {"u": problem.parse(text)}
    return prove(problem, exprs).proved, verify(problem, exprs, make_verification_points(problem, 0))


@pytest.mark.parametrize("domain", [
    "box(lo=(0, 0), hi=(1, 1)) & box(lo=(0, 0), hi=(2, 2))",            # shared faces of an intersection
    "polygon([(0, 0), (1, 0), (0, 1)]) & box(lo=(0, 0), hi=(1, 1))",      # a triangle clipped by its own box
    "box(lo=(0, 0), hi=(1, 2)) | box(lo=(0, 0), hi=(1, 1))",              # a box nested in another
    "box(lo=(-1, -1), hi=(1, 0)) | box(lo=(-1, -1), hi=(0, 1))",          # an L, its sides shared by halves
])
def test_faces_that_primitives_share_stay_in_the_boundary(domain):
    problem = _problem(domain, '[[constraints]]\non = "boundary"\nvalue = 0\n')
    lo, hi = problem.geometry.shape.bounding_box()
    X = make_verification_points(problem, 0).constraints[0]
    # every side of the bounding box that the shape touches has points
    for axis in range(2):
        for end in (lo[axis], hi[axis]):
            on = np.abs(X[:, axis] - end) < 1e-12
            assert on.any() or not np.any(np.isclose(problem.geometry.shape.level(
                np.array([[end if a == axis else (lo[a] + hi[a]) / 2 for a in range(2)]])), 0)), (domain, axis, end)
    proved, v = _check(problem, "(1 - x)*(1 - y)*x*y + 1")       # 1 on the whole boundary: not 0
    assert not proved and v.R_con > 0.5


def test_a_seam_between_two_boxes_is_not_boundary():
    problem = _problem("box(lo=(0, 0), hi=(0.3, 1)) | box(lo=(0.3, 0), hi=(0.7, 1))",
                       '[[constraints]]\noperator = "u_n"\non = "boundary"\nvalue = 0\n',
                       '[[equations]]\nlhs = "u_xx + u_yy + (pi/0.7)**2*u"\n')
    assert not any(c.faces[0].describe().startswith("x = 0.3") for c in problem.constraints)
    v = verify(problem, {"u": problem.parse("cos(pi*x/0.7)")}, make_verification_points(problem, 0))
    assert v.R_con < 1e-12


def test_a_disk_over_the_hole_of_an_annulus_has_no_quadrature_rule():
    with pytest.raises(ConfigError, match="quadrature rule"):
        _problem("annulus(center=(0, 0), inner=0.5, outer=1) - disk(center=(0, 0), radius=0.75)",
                 '[[constraints]]\nintegral = true\nvalue = "7*pi/16"\n')
    with pytest.raises(ConfigError, match="quadrature rule"):
        _problem("box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.25) - disk(center=(0, 0), radius=0.5)",
                 '[[constraints]]\nintegral = true\nvalue = 1\n')


def test_a_sliver_of_a_boundary_is_sampled_not_dropped():
    # the sides of the top box stand 1e-5 above the wide one: in the plane the pieces are exact, so sampled
    problem = _problem("box(lo=(0, 0), hi=(1, 1)) | box(lo=(-1, -1), hi=(2, 0.99999))",
                       '[[constraints]]\non = "boundary"\nvalue = 0\n')
    X = make_verification_points(problem, 0).constraints[0]
    for side in (0, 1):
        on = X[np.abs(X[:, 0] - side) < 1e-12]
        assert len(on) >= 8 and np.all(on[:, 1] >= 0.99999 - 1e-12), side
    proved, v = _check(problem, "(1 - x)*(1 - y)*x*y + 1")
    assert not proved and v.R_con > 0.5


def test_a_3d_sliver_of_a_boundary_is_refused_not_dropped():
    with pytest.raises(ConfigError, match="too small to sample"):
        _problem("box(lo=(0, 0, 0), hi=(1, 1, 1)) | box(lo=(-1, -1, -1), hi=(2, 2, 0.99999))",
                 '[[constraints]]\non = "boundary"\nvalue = 0\n', '[[equations]]\nlhs = "u_xx + u_yy + u_zz"\n')


def test_shape_numbers_are_read_as_the_decimals_written():
    problem = _problem("disk(center=(0, 0), radius=0.999)", '[[constraints]]\non = "circle"\nvalue = 0\n',
                       '[[equations]]\nlhs = "u_xx + u_yy"\nrhs = -4\n')
    assert _check(problem, "998001/1000000 - x**2 - y**2")[0]
    assert not _check(problem, "0.998001000000001 - x**2 - y**2")[0]
    box = problem_from_toml('[domain]\nx = [0, 0.999]\ny = [0, 1]\n[[equations]]\nlhs = "u_xx + (2000*pi/999)**2*u"\n'
                            '[[constraints]]\non = "x = 0"\nperiodic = "x = 0.999"\n')
    assert _check(box, "sin(2000*pi*x/999)")[0]


def test_time_may_not_be_a_spatial_variable_of_the_shape():
    with pytest.raises(ConfigError, match="names a spatial variable"):
        problem_from_toml('time = "x"\n[domain]\nshape = "disk((0, 0), 1)"\n' + LAPLACE)


@pytest.mark.parametrize("domain, message", [
    ("disk((0, 0), 1e300)", "at most 1e"),
    ("polygon([(0, 0), (1e200, 0), (0, 1e200)])", "at most 1e"),
    ("disk((0, 0), 1" + "0" * 400 + ")", "too large"),
    ("box(lo=(), hi=())", "empty"),
    (" | ".join(f"disk(({i}, 0), 1)" for i in range(100)), "primitives"),
    ("disk((0, 0), True)", "number"),
    ("polygon([(0, 0), (100, 0), (100, 0.001)]) | disk((5000, 5000), 1)", "fills only|is empty"),
])
def test_extreme_shapes_are_one_line_errors(domain, message):
    with pytest.raises(ConfigError, match=message) as info:
        _problem(domain, "")
    assert "\n" not in str(info.value)


def test_a_polygon_with_a_straight_vertex_triangulates_and_integrates():
    shape = parse_shape("polygon([(-1.5, -1.5), (-1, -1.5), (0, -1), (1, -0.5), (2, 0)])")
    V = shape.V
    area = abs(np.sum(V[:, 0] * np.roll(V[:, 1], -1) - np.roll(V[:, 0], -1) * V[:, 1])) / 2
    assert shape.quadrature(8, np.random.default_rng(0))[1].sum() == pytest.approx(area, rel=1e-12)


def test_a_thin_triangle_samples():
    problem = _problem("polygon([(0, 0), (1, 1), (0.999, 1)])", '[[constraints]]\non = "boundary"\nvalue = 0\n')
    X = make_verification_points(problem, 0).interior
    assert len(X) == problem.points["verify"] and np.all(problem.geometry.shape.level(X) < 0)


def test_a_chord_too_short_to_sample_is_refused_when_read():
    with pytest.raises(ConfigError, match="too little"):
        _problem("disk((0, 0), 1)", '[[constraints]]\non = "boundary where x > 0.999998"\nvalue = 0\n')
    with pytest.raises(ConfigError, match="too little"):
        _problem("disk((0, 0), 1)", '[[constraints]]\non = "x = 0.9999999"\nvalue = 0\n')


def test_periodic_pairs_on_a_box_in_a_shape_and_their_extents_both_ways():
    p = _problem("box(lo=(0, 0), hi=(1, 1)) - disk((0.5, 0.5), 0.2)", '[[constraints]]\non = "x = 0"\nperiodic = "x = 1"\n')
    assert p.constraints[0].shift == (1.0, 0.0)
    for on, other in (("x = 0.9", "x = 0"), ("x = 0", "x = 0.9")):
        with pytest.raises(ConfigError, match="different extents"):
            _problem("disk((0, 0), 1)", f'[[constraints]]\non = "{on}"\nperiodic = "{other}"\n')


def test_faces_are_named_with_every_digit():
    p = _problem("box(lo=(0, 0), hi=(1.0000001, 1))", '[[constraints]]\non = "x = 1.0000001"\nvalue = 0\n')
    assert p.constraints[0].faces[0].describe() == "x = 1.0000001"
    inner = _problem("box(lo=(0, 0), hi=(1.0000001, 1))", '[[constraints]]\non = "x = 1"\nvalue = 0\n')
    assert inner.constraints[0].faces[0].describe() == "x = 1" and not hasattr(inner.constraints[0].faces[0], "piece")


def test_predicates_join_with_and():
    p = _problem("disk((0, 0), 1)", '[[constraints]]\non = "circle where x > 0 and y > 0"\nvalue = 0\n')
    X = make_verification_points(p, 0).constraints[0]
    assert np.all((X[:, 0] > 0) & (X[:, 1] > 0))
    with pytest.raises(ConfigError, match="joined by 'and'"):
        _problem("disk((0, 0), 1)", '[[constraints]]\non = "circle where x > 0, y > 0"\nvalue = 0\n')


@pytest.mark.slow
def test_a_rectangle_written_as_a_polygon_trains(tmp_path):
    from desyr_deepxde.plugin import DeepXDETeacher

    from desyr.model.context import RunContext
    from desyr.model.points import make_point_sets

    problem = _problem("polygon([(0, 0), (1, 0), (1, 1), (0, 1)])", '[[constraints]]\non = "boundary"\nvalue = "x*y"\n')
    ctx = RunContext(problem, make_point_sets(problem, 0), cache_dir=tmp_path)
    model = DeepXDETeacher(adam_steps=20, lbfgs_steps=0, checkpoint_every=10).prepare(problem, ctx)
    assert math.isfinite(model.info()["S_val_selected"])


def test_an_integer_float_left_by_cancelling_constants_is_written_as_an_integer():
    import sympy as sp

    from desyr.exact.canonical import collect_terms

    x, y = sp.symbols("x y", real=True)
    out = collect_terms(x + 3.0 * x / (3.0 * x**2 + 3.0 * y**2))
    assert not out.atoms(sp.Float), out


def test_extends_takes_an_absolute_path(tmp_path):
    base = tmp_path / "base.toml"
    base.write_text('[domain]\nshape = "disk((0, 0), 1)"\n' + LAPLACE + '[[constraints]]\non = "circle"\nvalue = 0\n',
                    encoding="utf-8")
    child = tmp_path / "sub" / "child.toml"
    child.parent.mkdir()
    child.write_text(f'extends = "{base}"\n[solvers]\nenabled = false\n', encoding="utf-8")
    assert load_problem(str(child)).geometry is not None
