"""Small features of a shape keep their boundary (issue 35, the second red team): a slit or a hole
thinner than a fixed step, a part too small for its share of points, a predicate's sliver on a
second part, and a hole by the rim of a large ellipse. Each attack ends not proved with a large
constraint residual, or is refused with one line; the true solutions stay proved."""
import numpy as np
import pytest

from desyr.config.reading import problem_from_toml
from desyr.errors import ConfigError
from desyr.model.points import make_verification_points
from desyr.model.residuals import verify
from desyr.verify.proof import prove

LAPLACE = '[[equations]]\nlhs = "u_xx + u_yy"\n'
LAPLACE3 = '[[equations]]\nlhs = "u_xx + u_yy + u_zz"\n'
SQUARE = "box(lo=(-1, -1), hi=(1, 1))"


def _problem(domain: str, constraints: str, equations: str = LAPLACE):
    return problem_from_toml(f'[domain]\nshape = "{domain}"\n' + equations + constraints, source="t.toml")


def _check(problem, text):
    exprs = {"u": problem.parse(text)}
    return prove(problem, exprs).proved, verify(problem, exprs, make_verification_points(problem, 0)).R_con


def _on(value: str, on: str = "boundary") -> str:
    return f'[[constraints]]\non = "{on}"\nvalue = "{value}"\n'


@pytest.mark.parametrize("half", ["1e-8", "1e-7", "1e-12"])
def test_a_thin_slit_keeps_its_faces(half):
    domain = f"{SQUARE} - box(lo=(-0.5, -{half}), hi=(0.5, {half}))"
    # 0 on the square's sides, about 1 on the slit: u = y meets the first only
    attack = _problem(domain, _on("y + (1 - x**2)*(1 - y**2)"))
    proved, r_con = _check(attack, "y")
    assert not proved and r_con > 0.1
    assert _check(_problem(domain, _on("y")), "y")[0]


def test_a_tiny_hole_keeps_its_rim_and_its_name():
    domain = f"{SQUARE} - disk(center=(0, 0), radius=1e-7)"
    proved, r_con = _check(_problem(domain, _on("(1 - x**2)*(1 - y**2)")), "0")
    assert not proved and r_con > 0.1
    circle = _problem(domain, _on("0", "x = -1") + _on("1", "circle"))
    assert circle.constraints[1].faces[0].describe() == "circle"


@pytest.mark.parametrize("domain, hole", [
    (f"{SQUARE} - disk(center=(0, 0), radius=0.001)", "circle"),
    ("annulus(center=(0, 0), inner=0.001, outer=1)", "inner"),
])
def test_a_small_part_gets_points_however_small_its_share(domain, hole):
    truth = "log(x**2 + y**2)/(2*log(1/1000))"          # 1 on the rim of radius 1/1000, 0 on the unit circle
    problem = _problem(domain, _on(truth))
    X = make_verification_points(problem, 0).constraints[0]
    assert np.sum(np.abs(np.hypot(X[:, 0], X[:, 1]) - 0.001) < 1e-9) >= 8
    if hole == "inner":
        proved, r_con = _check(problem, "0")
        assert not proved and r_con > 0.1
        assert _check(problem, truth)[0]


def test_a_predicate_that_keeps_a_sliver_of_a_second_part_is_refused():
    with pytest.raises(ConfigError, match="sliver of x = -1") as info:
        _problem(SQUARE, '[[constraints]]\non = "boundary where y > 0.9999999"\noperator = "u_x"\nvalue = 0\n')
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="share under"):
        _problem(SQUARE, _on("0", "boundary where x > 0.9999999 and x < 0.99999999"))


def test_a_predicate_must_keep_a_thousandth_of_each_part_it_touches():
    with pytest.raises(ConfigError, match="keeps only .* of x = -1"):
        _problem(SQUARE, _on("0", "boundary where y > 0.9999"))
    assert _problem(SQUARE, _on("0", "boundary where y > 0.99"))


def test_a_hole_by_the_rim_of_a_large_ellipse_is_kept():
    domain = "ellipse(center=(0, 0), semi_axes=(100000, 100000)) - disk(center=(99992, 0), radius=3)"
    problem = _problem(domain, _on("(10000000000 - x**2 - y**2)/1000000"))     # 0 on the ellipse, about 1.6 on the hole
    assert [f.describe() for f in problem.constraints[0].faces] == ["ellipse", "circle"]
    proved, r_con = _check(problem, "0")
    assert not proved and r_con > 0.1


def test_a_thin_polygon_hole_and_a_tiny_overlap_keep_their_edges():
    sliver = _problem(f"{SQUARE} - polygon([(-0.5, 0), (0.5, 0), (0.5, 1e-9)])", _on("(1 - x**2)*(1 - y**2)"))
    assert {"edge 0", "edge 1", "edge 2"} <= {f.describe() for f in sliver.constraints[0].faces}
    proved, r_con = _check(sliver, "0")
    assert not proved and r_con > 0.1
    strip = _problem("box(lo=(0, 0), hi=(1, 1)) & box(lo=(0.9999999, 0), hi=(2, 1))", _on("x*y"))
    X = make_verification_points(strip, 0).constraints[0]
    assert np.sum(np.abs(X[:, 1] - 1) < 1e-12) >= 8 and np.sum(np.abs(X[:, 1]) < 1e-12) >= 8


@pytest.mark.parametrize("domain", [
    "box(lo=(-1, -1, -1), hi=(1, 1, 1)) - ball(center=(0, 0, 0), radius=1e-7)",
    "cylinder(center=(0, 0), radius=1, z=(-1, 1)) - ball(center=(0.5, 0, 0), radius=1e-7)",
])
def test_a_tiny_hole_in_3d_keeps_its_sphere(domain):
    problem = _problem(domain, _on("0", "boundary") + _on("1", "sphere"), LAPLACE3)
    proved, r_con = _check(problem, "0")
    assert not proved and r_con > 0.1
