"""A user's own study, as a new user meets it: a sample-only simulator of two unbounded
decisions written in their folder, run by name, with scipy's conventions, from one command
line and through a small grid to the report.

The simulator has a closed form, so the answers are checked against it, not against the
code's own output: C(W, x) = |x - a|^2 + W with W = s(x) Z, Z ~ N(0, 1), s(x) = s0 + c x_1^2,
so E[C] = |x - a|^2, CVaR_alpha(C) = |x - a|^2 + s(x) k_alpha with k_alpha = phi(Phi^-1(alpha))
/ (1 - alpha), and J = (1 + lam) |x - a|^2 + lam k_alpha s(x).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import HAVE_SIMOPT
from scipy.stats import norm
from typer.testing import CliRunner

from acfs_cli.api import minimize
from acfs_cli.cli import app

LAM, ALPHA = 0.7, 0.95
K_ALPHA = norm.pdf(norm.ppf(ALPHA)) / (1 - ALPHA)

SHOP = '''
import numpy as np


class Shop:
    """Two prices shift the spread of the day's result; neither has an upper bound."""

    dim_x, dim_w = 2, 1
    bounds = [(None, None), (0.0, None)]  # scipy's convention: None is no bound
    x0 = [0.0, 2.0]
    a = np.array([1.0, 0.5])

    def __init__(self, c=0.5):  # c = 0: the spread no longer depends on the decision
        self.s0, self.c = 1.0, float(c)

    def sample(self, x, n, rng):
        return (self.s0 + self.c * x[0] ** 2) * rng.standard_normal((n, 1))

    def cost(self, W, x):
        return np.sum((x - self.a) ** 2) + W[:, 0]
'''


runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def exact_J(x, lam: float = LAM) -> float:
    x = np.asarray(x, dtype=float)
    return float((1 + lam) * np.sum((x - [1.0, 0.5]) ** 2)
                 + lam * K_ALPHA * (1.0 + 0.5 * x[0] ** 2))


@pytest.fixture
def shop(tmp_path, monkeypatch):
    """The user's folder, with shop.py in it, as the current folder and on the import path."""
    (tmp_path / "shop.py").write_text(SHOP)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import shop as module

    return importlib.reload(module)


# -- scipy's conventions --------------------------------------------------------------------
def test_none_bounds_are_infinite_bounds_as_in_scipy(shop):
    sol = minimize(shop.Shop(), budget=400, seed=1, n_eval=4_000)
    assert sol.x[1] >= 0.0 and sol.draws_used <= 400
    assert abs(sol.J - exact_J(sol.x)) < 4 * sol.J_se  # the estimate is J at x*
    assert exact_J(sol.x) < exact_J(shop.Shop.x0)  # 400 draws already improve on x0
    # the same problem with infinities: the same run, draw for draw
    inf = type("ShopInf", (shop.Shop,), {"bounds": [(-np.inf, np.inf), (0.0, np.inf)]})
    again = minimize(inf(), budget=400, seed=1, n_eval=4_000)
    assert np.array_equal(sol.x, again.x) and sol.J == again.J


@pytest.mark.parametrize("bounds, said", [
    ([(None, "high"), (0.0, None)], "(low, high) pairs of numbers"),
    ([(None, 1.0, 2.0), (0.0, None)], "(low, high) pairs"),
    ([(3.0, 1.0), (None, -1.0)], "pairs low <= high (None or infinite where X is unbounded)"),
])
def test_bounds_that_are_not_pairs_are_one_line_errors(shop, bounds, said):
    bad = type("Bad", (shop.Shop,), {"bounds": bounds, "x0": [3.0, -2.0]})
    with pytest.raises(ValueError, match=re.escape(said)) as caught:
        minimize(bad(), budget=400)
    assert "\n" not in str(caught.value)


def test_none_bounds_beside_a_projection_are_the_infinite_sides_of_its_box(shop):
    from acfs_cli.core.problem import as_problem

    projected = type("Projected", (shop.Shop,), {
        "project": lambda self, x: np.maximum(x, [-np.inf, 0.0])})
    lo, hi = as_problem(projected()).space.box()
    assert lo.tolist() == [-np.inf, 0.0] and hi.tolist() == [np.inf, np.inf]


# -- names where a problem is expected -------------------------------------------------------
def test_minimize_takes_a_problem_by_name_as_get_problem_does(shop):
    by_object = minimize(shop.Shop(), budget=400, seed=2, n_eval=2_000)
    by_path = minimize("shop:Shop", budget=400, seed=2, n_eval=2_000)
    assert np.array_equal(by_object.x, by_path.x) and by_object.J == by_path.J
    assert minimize("shop:Shop", budget=400, x0=[3.0, 3.0], n_eval=2_000).trajectory[0][1] \
        .tolist() == [3.0, 3.0]  # x0 replaces the problem's own start, as for an object
    benchmark = minimize("dgp1", budget=400, method="astro", n_eval=2_000)
    assert benchmark.x.shape == (6,) and benchmark.draws_used <= 400


@pytest.mark.skipif(not HAVE_SIMOPT, reason="the simopt extra is not installed")
def test_minimize_takes_a_simopt_problem_by_name():
    sol = minimize("simopt:CNTNEWS-1", lam=0.0, budget=200, n_eval=2_000)
    assert sol.x.shape == (1,) and sol.draws_used <= 200


@pytest.mark.parametrize("given, got", [
    (42, "got int 42"), (None, "got None"), (len, "got the function len"),
    ({"dim_x": 2}, "got dict {'dim_x': 2}"),
])
def test_something_that_is_not_a_problem_is_told_what_a_problem_is(given, got):
    with pytest.raises(ValueError) as caught:
        minimize(given, budget=400)
    message = str(caught.value)
    assert message.startswith("a problem is an object with dim_x and dim_w (positive integers)"
                              ", transform(x, z) or sample(x, n, rng), cost(W, x), and bounds")
    assert "'module:Class'" in message and message.endswith(got) and "\n" not in message


def test_a_class_in_place_of_a_problem_is_told_to_pass_an_instance(shop):
    with pytest.raises(ValueError, match=r"got the class Shop: pass an instance, Shop\(\)$"):
        minimize(shop.Shop, budget=400)


def test_an_unknown_name_is_one_line_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown problem 'warehouse'; known problems: dgp1, "
                       "dgp2"):
        minimize("warehouse", budget=400)  # nothing near it: no suggestion


# -- misspelt names: the nearest known one is suggested --------------------------------------
@pytest.mark.parametrize("kwargs, said", [
    ({"problem": "dgp_1"}, "unknown problem 'dgp_1' (did you mean 'dgp1'?)"),
    ({"problem": "shop:Shop", "method": "satro"}, "unknown method 'satro' (did you mean "
                                                  "'astro'?)"),
    ({"problem": "shop:Shop", "method": "astro", "kapa": 2.0},
     "method 'astro' has no parameter kapa (did you mean 'kappa'?); its parameters: radius0"),
    # auto passes astro's settings to its epochs: it takes them, and names its own too
    ({"problem": "shop:Shop", "method": "auto", "kapa": 2.0},
     "method 'auto' has no parameter kapa (did you mean 'kappa'?); its parameters: radius0"),
])
def test_a_misspelt_name_is_one_line_with_the_nearest_known_one(shop, kwargs, said):
    with pytest.raises(ValueError) as caught:
        minimize(budget=400, **kwargs)
    assert str(caught.value).startswith(said)


@pytest.mark.skipif(not HAVE_SIMOPT, reason="the simopt extra is not installed")
def test_a_misspelt_simopt_problem_is_told_the_nearest_abbreviation():
    with pytest.raises(ValueError, match=re.escape("'CNTNEWS1' (did you mean 'CNTNEWS-1'?)")):
        minimize("simopt:CNTNEWS1", budget=400)


def test_misspelt_configuration_keys_and_names_each_get_their_line(shop):
    Path("study.yaml").write_text(
        "name: study\nseed: 1\nbudget: 400\nreplicatons: 2\n"
        "grid:\n  problem: [shop:Shop]\n  lambda: [0.7]\n  method: [astr]\n"
        "methods: {astro: {kapa: 2}}\n")
    result = invoke("run", "study.yaml")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: study.yaml:4: unknown key 'replicatons' (did you mean "
                               "'replications'?) (allowed: name,")
    assert lines[1].startswith("error: study.yaml:8: grid.method: unknown method 'astr' (did "
                               "you mean 'astro'?)")
    assert lines[2].startswith("error: study.yaml:9: methods.astro: method 'astro' has no "
                               "parameter kapa (did you mean 'kappa'?)")


def test_version_prints_the_installed_version():
    from importlib.metadata import version

    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout == f"acfs {version('acfs')}\n"


# -- a call imports what it runs -------------------------------------------------------------
def test_importing_the_api_imports_no_method_and_a_call_imports_what_it_runs(shop):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import acfs_cli.api as api\n"
        "heavy = ('acfs_cli.methods', 'acfs_cli.problems', 'scipy.optimize', 'sklearn', "
        "'pandas', 'rich')\n"
        "print(*[m for m in heavy if m in sys.modules])\n"
        "sol = api.minimize('shop:Shop', budget=460, n_eval=200, lam=0.0, method='gp-bo')\n"
        "print(sol.draws_used, 'skopt' in sys.modules, 'acfs_cli.methods.acfs' in sys.modules)\n"
    )
    # scikit-optimize, imported by GP-BO's search, moves Python's random state on its first
    # import: loaded before the search guard looks, it does not fail the search
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["", "460 True False"]


# -- a piped progress bar ends as a finished search --------------------------------------------
def test_a_piped_progress_bar_ends_its_line_full_beside_the_draws_used(shop, monkeypatch):
    import io
    import sys

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    # an odd budget: every sample is of antithetic pairs, so the search leaves a draw unused
    sol = minimize("shop:Shop", budget=1_499, n_eval=2_000, progress="always")
    text = piped.getvalue()
    assert text.endswith("\n") and sol.draws_used < 1_499  # the search left draws unused
    last = text.splitlines()[-1].split()
    # a full bar (rich's colour of a finished task, not the red of one under way), the
    # draws the search used out of its budget, the incumbent it ended with
    assert last[:3] == ["done", "\u2501" * 30, f"{sol.draws_used:,}/1,499"]
    assert last[4:6] == ["incumbent", f"{sol.value:.6g}"]


def test_status_splits_its_counts_by_budget_where_a_study_has_several(shop):
    Path("budgets.yaml").write_text(
        "name: budgets\nseed: 1\nbudget: 400\nreplications: 2\ngrid:\n"
        "  problem: [shop:Shop, {problem: 'shop:Shop', label: shop, budget: [300, 600]}]\n"
        "  lambda: [0.7]\n  method: [astro]\n")
    result = invoke("status", "budgets.yaml")
    assert result.exit_code == 0, result.output
    rows = [line.replace("│", " ").split() for line in result.stdout.splitlines()
            if "ASTRO" in line]
    assert [row[:3] for row in rows] == [["shop:Shop", "0.7", "400"], ["shop", "0.7", "300"],
                                         ["shop", "0.7", "600"]]
    assert all(row[-3:] == ["0", "0", "2"] for row in rows)  # done, failed, missing


# -- an answer no better than x0 says so ---------------------------------------------------------
def test_minimize_estimates_x0_on_the_same_draws_as_x_star(shop):
    sol = minimize("shop:Shop", budget=400, seed=4, n_eval=20_000)
    # J(x0) in closed form: 1.7 (1 + 2.25) + 0.7 k_alpha; J_x0 is its estimate on the
    # 20,000 draws behind J (the spread at x0 is 1, the standard error about 0.02)
    assert sol.J_x0 == pytest.approx(exact_J([0.0, 2.0]), abs=0.1)
    assert sol.J < sol.J_x0 and not any("no better than x0" in n for n in sol.notes)


def test_an_answer_no_better_than_x0_says_so_in_its_notes(shop):
    # Without decision-dependent spread (c = 0) the estimate of J on common draws is
    # (1 + lam) |x - a|^2 plus one constant: started at the optimum a, every other answer is
    # worse on the same draws, and x0 itself equal
    flat = shop.Shop(c=0.0)
    sol = minimize(flat, budget=600, seed=1, x0=[1.0, 0.5], method="kde-so")
    assert not np.array_equal(sol.x, [1.0, 0.5]) and sol.J > sol.J_x0
    assert sol.notes[-1] == (f"no better than x0: J(x*) = {sol.J:.6g}, J(x0) = "
                             f"{sol.J_x0:.6g} on the same 20,000 fresh draws")
    stay = minimize(flat, budget=600, seed=1, x0=[1.0, 0.5], method=STAY)
    assert stay.J == stay.J_x0 and stay.notes[-1].startswith("no better than x0")


def _stay(task, oracle, settings, rng):
    from acfs_cli.methods import MethodResult

    return MethodResult(x=task.x0)


def _stay_method():
    from acfs_cli.methods import Method, Settings

    return Method("stay", Settings, _stay, summary="answers with its start")


STAY = "test_user_study:STAY_METHOD"
STAY_METHOD = _stay_method()


# -- a study of the user's own: a grid, reference optima, the report ---------------------------
STUDY = """\
name: study
seed: 3
budget: 600
replications: 5
n_jobs: 1
checkpoints: [0.5, 1]
final_eval: {draws: 1000, bootstrap: 100, precise_draws: 20000}
grid:
  problem:
    - {problem: "shop:Shop", label: shop}
    - {problem: "shop:Shop", params: {c: 0.0}, x0: [1.0, 0.5], label: flat}
  lambda: [0.7]
  method: [auto, saa-ps, "mine:STAY"]
"""

#: The user's own method beside their configuration: it answers with its start.
MINE = """\
from acfs_cli.methods import Method, MethodResult, Settings


def stay(task, oracle, settings, rng):
    return MethodResult(x=task.x0)


STAY = Method("stay", Settings, stay, summary="answers with its start")
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """The user's folder after `acfs run` and `acfs reference` of their study: the folder and
    what each command printed."""
    folder = tmp_path_factory.mktemp("study")
    (folder / "shop.py").write_text(SHOP)
    (folder / "mine.py").write_text(MINE)
    (folder / "study.yaml").write_text(STUDY)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.syspath_prepend(str(folder))
        run = invoke("run", "study.yaml", "-q")
        assert run.exit_code == 0, run.output
        reference = invoke("reference", "study.yaml")
        assert reference.exit_code == 0, reference.output
    return folder, {"run": run, "reference": reference}


def test_reference_names_each_optimum_by_the_label_the_grid_gives_it(study):
    _, out = study
    lines = out["reference"].stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["shop lam=0.7", "flat lam=0.7"]
    # the optimum of the flat problem in closed form: J* = 0.7 k_alpha at x = a
    flat = float(lines[1].split("J* = ")[1].split()[0])
    assert flat == pytest.approx(0.7 * K_ALPHA, rel=0.01)


def test_a_grid_cell_no_better_than_x0_says_so_in_its_notes(study):
    import pandas as pd

    folder, _ = study
    rows = pd.read_parquet(folder / "results" / "study" / "results.parquet")
    start = rows["notes"].str.contains("no better than x0")
    # started at the optimum of the flat problem, no answer is better; on the other, x0 is
    # far from it (J(x0) about 7 against J* about 1.95): every answer but the start is better
    stay = rows["method"] == "mine:STAY"
    assert start[rows["problem"] == "flat"].all() and start[stay].all()
    assert not start[(rows["problem"] == "shop") & ~stay].any()
    flat = rows[rows["problem"] == "flat"]
    assert (flat["J_true"] >= flat["J_x0_true"]).all()
    assert all(n.endswith("on the replication's precise sample") for n in flat["notes"])
    assert np.isfinite(rows["J_x0_pool"]).all()


def report_of(folder: Path, *args) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        result = invoke("report", "results/study", "--no-figures", *args)
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def test_the_report_says_problem_and_leads_with_the_large_sample_estimate(study):
    folder, out = study
    text = report_of(folder)
    assert "DGP" not in text and "problem lambda Method" in text
    titles = [t for t in ("Summary of Jtrue (20,000-draw large-sample evaluation)",
                          "Summary of J (1,000-draw final evaluation)") if t in text]
    assert len(titles) == 2 and text.index(titles[0]) < text.index(titles[1])
    run = " ".join(out["run"].stdout.split())
    assert ("J_true on a 20,000-draw large sample; J on the 1,000-draw common pool" in run
            and "ok J_true J draws" in run)


def test_each_quality_title_names_its_measure_before_and_after_the_floor(study, tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(study[0], folder)
    before = report_of(folder)
    assert "Regret % at each share of the budget" in before
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert invoke("reference", "--floor", "results/study").exit_code == 0
    after = report_of(folder)
    # x0's large-sample J gives the normalised gap on shop; on flat x0 is the optimum, so
    # the gap has no scale there and the paired regret rates it
    assert ("Quality (paired regret % for flat; normalised gap % for shop) at each share of "
            "the budget") in after
    assert "Quality at" not in before + after


def test_with_optima_but_no_large_sample_j_the_report_says_what_gives_a_quality_table(study):
    folder, _ = study
    plain = STUDY.replace("name: study", "name: plain").replace(", precise_draws: 20000", "")
    (folder / "plain.yaml").write_text(plain.replace("replications: 5", "replications: 2"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert invoke("run", "plain.yaml", "-q").exit_code == 0
        result = invoke("report", "results/plain", "--no-figures", "--optima",
                        "results/reference")
    text = " ".join(result.stdout.split())
    assert ("no regret or quality table for flat lambda=0.70, shop lambda=0.70: their cells "
            "have no large-sample J to rate against the reference optimum; give final_eval a "
            "precise_draws") in text
    assert "in plain.yaml and run `acfs run plain.yaml` again" in text


def test_the_report_shows_each_median_answer_and_flags_runs_no_better_than_x0(study):
    import pandas as pd

    folder, _ = study
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert invoke("report", "results/study", "--no-figures", "--csv").exit_code == 0
    answers = pd.read_csv(folder / "results" / "study" / "tables" / "answers.csv")
    rows = pd.read_parquet(folder / "results" / "study" / "results.parquet")
    for _, r in answers.iterrows():
        mine = rows[(rows["problem"] == r["problem"]) & (rows["method"] == r["config"])]
        median = np.median(np.vstack(mine["x"].to_list()), axis=0)
        assert np.allclose(eval(r["x_med"]), median)  # the coordinate-wise median
        assert r["no_better"] == int((mine["J_true"] >= mine["J_x0_true"]).sum())
    shop = answers[answers["problem"] == "shop"].set_index("config")
    # J(x0) in closed form; the median of five 20,000-draw estimates (SE about 0.02)
    assert shop["J_x0_med"].iloc[0] == pytest.approx(exact_J([0.0, 2.0]), abs=0.1)
    assert shop.loc["mine:STAY", "no_better"] == 5 and shop.loc["auto", "no_better"] == 0
    text = report_of(folder)
    assert "20 of 30 runs ended no better than their start x0: flat lambda=0.70" in text


def test_too_few_replications_for_holm_are_said_instead_of_a_column_of_ns(study):
    folder, _ = study
    text = report_of(folder)
    # on shop both competitors lose in all 5 replications: the exact one-sided p is 1/2^5,
    # Holm over two comparisons doubles it
    floor = 2 * 0.5**5
    assert (f"With 5 pairs and 2 comparison(s), no p_Holm can fall below {floor:.3g} in "
            "shop lambda=0.70") in text
    assert "6 replications without ties could show one" in text
    wilcoxon = text.split("Wilcoxon signed-rank tests on Jtrue")[1].split("With 5 pairs")[0]
    shop = wilcoxon.split(" shop ")[1]
    assert " ns" not in shop and f"{floor:.3f}" in shop


# -- one problem, no configuration ----------------------------------------------------------
def solved(*args) -> dict[str, list[str]]:
    """``acfs solve``'s answer by its line heads (notes: every line from them on)."""
    result = invoke("solve", *args)
    assert result.exit_code == 0, result.output
    lines, out, head = result.stdout.splitlines(), {}, ""
    for line in lines:
        head = line[:9].strip() or head
        out.setdefault(head, []).append(line[9:])
    return out


def test_solve_prints_the_answer_of_minimize_with_its_interval_and_start(shop):
    out = solved("shop:Shop", "--budget", "600", "--lam", "0.7", "--seed", "1")
    sol = minimize("shop:Shop", budget=600, lam=0.7, seed=1)  # the same call in Python
    x = np.array(eval(out["x*"][0]))
    # 600 draws in 2 dimensions, no gradient: COBYQA's epochs on sample averages (version 9)
    assert np.allclose(x, sol.x, rtol=1e-5) and out["method"] == ["auto, which ran COBYQA"]
    J, interval = out["J"][0].split(", 95 % interval ")
    lo, hi = (float(v) for v in interval.split(" on ")[0].strip("[]").split(", "))
    assert lo < float(J) < hi and interval.split(" on ")[1].startswith("20,000 fresh draws")
    # the estimate is J at x* in closed form, within its interval's half-width twice over
    assert abs(float(J) - exact_J(x)) < (hi - lo)
    assert out["J(x0)"][0].startswith(f"{sol.J_x0:.6g} on the same draws at x0 = [0, 2]")
    assert out["draws"][0].startswith(f"{sol.draws_used:,} of 600 (stopped: ")
    assert out["notes"][0].startswith("auto ran COBYQA in 2 epochs")


def test_solve_takes_a_file_its_parameters_a_start_and_method_settings(shop):
    out = solved("shop.py:Shop", "-b", "600", "--problem-param", "c=0", "--x0", "1,0.5",
                 "-m", "astro", "-p", "kappa=2")
    assert out["problem"] == ["shop:Shop(c=0)"] and out["method"] == ["astro"]
    # at x0 = a the flat problem's J is lam k_alpha (the CVaR of a standard normal)
    assert float(out["J(x0)"][0].split()[0]) == pytest.approx(0.7 * K_ALPHA, rel=0.05)
    assert out["notes"][-1].startswith("no better than x0")


def test_solve_passes_alpha_and_n_eval_to_minimize(shop):
    out = solved("shop:Shop", "-b", "600", "--lam", "0.7", "--alpha", "0.8", "--n-eval", "3000",
                 "--seed", "1")
    sol = minimize("shop:Shop", budget=600, lam=0.7, alpha=0.8, n_eval=3000, seed=1)
    other = minimize("shop:Shop", budget=600, lam=0.7, seed=1)  # alpha 0.95, 20,000 draws
    J, interval = out["J"][0].split(", 95 % interval ")
    assert float(J) == pytest.approx(sol.J, rel=1e-5) and abs(sol.J - other.J) > 1e-3
    assert interval.split(" on ")[1].startswith("3,000 fresh draws")
    assert np.allclose(np.array(eval(out["x*"][0])), sol.x, rtol=1e-5)


BROKEN = """\
class Broken:
    dim_x, dim_w = 1, 1
    bounds = [(0.0, 1.0)]

    def sample(self, x, n, rng):
        return rng.standard_normal((n, 1))

    def cost(self, W, x):
        raise ZeroDivisionError("the model divides by the stock")
"""


@pytest.mark.parametrize("args, code, said", [
    (["shopp:Shop"], 2, "cannot import problem 'shopp:Shop': ModuleNotFoundError"),
    (["dgp_1"], 2, "unknown problem 'dgp_1' (did you mean 'dgp1'?)"),
    (["shop:Shop", "-m", "astro", "-p", "kapa=2"], 2, "has no parameter kapa (did you mean"),
    (["shop:Shop", "--x0", "1,a"], 2, "--x0: expected numbers separated by commas"),
    (["shop:Shop", "-p", "kappa"], 2, "--param: expected NAME=VALUE, got 'kappa'"),
    (["shop:Shop", "--lam", "-1"], 2, "lam must be a finite number >= 0"),
    (["shop.py:Shop", "--x0", "1,2,3"], 2, "x0 has shape (3,), expected (2,)"),
    (["broken:Broken", "-b", "400"], 1, "SimulatorError: problem 'broken:Broken': cost raised "
                                        "ZeroDivisionError: the model divides by the stock"),
])
def test_solve_says_what_is_wrong_in_one_line(shop, args, code, said):
    Path("broken.py").write_text(BROKEN)
    result = invoke("solve", *args)
    assert result.exit_code == code
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert said in result.stderr and "Traceback" not in result.output
