"""``astro``'s settings: the trust region, the adaptive sampling rule and the model (one
validated model; unknown keys are errors)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from acfs_cli.methods.base import Settings


class AstroSettings(Settings):
    """ASTRO settings: the trust region, the adaptive sampling rule and the model."""

    radius0: float = Field(0.1, gt=0, description="first trust-region radius, in units of "
                           "the task's steps (|x0_j| per coordinate where a start is known)")
    radius_max: float = Field(10.0, gt=0, description="largest radius, in the same units")
    radius_min: float = Field(1e-7, gt=0, description="the search ends as converged when an "
                              "unsuccessful step would narrow the region below this radius")
    eta1: float = Field(0.1, gt=0, lt=1, description="ratio of actual to predicted decrease "
                        "above which a step is accepted")
    eta2: float = Field(0.75, gt=0, lt=1, description="ratio above which the region also "
                        "widens")
    expand: float = Field(2.0, gt=1, description="widening factor of the radius")
    shrink: float = Field(0.5, gt=0, lt=1, description="narrowing factor of the radius")
    n0: int = Field(20, ge=1, description="rows of the first common sample (fewer when the "
                    "budget cannot pay for four models on them)")
    n_max: int = Field(200_000, ge=1, description="largest common sample")
    kappa: float = Field(0.5, gt=0, description="adaptive sampling: rows are added while "
                         "the standard error of the model's gradient exceeds kappa times the "
                         "norm of its part that can act in X (the norm test)")
    trust_rows: int = Field(10, ge=2, description="fewest rows on which a model's standard "
                            "error is believed (on fewer, every step must be significant)")
    growth_max: float = Field(4.0, gt=1, description="largest growth factor of the sample in "
                              "one extension")
    future: float = Field(4.0, gt=0, description="the sample grows only while the budget "
                          "left pays for this many more iterations on the larger sample")
    tail_fraction: float = Field(0.25, ge=0, le=1, description="when the budget left cannot "
                                 "pay for a model on every row, iterate on the largest prefix "
                                 "of the sample it can pay for, down to this fraction of it "
                                 "(1: stop instead)")
    model: Literal["auto", "quadratic", "linear"] = Field(
        "auto", description="quadratic: 2 d stencil points, diagonal Hessian; linear: d "
        "one-sided points; auto: linear when the budget holds fewer than min_models quadratic "
        "models on one row")
    min_models: int = Field(8, ge=1, description="auto: quadratic models a budget must hold "
                            "(on one row each)")
    reuse: bool = Field(True, description="a model reuses the points already drawn on the "
                        "sample's rows in its region, adding stencil points only where the "
                        "design criterion asks (false: a full stencil every iteration)")
    reach: float = Field(2.0, gt=0, description="points within this many radii of the centre "
                         "join its model")
    design_limit: float = Field(4.0, gt=0, description="a stencil point is drawn when the "
                                "model's prediction there has more than this variance (in "
                                "units of one observation's: 1 at an interpolation point)")
    cross_margin: int = Field(2, ge=0, description="the cross terms of the Hessian join the "
                              "model when its points outnumber the full quadratic's "
                              "parameters by this many")
    memory: int = Field(4, ge=1, description="points kept per dimension plus one (the most "
                        "recent near the centre)")
    accept_level: float = Field(0.16, gt=0, lt=1, description="on a model the rows do not "
                                "resolve, a step is accepted only if its paired decrease is "
                                "significant at this one-sided level (Student t on the rows: "
                                "about one standard error on many rows, more on few); one "
                                "the model predicted asks for more rows first")
    direct_search: bool = Field(True, description="a stencil point better than the candidate "
                                "replaces it (ASTRO-DF)")
    antithetic: bool = Field(True, description="common samples as antithetic pairs (z, -z) "
                             "where the problem takes normals (a sample-only simulator gets "
                             "plain rows)")
    use_gradient: bool = Field(True, description="use the simulator's pathwise cost gradient "
                               "(task.gradient) when the problem offers one")
    gradient_check: float = Field(0.1, ge=0, lt=1, description="share of the budget the "
                                  "checks of the simulator's gradient against central "
                                  "differences on common rows may take (at the start and "
                                  "where steps it predicted failed twice running); where "
                                  "they disagree beyond noise the search goes on without it "
                                  "(0: never checked)")

    def minimum_budget(self, dim: int) -> int:
        """Two rows (the fewest with a standard error) at x0, at one one-sided difference
        per coordinate and at one candidate."""
        return 2 * (dim + 2)

    def quadratic(self, budget: int, dim: int) -> bool:
        """Whether the derivative-free models on ``budget`` draws are quadratic."""
        return self.model == "quadratic" or (
            self.model == "auto" and budget >= self.min_models * (2 * dim + 2))

    def points_per_model(self, budget: int, dim: int, gradient: bool) -> int:
        """The points (centre included) of one model: one with the simulator's gradient, a
        stencil of 2 d or d points and the centre without."""
        if gradient:
            return 1
        return (2 * dim if self.quadratic(budget, dim) else dim) + 1

    @model_validator(mode="after")
    def _consistent(self):
        if self.eta2 < self.eta1:
            raise ValueError("need eta1 <= eta2")
        if not self.radius_min <= self.radius0 <= self.radius_max:
            raise ValueError("need radius_min <= radius0 <= radius_max")
        return self
