"""ACFS's settings: the paper's hyperparameters (Section 2.3, Table "Key hyperparameters") and
the choices where it is silent, each documented as such, with how the phases are sized from
the budget and the fewest draws ACFS accepts (:mod:`acfs_cli.methods.acfs` runs them).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from acfs_cli.methods.base import ScaledSettings, scaled
from acfs_cli.surrogates import forest as _forest_mod
from acfs_cli.surrogates import kde as _kde_mod


class ACFSSettings(ScaledSettings):
    """ACFS hyperparameters; defaults are the paper's (Section 2.3, Table "Key hyperparameters").

    Where the paper is silent the default is documented as a choice.
    """

    # -- phase 1: LHD and samplers -------------------------------------------------------------
    n_a: int = Field(1200, ge=1, description="N_A: stage-A maximin LHD size, one draw each.")
    n_trees: int = Field(70, ge=1, description="GRF trees per component forest (paper: 70); "
                         "with more than five components of W they share 5 x n_trees.")
    min_leaf: int = Field(15, ge=1, description="GRF minimum leaf size (paper: 15).")
    honest: bool = Field(
        True, description="GRF honesty: splits on one half of a tree's subsample, leaves on the "
        "other (GRF's default; DESIGN.md section 4)."
    )
    sample_fraction: float = Field(
        0.5, gt=0.0, le=1.0, description="GRF subsample fraction per tree (GRF's default 0.5)."
    )
    forest_bandwidth: float = Field(
        _forest_mod.DEFAULT_BANDWIDTH_SCALE, ge=0.0, description="Tuning constant on "
        "Silverman's rule for the forest's kernel jitter h (Section 2.2; the paper gives no "
        "value): the sampler's measured default."
    )
    kde_bandwidth: float = Field(
        _kde_mod.DEFAULT_BANDWIDTH_SCALE, ge=0.0, description="Tuning constant on Silverman's "
        "rule for the KDE surrogate's jitter: the sampler's measured default."
    )
    # -- phase 1: CEM warm-start ---------------------------------------------------------------
    cem: bool = Field(True, description="Ablation switch: run the CEM warm-start (NoCEM: off).")
    cem_iters: int = Field(7, ge=1, description="CEM warm-start iterations (paper: 7).")
    cem_pop: int = Field(35, ge=2, description="CEM population (paper: 35).")
    cem_draws: int = Field(300, ge=1, description="True-DGP draws per CEM candidate (paper: 300).")
    cem_elite_frac: float = Field(
        0.15, gt=0.0, lt=1.0, description="CEM elite fraction; the paper states it for CEM-SO "
        "(15 %) only, the warm-start uses the same."
    )
    cem_smoothing: float = Field(
        0.60, gt=0.0, le=1.0, description="CEM smoothing; as CEM-SO (0.60), see cem_elite_frac."
    )
    # -- phase 1: DE on the KDE surrogate ------------------------------------------------------
    de_iters: int = Field(55, ge=1, description="DE generations (paper: 55).")
    de_pop: int = Field(85, ge=5, description="DE population (paper: 85).")
    de_strategy: str = Field("currenttobest1bin", description="DE strategy (paper: "
                             "DE/current-to-best/1/bin).")
    de_cem_frac: float = Field(
        1 / 3, ge=0.0, le=1.0, description="Share of the DE population seeded around mu_CEM "
        "(paper: about a third); the rest is space-filling."
    )
    cem_sigma: float = Field(
        0.04, gt=0.0, description="SD of the N(mu_CEM, sigma^2 I) seeds of the DE population and "
        "of the pool's CEM-basin part (paper: 0.04)."
    )
    n_c: int = Field(100, ge=1, description="n_c: KDE draws per DE evaluation (paper: 100).")
    n_f: int = Field(800, ge=1, description="n_f: forest draws per reranking score (paper: 800).")
    k: int = Field(4, ge=1, description="K: elite centres (paper: 4).")
    # -- phase 2: focused augmentation ---------------------------------------------------------
    augment: bool = Field(True, description="Ablation switch: focused augmentation (NoAug: off).")
    n_b: int = Field(700, ge=0, description="N_B: augmentation points, one draw each (paper: 700).")
    radius: float = Field(0.025, gt=0.0, description="Augmentation sigma r (paper: 0.025).")
    rank_ratio: float = Field(
        0.6, gt=0.0, le=1.0, description="Ratio of the geometric rank weights r^i over the "
        "elites; 0.6 gives the paper's 46/28/17/10 % for K = 4."
    )
    # -- phase 3: two-stage reranking ----------------------------------------------------------
    rerank: bool = Field(True, description="Ablation switch: stage-2 direct-DGP rescoring "
                         "(NoRerank: seeds are the forest's top keep2).")
    pool_safety: int = Field(
        33, ge=0, description="Space-filling safety-net candidates of the pool; with cem off it "
        "also takes the CEM-basin share. Pool = de_pop + pool_safety + pool_basin = 151."
    )
    pool_basin: int = Field(
        33, ge=0, description="Pool candidates around mu_CEM: mu_CEM, the CEM best and draws from "
        "N(mu_CEM, cem_sigma^2 I)."
    )
    keep1: int = Field(60, ge=1, description="Stage-1 shortlist size (paper: 60).")
    keep2: int = Field(30, ge=1, description="Stage-2 keeps (the phase-4 seeds; paper: 30).")
    n_d: int = Field(450, ge=2, description="n_d: direct-DGP draws per stage-2 score and per "
                     "phase-4 fn call (paper: 450).")
    # -- phase 4: multi-start L-BFGS-B ---------------------------------------------------------
    n_starts: int = Field(
        30, ge=1, description="Phase-4 starts, taken in the stage-2 order (paper: 30). Under the "
        "'crn' rule every L-BFGS-B evaluation costs (2 d_x + 1) n_d draws, so at the paper's "
        "budget the draws end phase 4 after 1-3 starts on DGP1 and about 5 on DGP2: the best "
        "seeds are polished first."
    )
    maxiter: int = Field(80, ge=1, description="L-BFGS-B maxit per start (paper: 80).")
    local: Literal["lbfgsb", "pattern"] = Field(
        "lbfgsb", description="Phase-4 local search: 'lbfgsb' = the paper's multi-start "
        "L-BFGS-B; 'pattern' = the shared refinement of SAA-PS (retrospective approximation "
        "on growing common samples) from the best distinct stage-2 seeds, sized from the draws "
        "left, then a final pick on fresh common draws (acfs_cli.kernels.refine, with SAA-PS's "
        "default settings)."
    )
    gradient: Literal["crn", "cached-w", "pathwise"] = Field(
        "crn", description="Phase-4 gradient: 'crn' = central differences of fn itself, the "
        "fn call's sample drawn again at x +- h e_j (2 d_x n_d counted draws; the default: "
        "fn and gradient are one function, and the draws match the paper's median); "
        "'cached-w' = central differences of C(W, x +- h e_j) on the cached W (the literal "
        "reading, free, blind to how P_x moves); 'pathwise' = a pathwise_n-row sample at x and "
        "x + h e_j (counted); with local='lbfgsb' only."
    )
    fd_step: float = Field(1e-3, gt=0.0, description="Finite-difference step h in x (in units "
                           "of the coordinates' ranges for 'crn'; the benchmarks' unit is 1).")
    face_moves: bool = Field(
        True, description="Hand L-BFGS-B the projected gradient, so a start on a face of X "
        "moves along it when the descent direction leaves X (the paper is silent)."
    )
    penalty: float = Field(
        1.0, gt=0.0, description="Weight of the squared distance to X in the phase-4 L-BFGS-B "
        "objective, on the objective scaled to about 1 (the paper is silent). Mild, as in the "
        "shared direct polish: with 1e6 the first long step lands on a cliff outside the sum "
        "cap and the line search can spend 20 evaluations (117,000 draws under 'crn') "
        "backtracking to no step."
    )
    normals: Literal["common", "per-start", "per-call"] = Field(
        "common", description="Phase-4 normals (the paper is silent): one antithetic set for "
        "all of phase 4, so fn is one deterministic function of x and the starts are compared "
        "on common random numbers (default); one set per start; or fresh normals at every fn "
        "call (the starts' best values are then minima of independent noisy estimates)."
    )
    pathwise_n: int = Field(
        150, ge=2, description="Draws per pathwise difference point (a subset of the fn "
        "call's normals, antithetic pairs kept together)."
    )
    select_top: int = Field(
        0, ge=0, description="Re-score the best select_top (>= 2) phase-4 results on common "
        "normals (select_draws each) and return the best of them; 0 is the paper's rule (the "
        "best start by its own fn value). The draws are reserved before phase 4 starts."
    )
    select_draws: int = Field(2000, ge=2, description="Draws per re-scored phase-4 result.")
    # -- variance reduction --------------------------------------------------------------------
    antithetic: bool = Field(True, description="Ablation switch: antithetic pairs (z, -z) in "
                             "CEM, stage 2 and phase 4 (NoAV: independent normals).")
    crn: bool = Field(True, description="Common random numbers across the candidates of one "
                      "oracle batch (a CEM iteration, stage 2).")

    def scale(self, factor: float, dim: int) -> dict[str, Any]:
        """Phases sized from the budget: the one-draw designs (``n_a``, ``n_b``) follow it,
        the CEM warm-start, stage 2 and phase 4 split it between decisions and draws per
        decision; the surrogate phases cost no draws and keep their sizes."""
        n_d = scaled(self.n_d, factor, 0.5, floor=30, even=True)
        keep1 = scaled(self.keep1, factor, 0.5, floor=min(self.keep1, 8))
        return {
            "n_a": scaled(self.n_a, factor, floor=4 * self.min_leaf),
            "cem_pop": scaled(self.cem_pop, factor, 0.5, floor=min(self.cem_pop, 10)),
            "cem_draws": scaled(self.cem_draws, factor, 0.5, floor=20),
            "n_b": scaled(self.n_b, factor, floor=0),
            "keep1": keep1,
            "keep2": min(keep1, scaled(self.keep2, factor, 0.5, floor=min(self.keep2, 4))),
            "n_d": n_d,
            "pathwise_n": min(n_d, scaled(self.pathwise_n, factor, 0.5, floor=20, even=True)),
            "select_draws": scaled(self.select_draws, factor, 0.5, floor=100, even=True),
            # the DE on the KDE surrogate draws nothing: below the reference budget its
            # generations shrink like the square root, so the time stays proportionate
            "de_iters": min(self.de_iters, scaled(self.de_iters, factor, 0.5,
                                                  floor=min(self.de_iters, 15))),
        }

    def minimum_budget(self, dim: int) -> int:
        """The LHD the samplers need, the smallest CEM warm-start and stage 2, one fn call."""
        cem = self.cem_iters * min(self.cem_pop, 10) * 20 if self.cem else 0
        return 4 * self.min_leaf + cem + min(self.keep1, 8) * 30 + 30

    @model_validator(mode="after")
    def _consistent(self) -> ACFSSettings:
        if self.keep2 > self.keep1:
            raise ValueError(f"keep2 ({self.keep2}) cannot exceed keep1 ({self.keep1})")
        if self.k > self.de_pop:
            raise ValueError(f"k ({self.k}) cannot exceed de_pop ({self.de_pop})")
        if self.pathwise_n > self.n_d:
            raise ValueError(f"pathwise_n ({self.pathwise_n}) cannot exceed n_d ({self.n_d})")
        return self
