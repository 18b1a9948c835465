"""Sampling on shapes, tested statistically: uniform interior and boundary points (chi-square on
cells of equal measure), outward unit normals, boundary points on the boundary to round-off, and
quadrature rules that integrate exactly what they should."""
import math

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from desyr.model.csg import piece_share, pieces_of
from desyr.model.geometry import sample_piece, sample_shape
from desyr.model.shape_text import parse_shape
from desyr.symbolic.numeric import evaluate

#: a sampler this far from uniform fails: p-values below it are 1 in 10**4 for a true uniform draw
P_MIN = 1e-4
N = 20_000


def _uniform(counts: np.ndarray, expected_share: np.ndarray | None = None) -> float:
    counts = np.asarray(counts, float).ravel()
    share = np.full(counts.size, 1 / counts.size) if expected_share is None else np.asarray(expected_share, float).ravel()
    return float(stats.chisquare(counts, counts.sum() * share / share.sum()).pvalue)


def test_disk_interior_is_uniform_on_equal_area_polar_cells():
    P = sample_shape(parse_shape("disk(center=(1, -2), radius=3)"), np.random.default_rng(1), N)
    r2 = ((P[:, 0] - 1) ** 2 + (P[:, 1] + 2) ** 2) / 9          # uniform in [0, 1] for a uniform disk
    angle = np.arctan2(P[:, 1] + 2, P[:, 0] - 1)
    counts, _, _ = np.histogram2d(r2, angle, bins=[8, 8], range=[[0, 1], [-np.pi, np.pi]])
    assert _uniform(counts) > P_MIN


def test_annulus_interior_is_uniform_in_r_squared_and_angle():
    P = sample_shape(parse_shape("annulus(center=(0, 0), inner=1, outer=2)"), np.random.default_rng(2), N)
    r2 = np.sum(P**2, axis=1)
    counts, _, _ = np.histogram2d(r2, np.arctan2(P[:, 1], P[:, 0]), bins=[6, 6], range=[[1, 4], [-np.pi, np.pi]])
    assert _uniform(counts) > P_MIN
    assert r2.min() >= 1 and r2.max() <= 4


def test_polygon_with_a_hole_is_uniform_on_its_unit_squares():
    # an L of three unit squares minus the middle of nothing: the cells are the squares themselves
    shape = parse_shape("polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]) "
                        "- polygon([(1.25, 0.25), (1.75, 0.25), (1.75, 0.75), (1.25, 0.75)])")
    P = sample_shape(shape, np.random.default_rng(3), N)
    counts, _, _ = np.histogram2d(P[:, 0], P[:, 1], bins=[2, 2], range=[[0, 2], [0, 2]])
    assert counts[1, 1] == 0                                    # the missing square
    # the square with the hole has 3/4 of the area of the others
    assert _uniform([counts[0, 0], counts[0, 1], counts[1, 0]], [1, 1, 0.75]) > P_MIN
    hole = (P[:, 0] > 1.25) & (P[:, 0] < 1.75) & (P[:, 1] > 0.25) & (P[:, 1] < 0.75)
    assert not hole.any()


def test_ball_interior_is_uniform_in_r_cubed_and_cos_theta():
    P = sample_shape(parse_shape("ball(center=(0, 0, 0), radius=2)"), np.random.default_rng(4), N)
    r = np.linalg.norm(P, axis=1)
    counts, _, _ = np.histogram2d((r / 2) ** 3, P[:, 2] / r, bins=[6, 6], range=[[0, 1], [-1, 1]])
    assert _uniform(counts) > P_MIN


def test_circle_points_are_uniform_in_angle():
    piece = pieces_of(parse_shape("disk(center=(0, 0), radius=1)"))[0]
    P = sample_piece(piece, np.random.default_rng(5), N)
    counts, _ = np.histogram(np.arctan2(P[:, 1], P[:, 0]), bins=16, range=(-np.pi, np.pi))
    assert _uniform(counts) > P_MIN


def test_ellipse_points_are_uniform_in_arc_length_not_in_angle():
    a, b = 3.0, 1.0
    piece = pieces_of(parse_shape(f"ellipse(center=(0, 0), semi_axes=({a}, {b}))"))[0]
    P = sample_piece(piece, np.random.default_rng(6), N)
    theta = np.mod(np.arctan2(P[:, 1] / b, P[:, 0] / a), 2 * np.pi)
    # cells of equal arc length, from the arc-length function on a fine grid
    grid = np.linspace(0, 2 * np.pi, 20001)
    arc = np.concatenate([[0], np.cumsum(np.hypot(a * np.sin(grid[1:]), b * np.cos(grid[1:])) * np.diff(grid))])
    edges = np.interp(np.linspace(0, arc[-1], 17), arc, grid)
    counts, _ = np.histogram(theta, bins=edges)
    assert _uniform(counts) > P_MIN
    naive, _ = np.histogram(theta, bins=16, range=(0, 2 * np.pi))
    assert _uniform(naive) < 1e-12          # uniform angles would not be uniform on the curve


def test_polygon_boundary_shares_points_by_edge_length():
    shape = parse_shape("polygon([(0, 0), (4, 0), (4, 1), (0, 1)])")
    pieces = pieces_of(shape)
    lengths = np.array([p.patch.measure for p in pieces])
    assert lengths.tolist() == [4, 1, 4, 1]
    from desyr.model.sets import _apportion
    assert _apportion(100, lengths) == [40, 10, 40, 10]


def test_sphere_cylinder_side_and_cap_points_are_uniform():
    sphere = pieces_of(parse_shape("ball(center=(0, 0, 0), radius=1)"))[0]
    P = sample_piece(sphere, np.random.default_rng(7), N)
    assert _uniform(np.histogram(P[:, 2], bins=10, range=(-1, 1))[0]) > P_MIN      # Archimedes: z is uniform
    side, bottom, top = pieces_of(parse_shape("cylinder(center=(0, 0), radius=2, z=(0, 3))"))
    S = sample_piece(side, np.random.default_rng(8), N)
    assert _uniform(np.histogram2d(np.arctan2(S[:, 1], S[:, 0]), S[:, 2], bins=[6, 6],
                                   range=[[-np.pi, np.pi], [0, 3]])[0]) > P_MIN
    C = sample_piece(top, np.random.default_rng(9), N)
    assert np.all(C[:, 2] == 3)
    assert _uniform(np.histogram(np.sum(C[:, :2] ** 2, axis=1) / 4, bins=10, range=(0, 1))[0]) > P_MIN


SHAPES = [
    "disk(center=(0.5, -1), radius=2)",
    "annulus(center=(0, 0), inner=0.5, outer=1.5)",
    "ellipse(center=(1, 1), semi_axes=(2, 0.5))",
    "polygon([(0, 0), (3, 0), (3, 2), (1.5, 3), (0, 2)])",
    "polygon([(0, 0), (0, 2), (2, 2), (2, 0)])",              # clockwise: normals must still point out
    "box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.5)",
    "box(lo=(-1, -1), hi=(1, 1)) | disk(center=(1, 0), radius=0.8)",
    "disk(center=(-0.5, 0), radius=1) & disk(center=(0.5, 0), radius=1)",
    "ball(center=(0, 0, 0), radius=1)",
    "cylinder(center=(0, 0), radius=1, z=(0, 2))",
    "box(lo=(0, 0, 0), hi=(1, 2, 3)) - ball(center=(0.5, 1, 1.5), radius=0.4)",
]


@pytest.mark.parametrize("text", SHAPES)
def test_boundary_points_lie_on_the_boundary_with_outward_unit_normals(text):
    shape = parse_shape(text)
    coordinates = sp.symbols(f"c0:{shape.dim}", real=True)
    rng = np.random.default_rng(10)
    for piece in pieces_of(shape):
        if piece_share(piece) == 0:
            continue
        P = sample_piece(piece, rng, 400)
        scale = max(1.0, float(np.max(np.abs(P))))
        assert np.max(np.abs(shape.level(P))) <= 1e-12 * scale, (text, piece.name)
        normal = piece.patch.normal(coordinates)
        n = np.column_stack([np.broadcast_to(evaluate(c, list(coordinates), P), len(P)) for c in normal])
        if piece.flipped:
            n = -n
        assert np.allclose(np.linalg.norm(n, axis=1), 1, atol=1e-12), (text, piece.name)
        h = 1e-6 * scale
        # off corners (where two pieces meet) a small step along the normal leaves the shape, against it enters
        inside = shape.level(P - h * n) < 0
        outside = shape.level(P + h * n) > 0
        assert inside.mean() > 0.97 and outside.mean() > 0.97, (text, piece.name, inside.mean(), outside.mean())


@pytest.mark.parametrize("text, f, exact", [
    ("disk(center=(0, 0), radius=1)", lambda P: P[:, 0] ** 2 + P[:, 1] ** 2, math.pi / 2),
    ("annulus(center=(1, 0), inner=1, outer=2)", lambda P: np.ones(len(P)), 3 * math.pi),
    ("ellipse(center=(0, 0), semi_axes=(2, 1))", lambda P: P[:, 0] ** 2, math.pi * 2 * 4 / 4),
    ("polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])", lambda P: P[:, 0] * P[:, 1], 1.75),
    ("ball(center=(0, 0, 0), radius=1)", lambda P: np.ones(len(P)), 4 * math.pi / 3),
    ("cylinder(center=(0, 0), radius=1, z=(0, 2))", lambda P: P[:, 2], 2 * math.pi),
    ("box(lo=(-1, -1), hi=(1, 1)) - disk(center=(0, 0), radius=0.5)", lambda P: np.ones(len(P)), 4 - math.pi / 4),
])
def test_quadrature_rules_integrate_smooth_functions_to_round_off(text, f, exact):
    nodes, weights = parse_shape(text).quadrature(20, np.random.default_rng(0))
    assert abs(weights @ f(nodes) - exact) <= 1e-12 * max(1, abs(exact))


def test_two_draws_of_a_rule_share_no_node():
    from desyr.config.reading import problem_from_toml
    from desyr.model.sets import integral_rule

    problem = problem_from_toml('[domain]\nshape = "disk(center=(0, 0), radius=1)"\n[[equations]]\nlhs = "u_xx + u_yy"\n'
                                '[[constraints]]\non = "circle"\nvalue = 0\n')
    (A, Ga), (B, Gb) = (integral_rule(problem, np.random.default_rng(k)) for k in (1, 2))
    assert Ga.shape[0] == Gb.shape[0] == 1 and abs(Ga.sum() - math.pi) < 1e-12 and abs(Gb.sum() - math.pi) < 1e-12
    from scipy.spatial import cKDTree
    assert cKDTree(A).query(B, k=1)[0].min() > 1e-9
