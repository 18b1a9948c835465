"""``desyr bench`` on bad input: one line on stderr, exit 2, and nothing written."""
from __future__ import annotations

import pytest
from test_fuzz import assert_contract, cli


@pytest.mark.parametrize("argv,creates_out", [
    (["bench", "no_such_problem_zz", "--quiet"], False),
    (["bench", "paper:no_such_problem_zz", "--quiet"], False),
    (["bench", "missing/config.toml", "--quiet"], False),
    (["bench", "--quiet"], False),
    (["bench", "paper:sine_poisson_1d", "--seeds=0", "--quiet"], False),
    (["bench", "paper:sine_poisson_1d", "--seeds=-1", "--quiet"], False),
    (["bench", "paper:sine_poisson_1d", "--timeout=nan", "--quiet"], False),
    (["bench", "paper:sine_poisson_1d", "--timeout=-5", "--quiet"], False),
])
def test_bench_bad_input_is_one_line_error_without_side_effects(tmp_path, argv, creates_out):
    out = tmp_path / "bench_out"
    rc, stdout, err = cli(*argv, f"--out={out}")
    assert rc == 2, err
    assert_contract(rc, stdout, err, argv)
    assert out.exists() == creates_out


def test_bench_out_that_is_a_file_is_one_line_error(tmp_path):
    target = tmp_path / "not_a_dir"
    target.write_text("keep me", encoding="utf-8")
    rc, stdout, err = cli("bench", "paper:sine_poisson_1d", f"--out={target}", "--quiet")
    assert rc == 2, err
    assert_contract(rc, stdout, err, "bench --out file")
    assert target.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not_a_dir"]


@pytest.mark.slow
def test_bench_starts_the_biggest_problems_first_and_keeps_the_table_order():
    from desyr.bench.suite import _longest_first, resolve_names
    from desyr.extension.registry import load_registry

    registry = load_registry()
    specs = resolve_names(registry, [], True, None)
    order = _longest_first(registry, specs)
    assert sorted(order) == sorted(specs) and order != specs
    assert order[0] == "paper:kovasznay"                       # three fields
    assert order[1] == "paper:sine_poisson_3d"                 # three variables
    two_d = [s for s in order if s in ("paper:klein_gordon", "paper:wave", "paper:diffusion")]
    assert two_d == ["paper:klein_gordon", "paper:diffusion", "paper:wave"]     # then the larger equation
    assert order.index("paper:euler_bernoulli") > order.index("paper:wave")     # one variable after two
