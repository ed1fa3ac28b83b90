"""DGP1: Gaussian copula with decision-dependent Student-t marginals (paper Section 4.1.1).

Parameters from the paper's Table "DGP1", cost from Appendix B. sigma_j(x) is the *scale* of
the Student-t marginal, W_j = mu_j + sigma_j t_{nu_j}^{-1}(U_j) (DESIGN.md section 2).

Heavy tails: nu_j(x) <= 5.5 everywhere, and the squared damage terms need nu > 4 for a finite
variance, which the constraint never allows for all components at once - the cost has
infinite variance on all of X, so estimates of J converge slowly and are skewed low at small n.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from acfs_cli.problems.copula import GaussianCopulaProblem, x0_of


def _softplus(z: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, z)


class DGP1(GaussianCopulaProblem):
    name = "dgp1"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"

    def params(self, X: np.ndarray) -> dict[str, np.ndarray]:
        x1, x2, x3, x4, x5, x6 = (X[:, k] for k in range(6))
        x0 = x0_of(X)
        mu = np.stack(
            [
                2.10 - 1.50 * x6 - 1.10 * x1 + 1.20 * x0 + 0.75 * x2 * x3 - 0.55 * x1 * x6**2,
                2.30 - 1.30 * x1 - 1.70 * x3 + 0.95 * x0 - 0.65 * x6**2 + 0.45 * x2**2,
                1.90 - 1.50 * x2 - 1.05 * x6 + 0.75 * x0 + 0.55 * x1 * x2 - 0.35 * x3 * x6,
                1.70 - 1.20 * x4 - 0.90 * x6 + 0.60 * x0 + 0.40 * x3 * x5 - 0.30 * x2 * x4,
                1.50 - 1.00 * x5 - 0.80 * x6 + 0.50 * x0 + 0.35 * x1 * x4 - 0.25 * x3**2,
            ],
            axis=-1,
        )
        sigma = np.stack(
            [
                0.20 + 0.75 * (1 - x6) * (1 - x1) + 0.30 * x0,
                0.24 + 0.65 * (1 - x3) + 0.28 * (1 - x6) + 0.22 * x0,
                0.22 + 0.60 * (1 - x2) + 0.20 * (1 - x6) + 0.16 * x0,
                0.18 + 0.50 * (1 - x4) + 0.18 * (1 - x6) + 0.14 * x0,
                0.16 + 0.45 * (1 - x5) + 0.15 * (1 - x6) + 0.12 * x0,
            ],
            axis=-1,
        )
        nu = np.stack(
            [3.0 + 2.5 * x6, 3.0 + 2.0 * x3, 3.0 + 1.5 * x2, 3.5 + 2.0 * x4, 3.5 + 1.5 * x5],
            axis=-1,
        )
        return {"mu": mu, "sigma": sigma, "nu": nu}

    def correlation(self, X: np.ndarray) -> np.ndarray:
        x1, x2, x3, x4, x5, x6 = (X[:, k] for k in range(6))
        return self._corr_from_offdiag(
            X.shape[0],
            {
                (0, 1): 0.55 + 0.28 * (1 - x6),
                (0, 2): 0.20 + 0.28 * (1 - x1),
                (0, 3): 0.15 + 0.20 * (1 - x2),
                (0, 4): 0.10 + 0.18 * (1 - x3),
                (1, 2): 0.50 + 0.32 * (1 - 2 * x2),
                (1, 3): 0.20 + 0.22 * (1 - x4),
                (1, 4): 0.15 + 0.18 * (1 - x5),
                (2, 3): 0.25 + 0.20 * (1 - x3),
                (2, 4): 0.18 + 0.16 * (1 - x4),
                (3, 4): 0.30 + 0.25 * (1 - 2 * x5),
            },
        )

    def marginal_quantile(self, Z: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
        # t^{-1}(Phi(z)) = sign(z) * -t^{-1}(Phi(-|z|)): working in the lower tail keeps full
        # precision for large |z|, where Phi(z) rounds to 1. One stdtrit call for all five
        # components (their own df broadcast), the dominant cost of the whole oracle.
        q = special.stdtrit(params["nu"], special.ndtr(-np.abs(Z)))
        return params["mu"] + params["sigma"] * np.copysign(-q, Z)

    def cost(self, W, x) -> np.ndarray:
        """C(W, x) = c_dmg + c_hp + c_ep + c_del + c_ac (paper eq. (cost), Appendix B)."""
        W, x = self._cost_args(W, x)
        W1, W2, W3, W4, W5 = (W[..., j] for j in range(5))
        x1, x2, x3, x4, x5, x6 = (x[..., k] for k in range(6))
        s = x[..., :5].sum(axis=-1)
        x0 = np.maximum(0.0, 1.0 - s)
        k1 = 0.45 + 0.80 * x2 + 0.18 * x0
        k2 = 0.40 + 0.75 * x4 + 0.15 * x0
        p1, p2, p4, p5 = (np.maximum(w, 0.0) for w in (W1, W2, W4, W5))
        dmg = 2800.0 * W2**2 * (1 + 0.65 * p1) + 1600.0 * W4**2 * (1 + 0.45 * p5)
        hp = 10000.0 * _softplus(W3 - k1) ** 2 + 6000.0 * _softplus(W5 - k2) ** 2
        ep = 2500.0 * (1 - 0.38 * x3) * p2**1.8 + 1800.0 * (1 - 0.30 * x5) * p4**1.6
        dl = 14000.0 * s * np.maximum(0.04, (0.22 - 0.12 * x6) + 0.06 * p1 + 0.04 * p5)
        ac = (
            9500.0 * (x1**2 + 0.85 * x2**2 + 0.72 * x3**2 + 0.68 * x4**2 + 0.60 * x5**2)
            + 6500.0 * x6**2
            + 2800.0 * (x1 + x2) * x6
            + 2200.0 * (x3 + x4) * x6
        )
        return dmg + hp + ep + dl + ac
