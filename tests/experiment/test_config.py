"""Experiment configurations: the shipped YAML files and every way a configuration can be wrong."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from acfs_cli.experiment.config import Config, ConfigError, bounded, excerpt, load, parse
from acfs_cli.experiment.grid import build_cells

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
PAPER_METHODS = ["acfs", "gp-bo", "cem-so", "sgd-cvar", "kde-so"]

MINIMAL = """\
name: t
budget: 3000
replications: 2
grid:
  dgp: [dgp1]
  lambda: [0.7]
  method: [acfs]
"""


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_main_config_is_the_papers_main_study_plus_saa_ps_and_acfs_plus():
    c = load(CONFIGS / "main.yaml")
    assert c.kind == "comparison"
    assert c.grid.problem == ["dgp1", "dgp2"]
    assert c.grid.lam == [0.5, 0.7, 0.9]
    assert c.grid.method == [*PAPER_METHODS, "saa-ps", "acfs-plus"]
    assert c.reps == list(range(100))
    assert (c.budget, c.alpha) == (260_000, 0.95)
    assert (c.final_eval.draws, c.final_eval.bootstrap) == (2000, 400)
    assert c.final_eval.precise_draws == 200_000
    assert c.output_dir == Path("results/main")


def test_ablation_config_compares_acfs_with_its_four_variants():
    c = load(CONFIGS / "ablation.yaml")
    assert c.kind == "ablation"
    assert c.grid.problem == ["dgp1", "dgp2"] and c.grid.lam == [0.7]
    assert c.grid.method == ["acfs", "acfs-noav", "acfs-nocem", "acfs-norerank", "acfs-noaug"]
    assert len(c.reps) == 50 and c.budget == 260_000


def test_sensitivity_config_lists_each_default_once_per_parameter():
    from acfs_cli.methods.registry import get_method

    c = load(CONFIGS / "sensitivity.yaml")
    assert c.kind == "sensitivity" and c.sensitivity.method == "acfs"
    assert c.grid.problem == ["dgp1"] and c.grid.lam == [0.7] and len(c.reps) == 20
    assert c.sensitivity.params == {
        "n_a": [800, 1200, 1600], "n_f": [400, 800, 1200], "k": [2, 4, 6], "n_d": [300, 450, 600]
    }
    defaults = get_method("acfs").parameters()
    for name, values in c.sensitivity.params.items():
        assert values.count(defaults[name]) == 1, name


def test_quick_config_runs_all_five_methods_saa_ps_and_acfs_plus_on_both_benchmarks():
    c = load(CONFIGS / "quick.yaml")
    assert c.grid.method == [*PAPER_METHODS, "saa-ps", "acfs-plus"]
    assert c.grid.problem == ["dgp1", "dgp2"]
    assert c.grid.lam == [0.7] and c.reps == [0, 1, 2] and c.budget == 260_000


def test_defaults_follow_the_paper(tmp_path):
    c = load(write(tmp_path, "name: t\ngrid: {dgp: dgp2, lambda: 0.5, method: kde-so}\n"))
    assert c.grid.problem == ["dgp2"] and c.grid.lam == [0.5] and c.grid.method == ["kde-so"]
    assert (c.alpha, c.budget, len(c.reps)) == (0.95, 260_000, 100)
    assert (c.final_eval.draws, c.final_eval.bootstrap, c.final_eval.precise_draws) == (
        2000, 400, None
    )
    assert c.kind == "comparison" and c.n_jobs == -1


def test_replications_as_explicit_indices(tmp_path):
    c = load(write(tmp_path, MINIMAL.replace("replications: 2", "replications: [4, 9, 2]")))
    assert c.reps == [4, 9, 2]


def test_overrides_replace_top_level_keys_before_validation(tmp_path):
    path = write(tmp_path, MINIMAL)
    c = load(path, {"replications": 5, "output": "elsewhere", "n_jobs": None})
    assert c.reps == list(range(5)) and c.output_dir == Path("elsewhere") and c.n_jobs == -1
    with pytest.raises(ConfigError, match="replications"):
        load(path, {"replications": 0})


def test_config_hash_ignores_where_and_how_fast_but_not_what(tmp_path):
    base = parse({"name": "t", "grid": {"problem": "dgp1", "lambda": 0.7, "method": "acfs"}})
    same = base.model_copy(update={"output": Path("x"), "n_jobs": 2})
    assert same.config_hash() == base.config_hash()
    other = parse({"name": "t", "budget": 5, "grid": {"problem": "dgp1", "lambda": 0.7,
                                                     "method": "acfs"}})
    assert other.config_hash() != base.config_hash()


def test_import_path_problem_is_accepted(tmp_path):
    path = write(tmp_path, MINIMAL.replace("[dgp1]", "['acfs_cli.problems.dgp2:DGP2']"))
    assert load(path).grid.problem == ["acfs_cli.problems.dgp2:DGP2"]


def test_sensitivity_values_are_validated_by_the_methods_settings(tmp_path):
    text = """\
    name: s
    kind: sensitivity
    grid: {dgp: [dgp1], lambda: [0.7]}
    sensitivity: {method: acfs, params: {n_a: [800, 0]}}
    """
    with pytest.raises(ConfigError, match=r"sensitivity\.params\.n_a"):
        load(write(tmp_path, text))


BAD = {
    "unknown top-level key": ("name: t\nbudgett: 5\n" + MINIMAL[8:], "unknown key 'budgett'"),
    "unknown nested key": (MINIMAL + "  methd: [acfs]\n", "grid: unknown key 'methd'"),
    "unknown final_eval key": (MINIMAL + "final_eval: {drawz: 5}\n", "final_eval: unknown key"),
    "unknown dgp": (MINIMAL.replace("[dgp1]", "[dgp9]"), "unknown problem 'dgp9'.*dgp1, dgp2"),
    "unimportable problem": (MINIMAL.replace("[dgp1]", "['no_such_mod:P']"), "cannot import"),
    "unknown method": (MINIMAL.replace("[acfs]", "[acfz]"), "unknown method 'acfz'.*cem-so"),
    "negative lambda": (MINIMAL.replace("[0.7]", "[0.7, -0.5]"), r"grid\.lambda.*>= 0"),
    "alpha one": (MINIMAL + "alpha: 1.0\n", "alpha must lie strictly between 0 and 1"),
    "alpha zero": (MINIMAL + "alpha: 0\n", "alpha must lie strictly between 0 and 1"),
    "budget zero": (MINIMAL.replace("budget: 3000", "budget: 0"), "budget"),
    "budget text": (MINIMAL.replace("budget: 3000", "budget: lots"), "budget"),
    "replications zero": (MINIMAL.replace("replications: 2", "replications: 0"), "replications"),
    "replications negative index": (
        MINIMAL.replace("replications: 2", "replications: [1, -2]"), "replication"
    ),
    "replications empty list": (
        MINIMAL.replace("replications: 2", "replications: []"), "must not be empty"
    ),
    "empty dgp list": (MINIMAL.replace("[dgp1]", "[]"), r"grid\.dgp"),
    "empty method list": (MINIMAL.replace("[acfs]", "[]"), "must not be empty"),
    "empty lambda list": (MINIMAL.replace("[0.7]", "[]"), r"grid\.lambda"),
    "no grid": ("name: t\n", "grid: required key is missing"),
    "no name": (MINIMAL.replace("name: t\n", ""), "name: required key is missing"),
    "name with a slash": (MINIMAL.replace("name: t", "name: a/b"), "folder name"),
    "duplicate method": (MINIMAL.replace("[acfs]", "[acfs, acfs]"), "twice"),
    "duplicate key": (MINIMAL + "budget: 5\n", "duplicate key 'budget'"),
    "unknown parameter": (MINIMAL + "methods: {acfs: {n_zz: 3}}\n",
                          r"methods\.acfs: method 'acfs' has no parameter n_zz"),
    "bad parameter value": (MINIMAL + "methods: {acfs: {n_a: -3}}\n", r"methods\.acfs: n_a"),
    "fixed parameter of a variant": (
        MINIMAL + "methods: {acfs-noav: {antithetic: true}}\n", "fixes antithetic"
    ),
    "overrides for an unknown method": (MINIMAL + "methods: {acfz: {}}\n", "unknown method"),
    "sensitivity block outside a sensitivity study": (
        MINIMAL + "sensitivity: {params: {n_a: [1]}}\n", "needs kind: sensitivity"
    ),
    "sensitivity study without its block": (
        MINIMAL + "kind: sensitivity\n", "needs a 'sensitivity' block"
    ),
    "unknown kind": (MINIMAL + "kind: survey\n", "kind"),
    "zero n_jobs": (MINIMAL + "n_jobs: 0\n", "n_jobs"),
    "budget beyond int64": (MINIMAL.replace("budget: 3000", "budget: 9223372036854775808"),
                            "budget: Input should be less than or equal to 1000000000"),
    "budget beyond what memory holds": (MINIMAL.replace("budget: 3000", "budget: 1000000000000"),
                                        "budget: Input should be less than or equal to 1000000000"),
    "budget as a float": (MINIMAL.replace("budget: 3000", "budget: 1000.0"),
                          "budget: Input should be a valid integer"),
    "seed true": (MINIMAL + "seed: true\n", r"seed: Input should be a valid integer \(got True\)"),
    "seed as text": (MINIMAL + "seed: '5'\n", "seed: Input should be a valid integer"),
    "replications true": (MINIMAL.replace("replications: 2", "replications: true"),
                          "replications: Input should be a valid integer"),
    "replication index true": (MINIMAL.replace("replications: 2", "replications: [0, true]"),
                               "replications: Input should be a valid integer"),
    "replications beyond the cap": (
        MINIMAL.replace("replications: 2", "replications: 1000000000"),
        "1,000,000,000 replications are more than one run may hold"),
    "grid beyond the cap": (
        MINIMAL.replace("replications: 2", "replications: 100000").replace(
            "[acfs]", "[acfs, kde-so, cem-so]"),
        "the grid has 300,000 cells, more than the 200,000"),
    "lambda true": (MINIMAL.replace("[0.7]", "[true]"), r"grid\.lambda\[0\]: Input should be"),
    "alpha true": (MINIMAL + "alpha: true\n", "alpha: Input should be a valid number"),
    "n_jobs true": (MINIMAL + "n_jobs: true\n", "n_jobs: Input should be a valid integer"),
    "method parameter true": (MINIMAL + "methods: {cem-so: {n_iter: true}}\n",
                              r"methods\.cem-so: n_iter: Input should be a valid integer"),
    "method parameter as text": (MINIMAL + "methods: {cem-so: {n_iter: '12'}}\n",
                                 r"methods\.cem-so: n_iter: Input should be a valid integer"),
    "method parameter beyond int64": (
        MINIMAL + "methods: {cem-so: {n_iter: 9223372036854775808}}\n",
        r"methods\.cem-so: n_iter: 9223372036854775808 does not fit in 64 bits"),
    "sensitivity value true": (
        "name: s\nkind: sensitivity\ngrid: {dgp: dgp1, lambda: 0.7}\n"
        "sensitivity: {params: {n_a: [800, true]}}\n",
        r"sensitivity\.params\.n_a: n_a: Input should be a valid integer"),
    "final draws below the CVaR tail": (MINIMAL + "final_eval: {draws: 1}\n",
                                        "final_eval.draws: 1 draws leave fewer than 10 in the "
                                        "CVaR tail at alpha 0.95; at least 200 are needed"),
    "precise draws below the CVaR tail": (
        MINIMAL + "final_eval: {precise_draws: 199}\n", "final_eval.precise_draws: 199 draws"),
    "final draws below the tail at alpha 0.99": (
        MINIMAL + "alpha: 0.99\nfinal_eval: {draws: 999}\n", "at least 1,000 are needed"),
    "empty output": (MINIMAL + "output: ''\n", "output: must name a folder"),
    "blank output": (MINIMAL + "output: '  '\n", "output: must name a folder"),
    "malformed yaml": ("name: t\ngrid: [dgp1\n", r"malformed YAML: line \d+"),
    "tab indentation": ("name: t\ngrid:\n\tdgp: x\n", "malformed YAML"),
    "empty file": ("", "the file is empty"),
    "top-level list": ("- a\n- b\n", "expected a mapping"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_configuration_is_one_line_naming_the_problem(tmp_path, case):
    text, pattern = BAD[case]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=pattern) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))


def test_final_draws_at_the_tail_minimum_are_accepted(tmp_path):
    # Ten draws in the CVaR tail: 200 at alpha 0.95, 1,000 at 0.99.
    assert load(write(tmp_path, MINIMAL + "final_eval: {draws: 200, precise_draws: 200}\n"))
    assert load(write(tmp_path, MINIMAL + "alpha: 0.99\nfinal_eval: {draws: 1000}\n"))


def test_integers_at_their_limits_are_accepted(tmp_path):
    limit = 2**63 - 1
    c = load(write(tmp_path, MINIMAL.replace("budget: 3000", "budget: 1000000000")
                   + f"seed: {limit}\n"))
    assert (c.budget, c.seed) == (10**9, limit)


def test_the_largest_budget_of_a_configuration_is_the_oracles():
    from acfs_cli.core import oracle
    from acfs_cli.experiment.config import MAX_BUDGET

    assert MAX_BUDGET == oracle.MAX_BUDGET


def test_an_alias_bomb_fails_fast_in_one_short_line_with_little_memory(tmp_path):
    import time
    import tracemalloc

    # Nine levels of nine aliases: 9^9 (387 million) values from a file of a few hundred bytes.
    levels = ["&l0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    text = MINIMAL + f"methods: {{cem-so: {{smoothing: [{', '.join(levels)}]}}}}\n"
    path = write(tmp_path, text)
    assert path.stat().st_size < 600
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="expands to more than 100,000 values") as info:
        load(path)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # expanded, the aliases would take minutes and gigabytes; refused, milliseconds on any machine
    assert elapsed < 10.0 and peak < 20e6
    # short beside the file's path, which is as long as the machine's temporary folder
    message = str(info.value).replace(str(path), "<path>")
    assert len(message) < 200 and "\n" not in message


def test_a_recursive_alias_is_refused_in_one_line(tmp_path):
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, MINIMAL + "methods: {cem-so: {smoothing: &a [1, *a]}}\n"))
    assert "\n" not in str(info.value) and len(str(info.value)) <= 400


def test_deep_nesting_is_refused_in_one_line(tmp_path):
    text = MINIMAL + "methods: {cem-so: {smoothing: " + "[" * 20_000 + "]" * 20_000 + "}}\n"
    with pytest.raises(ConfigError, match="nested too deeply|malformed YAML"):
        load(write(tmp_path, text))


@pytest.mark.parametrize("where", ["name", "method setting", "problem", "unknown key"])
def test_a_huge_value_is_quoted_as_a_short_excerpt(tmp_path, where):
    huge = "q" * 10_000_000
    text = {
        "name": MINIMAL.replace("name: t", f"name: '{huge}'"),
        "method setting": MINIMAL + f"methods: {{cem-so: {{polish_start: '{huge}'}}}}\n",
        "problem": MINIMAL.replace("[dgp1]", f"['{huge}']"),
        "unknown key": MINIMAL + f"{huge}: 1\n",
    }[where]
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text))
    message = str(info.value)
    assert len(message) <= 400 and "\n" not in message
    assert "q" * 81 not in message


def test_excerpt_and_bounded_keep_messages_short():
    assert excerpt("x" * 1000) == repr("x" * 80) + "... (1,000 characters)"
    assert len(excerpt(list(range(10**6)))) < 100
    assert bounded("a\nb   c") == "a b c"
    assert len(bounded("y " * 10_000)) == 400


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not a file"):
        load(tmp_path)


def test_config_is_frozen():
    c = parse({"name": "t", "grid": {"problem": "dgp1", "lambda": 0.7, "method": "acfs"}})
    with pytest.raises(ValueError):
        c.budget = 3
    assert isinstance(c, Config)


def test_a_budget_below_a_methods_minimum_is_one_line_naming_it(tmp_path):
    text = MINIMAL.replace("budget: 3000", "budget: 1500").replace("[acfs]", "[acfs, gp-bo]")
    with pytest.raises(ConfigError, match=r"budget 1,500 is below acfs's minimum of 1,730 draws "
                                          r"on the 6-dimensional problem dgp1 "
                                          r"\(below_minimum: skip leaves such cells out\)$"):
        load(write(tmp_path, text))


def test_below_minimum_skip_leaves_out_only_the_cells_a_method_refuses(tmp_path):
    text = (MINIMAL.replace("budget: 3000", "budget: 1500").replace("[acfs]", "[acfs, gp-bo]")
            + "below_minimum: skip\n")
    config = load(write(tmp_path, text))
    cells = build_cells(config)
    assert {c.method for c in cells} == {"gp-bo"}  # acfs needs 1,730 draws here
    assert config.n_cells() == 2 * len(cells)


def test_problems_with_parameters_and_a_budget_axis_define_their_cells(tmp_path):
    from acfs_cli.experiment.grid import build_cells

    text = """\
name: t
replications: 2
checkpoints: [1, 0.1, 0.5]
grid:
  dgp:
    - dgp2
    - {problem: performative-pricing, params: {dim: 4}}
    - {problem: dgp1, sample_only: true, label: dgp1-box}
  lambda: 0.7
  budget: [13000, 26000]
  method: [saa-ps]
"""
    config = load(write(tmp_path, text))
    assert config.checkpoints == [0.1, 0.5, 1.0]
    cells = build_cells(config)
    assert len(cells) == 2 * 3 * 2
    names = {c.problem for c in cells}
    assert names == {"dgp2", "performative-pricing(dim=4)", "dgp1-box"}
    by_name = {c.problem: c for c in cells}
    assert by_name["performative-pricing(dim=4)"].problem_params == (("dim", 4),)
    assert by_name["dgp1-box"].problem_params == (("sample_only", True),)
    assert by_name["dgp2"].problem_name == "" and {c.budget for c in cells} == {13000, 26000}
    assert all(c.checkpoints == (0.1, 0.5, 1.0) for c in cells)


@pytest.mark.parametrize(("entry", "message"), [
    ("{problem: performative-pricing, params: {dimm: 4}}", "cannot be built: TypeError"),
    ("{problem: performative-pricing, params: {dim: -1}}", "cannot be built"),
    ("{problem: tandem-mm1, sample_only: true}", "sample-only already"),
    ("{problem: dgp1, colour: red}", "unknown key 'colour'"),
])
def test_a_bad_problem_entry_is_one_line(tmp_path, entry, message):
    text = MINIMAL.replace("dgp: [dgp1]", f"dgp: [{entry}]")
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, text))


def test_a_problem_file_beside_the_configuration_is_importable(tmp_path):
    (tmp_path / "myprob.py").write_text(
        "import numpy as np\n"
        "class Tiny:\n"
        "    dim_x, dim_w = 1, 1\n"
        "    bounds = [(0.0, 1.0)]\n"
        "    def transform(self, x, z):\n"
        "        return 0.1 * z\n"
        "    def cost(self, W, x):\n"
        "        return (x[0] - 0.4) ** 2 + W[:, 0]\n")
    text = MINIMAL.replace("dgp: [dgp1]", "dgp: ['myprob:Tiny']").replace("[acfs]", "[saa-ps]")
    config = load(write(tmp_path, text))
    assert config.source_dir == str(tmp_path.resolve())
