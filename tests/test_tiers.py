"""The fast tier (``./dev test --fast``) leaves out every test marked ``slow``; this guards what belongs there.

Not timing-based: the checks read the test files' syntax.  ``HEAVY`` names the tests that were
over about 1 s on 2 cores (``pytest --durations=0``, docs/benchmarks.md) with why; a marker
dropped from one of them fails here.  Two kinds are recognised without a list, so a new test of
that kind is caught too: a hypothesis test that goes through the command line, and a module that
starts a Dask cluster.  New heavy tests of other kinds show up at the end of a ``--fast``
session (tests/conftest.py names the kept tests over 2 s): mark them and add them here.
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import tomllib

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: module (every test in it) or module::test (every parametrization) -> why it is slow
HEAVY = {
    "test_series_numbers.py::test_the_tail_bound_holds_with_named_eigenvalues":
        "named eigenvalues at 30 digits, term by term (the slow cases)",
    "test_series_numbers.py::test_robin_roots_are_each_alone_in_their_brackets": "lays out five root sets by interval arithmetic",
    "test_series_export.py::test_the_c_export_compiles_and_agrees": "compiles C with gcc",
    **{f"test_series_pipeline.py::{name}": "a refine of a series and its verifier process" for name in (
        "test_an_exact_series_goes_through_refine_to_every_output",
        "test_a_series_with_float_constants_is_refit_and_identified",
        "test_a_wrong_series_is_not_exact",
    )},
    "test_series_export.py::test_the_fortran_export_compiles_and_agrees": "compiles Fortran with gfortran",
    "test_series_export.py::test_the_torch_and_jax_exports_run_and_agree": "imports torch or jax",
    "test_teacher_unknowns.py::test_the_unknown_trains_with_the_network_towards_the_data": "a real DeepXDE training",
    "test_inverse_docs.py::test_the_worked_example_prints_what_the_page_shows": "two whole runs through the CLI",
    "test_sympy_methods.py::test_a_method_written_here_is_one_file_plus_one_list_entry":
        "a Python process that loads a copy of the sympy package and runs its searcher",
    "test_inverse_config.py::test_two_unknowns_seen_only_as_a_product_are_reported_not_identifiable":
        "a desyr refine through the CLI",
    "test_geometry_trust.py::test_a_rectangle_written_as_a_polygon_trains": "a real DeepXDE training",
    "test_teacher_geometry.py::test_a_short_training_with_periodic_or_integral_constraints_lowers_s_val":
        "a real DeepXDE training",
    # real teachers, searches, studies and benches (tiny budgets, still seconds to minutes)
    "test_bench_smoke.py::test_smoke_subset_recovers_and_resumes": "real teachers and searches through `desyr bench`",
    "test_bench_smoke.py::test_misspecified_library_run_is_reported_as_not_exact": "a whole run with a real teacher",
    "test_coupled.py::test_second_coupled_system_end_to_end": "a whole coupled run",
    "test_coupled.py::test_joint_refit_from_perturbed_kovasznay_constants": "a Kovasznay group refit and its verdict",
    "test_coupled.py::test_without_tying_the_same_refit_has_one_rate_per_field": "a Kovasznay group refit and its verdict",
    "test_dask.py": "a real LocalCluster with two worker processes",
    "test_series_proof.py": "series proofs: SymPy's expansion integrals and their quadratures",
    "test_series_verdict.py": "whole series verdicts: truncated sums on fresh points and the proof",
    "test_executors.py::test_killed_worker_is_retried_and_a_repeat_killer_is_recorded": "runs in a process pool, one killed",
    "test_executors.py::test_a_unit_not_back_by_the_deadline_is_stopped_with_its_worker":
        "a process pool whose stuck worker is killed at its deadline",
    "test_budget_acceptance.py::test_a_sleeping_component_of_any_role_cannot_hold_the_run_past_its_budget": "whole runs through the CLI, each up to its budget (issue 45, acceptance 1)",
    "test_forks.py::test_stage_0_proposes_the_same_from_a_fresh_interpreter_once_jax_is_loaded":
        "stage 0 twice, once from a fork server's fresh interpreters",
    "test_plugin_output.py::test_stdout_holds_the_result_alone_and_the_reports_say_where_each_component_came_from":
        "a whole run through the CLI",
    "test_executors.py::test_same_result_on_serial_and_processes": "whole runs, serial and in a process pool",
    "test_run.py::test_operon_recovers_sine_poisson": "a whole run with a real Operon search",
    "test_memo.py::test_once_a_shorter_refit_meets_the_physics_no_longer_candidate_is_refit": "seven real refits",
    "test_run.py::test_gplearn_by_changing_only_the_searcher_name": "a whole run with a real gplearn search",
    "test_run.py::test_same_config_and_seed_same_expression": "two whole runs",
    "test_run.py::test_cli_run_writes_result": "a whole run through the CLI",
    "test_imports_ahead.py::test_a_run_that_stage_0_settles_imports_the_refiners_modules_while_the_solver_child_works":
        "a whole (stage-0) run",
    "test_search_operon.py::test_recovers_sine_quickly": "a real Operon search",
    "test_search_operon.py::test_two_variables_are_mapped_back": "a real Operon search",
    "test_search_operon.py::test_same_seed_same_front": "two real Operon searches",
    "test_search_operon.py::test_budget_aliases": "real Operon searches",
    "test_trust_searchers.py::test_operon_same_seed_same_front": "two real Operon searches",
    "test_search_gplearn.py::test_front_is_valid_and_sympy": "a real gplearn search",
    "test_search_gplearn.py::test_same_seed_same_front": "two real gplearn searches",
    "test_search_pysr.py::test_pysr_integration": "a real PySR search (Julia)",
    "test_exact_solve.py::test_kovasznay_rate_is_solved_and_proved": "a SymPy proof of the Kovasznay flow",
    "test_escalation.py::test_misspecified_library_is_fixed_by_enrichment": "a run escalated over several attempts",
    "test_escalation.py::test_a_spent_budget_is_the_recorded_reason_to_stop": "a whole run",
    "test_escalation.py::test_resume_with_a_budget_says_it_is_not_used": "a whole run",
    "test_trust_bench.py::test_same_file_name_in_two_folders_keeps_results_apart": "a bench of real runs",
    "test_trust_bench.py::test_truncated_or_foreign_result_is_run_again": "a bench of real runs",
    "test_trust_bench.py::test_bench_child_does_not_import_from_the_working_directory": "a bench child process",
    "test_trust_executors.py::test_killed_run_leaves_no_worker_behind": "a desyr run with a process pool, killed",
    "test_studies.py::test_correction_quick_gains_more_than_six_orders": "a study's quick setting",
    "test_studies.py::test_jacobian_quick_full_column_rank": "a study's quick setting",
    "test_studies.py::test_objective_physics_only_beats_mixed_by_orders": "a study's quick setting",
    "test_studies.py::test_init_teacher_starts_recover": "a study's quick setting",
    "test_studies.py::test_noise_error_grows_with_level": "a study's quick setting",
    "test_studies.py::test_library_quick_misspecified_is_flagged": "a study's quick setting (real searches)",
    **{f"test_teacher_deepxde.py::{name}": "trains a real PINN" for name in (
        "test_training_lowers_sval_and_selects_argmin", "test_teacher_accuracy", "test_cached_rerun_does_not_train",
        "test_retrain_ignores_cache", "test_problem_without_reference_trains", "test_reference_is_never_read",
        "test_time_dependent_multifield_float64_smoke")},
    "test_trust_deepxde.py::test_corrupt_cache_json_is_ignored_and_retrained": "trains a real PINN twice",
    # fuzzing: hundreds of examples, each through the CLI or the verifier process
    "test_fuzz.py::test_fuzz_candidate_through_cli": "60 CLI examples",
    "test_fuzz.py::test_fuzz_config_through_cli": "150 CLI examples",
    "test_fuzz.py::test_fuzz_config_text_through_cli": "80 CLI examples",
    "test_fuzz.py::test_deeply_nested_calls_are_bounded": "a desyr process",
    "test_fuzz_results.py::test_fuzz_export_command": "20 examples, each starts the verifier process",
    "test_fuzz_results.py::test_fuzz_exact_command": "20 examples, each starts the verifier process",
    "test_trust_store.py::test_fuzz_stored_records": "15 examples, each a run through the CLI",
    "test_fuzz_verify.py::test_fuzz_desyr_verify_candidate": "40 whole verifications",
    "test_fuzz_verify.py::test_fuzz_desyr_verify_exact_form": "40 whole verifications",
    "test_fuzz_verify.py::test_fuzz_desyr_verify_result_file": "40 whole verifications",
    # a subprocess per case: `python -m desyr` imports sympy and scipy (seconds each)
    "test_cli.py::test_bad_input_exits_2_without_traceback": "a desyr process per case",
    "test_cli.py::test_bad_candidates_exit_2": "a desyr process per case",
    "test_cli.py::test_missing_file_and_unknown_spec": "three desyr processes",
    "test_cli.py::test_unknown_section_keys_and_stray_gate_options": "three desyr processes",
    "test_cli.py::test_abs_candidate_is_refit_not_a_crash": "a desyr process and its verifier",
    # installs a distribution with pip and runs its tests in a fresh interpreter
    "test_template.py::test_template_tests_pass_against_the_installed_copy": "pip install and a pytest process",
    "test_template.py::test_desyr_plugins_lists_the_template_gate": "pip install of the template",
    "test_oot_plugin.py::test_cli_run_recovers_the_exact_solution": "a whole run of the out-of-tree plugin",
    # over about 1 s (3 s on the loaded machine) in the fast tier's first profile (docs/benchmarks.md)
    **{f"test_cleaning_refit.py::{name}": "a refit of a reviewed conspiracy, or a refine with its verdict" for name in (
        "test_a_rate_that_matters_is_kept",
        "test_cleaning_note_reaches_result_json_and_report",
        "test_ode_system_like_terms_merge_to_sin_and_cos",
        "test_poly_poisson_conspiracy_becomes_the_polynomial",
    )},
    **{f"test_cli.py::{name}": "a refine and its verifier process" for name in (
        "test_a_directory_is_not_a_config",
        "test_refine_writes_result_and_report",
    )},
    **{f"test_exact_identify.py::{name}": "identifies the constants of a whole result" for name in (
        "test_identification_is_cheap_compared_to_a_run",
        "test_klein_gordon_gets_5_pi",
    )},
    **{f"test_export.py::{name}": "imports jax, or a Python process" for name in (
        "test_core_does_not_import_backends",
        "test_jax",
    )},
    **{f"test_figures.py::{name}": "draws the run figures (matplotlib)" for name in (
        "test_plain_array_figures",
        "test_run_figures_1d_with_teacher",
        "test_run_figures_2d_and_3d_slices",
    )},
    **{f"test_fuzz.py::{name}": "150 parser examples, or a whole refine" for name in (
        "test_base_config_is_valid",
        "test_fuzz_parse_expression",
    )},
    **{f"test_hooks.py::{name}": "loads and checks every bundled problem" for name in (
        "test_hook_desyr_load_problem",
    )},
    **{f"test_layout.py::{name}": "a Python process per check, or the whole import graph" for name in (
        "test_core_imports_no_heavy_library",
        "test_the_coupled_path_and_the_stages_do_not_import_the_api",
        "test_the_verifier_reaches_no_plugin_machinery",
    )},
    **{f"test_oot_plugin.py::{name}": "pip install of the out-of-tree plugin" for name in (
        "test_cli_plugins_lists_the_four_components",
        "test_cli_problems_lists_the_package_problem",
        "test_gate_keeps_candidates_within_the_limit",
        "test_in_process_registration_and_contracts",
        "test_installed_distribution_and_entry_point",
        "test_refiner_recovers_constants_from_the_physics",
        "test_searcher_front_has_increasing_sparsity",
        "test_searcher_vocabulary_and_budget",
        "test_teacher_in_two_variables_and_a_nonlinear_equation",
        "test_teacher_solves_a_linear_pde_without_the_reference",
    )},
    **{f"test_parts.py::{name}": "parses every module of desyr/ and plugins/ (the whole import graph)" for name in (
        "test_no_import_circle_anywhere",
        "test_no_import_runs_up_the_floors",
        "test_no_never_rule_is_broken",
        "test_the_graph_holds_lazy_relative_and_typing_imports",
    )},
    **{f"test_parameterize.py::{name}": "150 SymPy examples" for name in (
        "test_parameterize_then_substitute_is_identity",
    )},
    **{f"test_platform.py::{name}": "whole runs" for name in (
        "test_python_calls_run_units_in_process_by_default",
        "test_typed_result_round_trips",
    )},
    **{f"test_plugins.py::{name}": "loads every bundled problem" for name in (
        "test_problem_hooks_that_raise_are_isolated",
    )},
    **{f"test_problem.py::{name}": "loads and checks every bundled problem" for name in (
        "test_bundled_library_has_every_paper_configuration",
        "test_manufactured_forcing_and_reference_constraints",
    )},
    **{f"test_refine_paper.py::{name}": "a paper refine and its verdict" for name in (
        "test_coefficient_corrections",
        "test_misspecified_library_is_flagged",
    )},
    **{f"test_search_dictionary.py::{name}": "dictionary searches on large point sets" for name in (
        "test_a_field_outside_the_span_is_rejected",
        "test_klein_gordon_needs_total_degree_six",
        "test_same_seed_same_front_and_seeds_differ_on_subsamples",
    )},
    **{f"test_store.py::{name}": "a desyr run killed and resumed" for name in (
        "test_killed_run_resumes_without_redoing_finished_units",
    )},
    **{f"test_teacher_balancing.py::{name}": "trains a real PINN" for name in (
        "test_annealing_moves_constraint_weights_and_records_them",
        "test_fixed_msffn_trains",
        "test_stall_escalates_to_msffn_and_the_cache_reloads_it",
    )},
    **{f"test_teacher_light.py::{name}": "a Python process importing the plugins" for name in (
        "test_registered_and_plugins_import_cheaply",
    )},
    **{f"test_teacher_pipeline.py::{name}": "a whole run or refine" for name in (
        "test_callable_teacher_drives_refine_cli",
        "test_refine_without_teacher_reports_gate_inactive",
        "test_samples_teacher_drives_refine",
        "test_samples_teacher_drives_run",
    )},
    **{f"test_trust_bench.py::{name}": "a bench driver and its child, signalled" for name in (
        "test_child_dies_with_the_bench",
    )},
    **{f"test_trust_components.py::{name}": "a whole run with a hostile component, and its verdict" for name in (
        "test_a_patched_verifier_call_is_caught_by_desyr_verify",
        "test_forgery_of_the_review_cannot_make_wrong_exact",
        "test_gate_cannot_choose_the_verification_seed",
        "test_gate_cannot_loosen_the_exact_tolerance",
        "test_gate_cannot_verify_what_the_reported_text_is_not",
        "test_hostile_searcher_members_are_dropped",
        "test_teacher_cannot_choose_the_verification_seed",
        "test_teacher_cannot_loosen_the_exact_tolerance",
        "test_teacher_does_not_change_the_callers_problem",
        "test_unreadable_searcher_member_is_dropped_not_fatal",
    )},
    **{f"test_trust_configs.py::{name}": "a whole refine" for name in (
        "test_config_title_with_a_right_to_left_override_is_inert_in_report",
    )},
    **{f"test_trust_results.py::{name}": "reads, re-verifies and exports a result" for name in (
        "test_the_fixture_still_reads_and_exports",
    )},
    **{f"test_trust_runtime.py::{name}": "whole runs" for name in (
        "test_a_late_failure_keeps_finished_units_for_resume",
        "test_only_desyr_files_leave_a_desyr_store",
        "test_refiner_timeout_may_be_inf",
        "test_written_files_get_the_mode_open_would_give",
    )},
    **{f"test_trust_store.py::{name}": "whole runs through the CLI" for name in (
        "test_a_malformed_record_is_computed_again_with_one_warning",
    )},
    **{f"test_trust_teachers.py::{name}": "a desyr process" for name in (
        "test_cli_config_alone_cannot_run_a_shell_command",
    )},
    **{f"test_verify.py::{name}": "a whole verification in the verifier process" for name in (
        "test_a_result_carrying_a_different_config_than_its_source_is_flagged",
        "test_a_verifier_crash_is_one_line",
        "test_abs_of_a_one_signed_quantity_is_smooth_and_provable",
        "test_an_exact_form_that_agrees_is_proved",
        "test_an_exact_form_that_disagrees_proves_nothing",
        "test_bad_requests_are_one_line_errors",
        "test_desyr_verify_candidate",
        "test_desyr_verify_result_ignores_a_hand_edited_verdict",
        "test_exact_and_export_reverify_a_hand_edited_result",
        "test_exact_constants_are_proved",
        "test_float_constants_are_verified_not_proved_and_say_why",
        "test_kinked_candidate_is_not_smooth_enough",
        "test_residuals_at_roundoff_of_a_non_solution_are_not_proved",
        "test_result_and_export_targets_that_are_not_regular_files",
        "test_result_carries_the_config_and_the_verifiers_answer",
        "test_wrong_formula_is_not_exact",
    )},
    # over about 1 s in the second profile of the fast tier
    **{f"test_coupled.py::{name}": "Kovasznay group refits" for name in (
        "test_group_gates_choose_by_group_numbers",
        "test_augmentation_builds_candidates_with_the_shared_rate_and_its_multiples",
    )},
    **{f"test_fuzz_results.py::{name}": "20 results loaded and evaluated" for name in (
        "test_fuzz_load_result",
    )},
    **{f"test_problem.py::{name}": "checks every bundled reference against its problem" for name in (
        "test_every_bundled_reference_solves_its_problem",
    )},
    **{f"test_refine_paper.py::{name}": "a paper refine and its verdict" for name in (
        "test_problem_without_constraints_has_no_R_con",
    )},
    **{f"test_refit_polish.py::{name}": "paper refits to round-off" for name in (
        "test_polish_takes_an_early_stop_to_round_off",
    )},
    **{f"test_search_dictionary.py::{name}": "dictionary searches on large point sets, or a whole run" for name in (
        "test_a_noisy_teacher_keeps_the_exact_support_on_the_front",
        "test_the_burgers_front_is_rejected",
        "test_without_plus_a_member_is_one_term",
        "test_recovers_a_decaying_sine",
        "test_whole_run_with_the_dictionary_searcher",
        "test_budget_keys_are_ignored_or_applied",
        "test_without_times_a_term_is_one_factor",
        "test_three_variables",
        "test_recovers_a_sparse_trig_polynomial",
    )},
    **{f"test_studies.py::{name}": "a study over the fixture bench (refits and figures)" for name in (
        "test_coverage_pools_the_first_k_searches",
        "test_no_plots_writes_no_png",
        "test_gates_removing_convergence_exposes_a_worse_worst_case",
        "test_correction_from_bench",
        "test_convergence_audit_matches_the_fixture",
        "test_cost_table_from_the_fixture",
    )},
    **{f"test_teacher_balancing.py::{name}": "trains a real PINN" for name in (
        "test_hand_set_weights_win",
    )},
    **{f"test_verify.py::{name}": "a verifier process" for name in (
        "test_the_verifier_process_imports_no_plugin_and_no_registry",
        "test_desyr_verify_candidate_errors_are_one_line",
    )},
    # notebooks, pages, distributions (issue 25)
    "test_report_html.py": "a whole (stage-0) run, and a real headless Chromium",
    "test_notebook.py": "a Jupyter kernel running the example notebook",
    "test_packaging.py": "python -m build, a fresh venv and a pip install",
    "test_builder.py::test_every_bundled_problem_round_trips_through_toml": "every bundled problem read twice",
    "test_builder.py::test_the_same_results_from_sympy_and_from_toml": "whole runs, each problem twice",
    "test_handbook_set.py::test_stage_0_alone_settles_nothing":
        "the SymPy solvers (up to their 10 s limit each) and Stage B on each problem of a set",
    "test_drawer.py::test_run_from_python_starts_no_spare": "a whole (stage-0) run",
}

CLI_CALLS = {"main", "cli", "refine_cli", "run_cli"}


def _is_slow_mark(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Attribute) and node.attr == "slow" and ast.unparse(node) == "pytest.mark.slow"


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


@cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def module(path: Path) -> tuple[bool, dict[str, ast.FunctionDef]]:
    """(every test in the module is slow, its test functions by name)"""
    slow = False
    tests = {}
    for node in tree(path).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                 for t in node.targets):
            marks = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            slow = any(_is_slow_mark(m) for m in marks)
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            tests[node.name] = node
    return slow, tests


def is_slow(path: Path, test: ast.FunctionDef) -> bool:
    return module(path)[0] or any(_is_slow_mark(d) for d in test.decorator_list)


def _modules() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def test_known_heavy_tests_are_marked_slow():
    name_of_this_file = Path(__file__).name
    problems = []
    for entry, why in sorted(HEAVY.items()):
        filename, _, name = entry.partition("::")
        path = TESTS / filename
        if not path.is_file():
            problems.append(f"{entry}: no such test module (update HEAVY in {name_of_this_file})")
            continue
        slow, tests = module(path)
        if not name:
            if not slow:
                problems.append(f"{filename} is heavy ({why}): give it pytestmark = pytest.mark.slow")
        elif name not in tests:
            problems.append(f"{entry}: no such test (update HEAVY in {name_of_this_file})")
        elif not is_slow(path, tests[name]):
            problems.append(f"{entry} is heavy ({why}): mark it @pytest.mark.slow")
    assert not problems, "\n".join(problems)
    this = module(Path(__file__))[1]["test_known_heavy_tests_are_marked_slow"]
    assert not is_slow(Path(__file__), this)          # the check can tell a fast test from a slow one


def test_fuzzing_through_the_command_line_is_slow():
    """A hypothesis test whose examples each run ``desyr`` (in process or not) is in the full tier only."""
    fast = []
    for path in _modules():
        for name, test in module(path)[1].items():
            fuzz = any(_name(d) == "given" for d in test.decorator_list)
            calls = {_name(n) for n in ast.walk(test) if isinstance(n, ast.Call)}
            if fuzz and calls & CLI_CALLS and not is_slow(path, test):
                fast.append(f"{path.name}::{name}")
    assert not fast, f"fuzzing through the CLI, mark them @pytest.mark.slow: {fast}"


def test_a_dask_cluster_is_slow():
    fast = []
    for path in _modules():
        if any(isinstance(n, ast.Call) and _name(n) == "LocalCluster" for n in ast.walk(tree(path))):
            slow, tests = module(path)
            fast += [f"{path.name}::{n}" for n, t in tests.items() if not is_slow(path, t)]
    assert not fast, f"these start a Dask cluster (or share one), mark them slow: {fast}"


def test_the_marker_is_declared_and_strict():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("slow:") for m in options["markers"])
    assert "--strict-markers" in options["addopts"].split()       # a misspelt marker is an error, not a fast test


def test_the_fast_tier_is_a_pytest_option_and_a_dev_flag():
    conftest = (TESTS / "conftest.py").read_text(encoding="utf-8")
    assert 'addoption("--fast"' in conftest and 'get_closest_marker("slow")' in conftest
    assert "--fast" in (ROOT / "dev").read_text(encoding="utf-8")
    assert "./dev test --fast" in (ROOT / "README.md").read_text(encoding="utf-8")
