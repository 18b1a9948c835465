"""The two test workers' order (tests/scheduling.py): whole modules, the heaviest handed out first."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_modules_of_few_heavy_tests_are_handed_out_before_modules_of_many_light_ones():
    from scheduling import heaviest_modules_first

    tests = ([("many_fast.py", f"t{i}", False) for i in range(30)] + [("mixed.py", "a", False), ("mixed.py", "b", True)]
             + [("one_slow.py", "only", True), ("few_fast.py", "x", False), ("tie.py", "y", False)])
    ordered = heaviest_modules_first(tests, lambda t: t[0], lambda t: t[2])
    modules = list(dict.fromkeys(t[0] for t in ordered))
    # xdist's own order (most tests first) would end with one_slow.py, the longest module
    assert modules == ["mixed.py", "one_slow.py", "many_fast.py", "few_fast.py", "tie.py"]
    assert [t[1] for t in ordered if t[0] == "mixed.py"] == ["a", "b"]          # a module's own order is kept
    assert [t[1] for t in ordered if t[0] == "many_fast.py"] == [f"t{i}" for i in range(30)]
    assert sorted(ordered) == sorted(tests)                                       # nothing lost, nothing doubled


def test_xdist_keeps_the_workers_order_for_whole_modules():
    from types import SimpleNamespace

    import conftest

    def configured(dist):
        option = SimpleNamespace(dist=dist, loadscopereorder=True)
        conftest.pytest_configure(SimpleNamespace(option=option, getoption=lambda name: False))
        return option.loadscopereorder

    assert configured("loadfile") is False and configured("loadscope") is False
    assert configured("load") is True and configured("no") is True
    assert "--dist loadfile" in (ROOT / "dev").read_text(encoding="utf-8")
