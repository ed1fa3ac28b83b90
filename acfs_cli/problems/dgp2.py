"""DGP2: Gaussian copula with log-normal marginals (paper Section 4.1.2, Appendix B).

W_j = exp(mu_j(x) + sigma_j(x) Phi^{-1}(U_j)) with sigma_j floored at 0.05; since
U_j = Phi(Z_j), the quantile map is exactly exp(mu_j + sigma_j Z_j). DGP2's optimum lies on
the boundary of X (most coordinates at 0), so methods must handle active bounds.
"""

from __future__ import annotations

import numpy as np

from acfs_cli.problems.copula import GaussianCopulaProblem, x0_of

SIGMA_FLOOR = 0.05


class DGP2(GaussianCopulaProblem):
    name = "dgp2"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"

    def params(self, X: np.ndarray) -> dict[str, np.ndarray]:
        x1, x2, x3, x4, x5, x6 = (X[:, k] for k in range(6))
        x0 = x0_of(X)
        mu = np.stack(
            [
                1.20 + 0.80 * x6 + 0.60 * x1 - 0.50 * x0 - 0.40 * x2 * x4 + 0.30 * x3 * x6,
                1.10 + 0.70 * x2 + 0.50 * x4 - 0.45 * x0 + 0.35 * x1**2 - 0.25 * x6**2,
                1.30 + 0.90 * x3 - 0.60 * x0 + 0.40 * x5 * x6 + 0.30 * x1 * x3 - 0.20 * x4**2,
                1.00 + 0.65 * x4 + 0.45 * x6 - 0.35 * x0 + 0.25 * x2 * x5 - 0.15 * x1 * x6,
                0.90 + 0.55 * x5 + 0.40 * x1 - 0.30 * x0 + 0.20 * x3 * x4 - 0.12 * x2**2,
            ],
            axis=-1,
        )
        sigma = np.stack(
            [
                0.25 + 0.50 * x6 * (1 - x1) + 0.20 * x0,
                0.22 + 0.45 * (1 - x4) + 0.18 * x6 + 0.15 * x0,
                0.20 + 0.40 * (1 - x3) + 0.15 * x6 + 0.12 * x0,
                0.18 + 0.35 * (1 - x5) + 0.12 * x6 + 0.10 * x0,
                0.15 + 0.30 * (1 - x2) + 0.10 * x6 + 0.08 * x0,
            ],
            axis=-1,
        )
        return {"mu": mu, "sigma": np.maximum(sigma, SIGMA_FLOOR)}

    def correlation(self, X: np.ndarray) -> np.ndarray:
        x1, x2, x3, x4, x5, x6 = (X[:, k] for k in range(6))
        return self._corr_from_offdiag(
            X.shape[0],
            {
                (0, 1): 0.45 + 0.30 * x6,
                (0, 2): 0.25 + 0.25 * (1 - x1),
                (0, 3): 0.20 + 0.20 * (1 - x2),
                (0, 4): 0.15 + 0.15 * (1 - x3),
                (1, 2): 0.40 + 0.30 * (1 - 2 * x4),
                (1, 3): 0.25 + 0.20 * (1 - x5),
                (1, 4): 0.20 + 0.15 * (1 - x6),
                (2, 3): 0.30 + 0.25 * (1 - x3),
                (2, 4): 0.22 + 0.18 * (1 - x4),
                (3, 4): 0.35 + 0.28 * (1 - 2 * x5),
            },
        )

    def marginal_quantile(self, Z: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
        return np.exp(params["mu"] + params["sigma"] * Z)

    def cost(self, W, x) -> np.ndarray:
        """C(W, x) = c_hold + c_short + c_proc + c_coord + c_setup (paper Appendix B)."""
        W, x = self._cost_args(W, x)
        W1, W2, W3, W4, W5 = (W[..., j] for j in range(5))
        x1, x2, x3, x4, x5, x6 = (x[..., k] for k in range(6))
        s = x[..., :5].sum(axis=-1)
        x0 = np.maximum(0.0, 1.0 - s)
        kh1 = 0.50 + 0.70 * x1 + 0.20 * x0
        kh2 = 0.45 + 0.65 * x3 + 0.18 * x0
        ks1 = 0.60 + 0.80 * x2 + 0.25 * x0
        ks2 = 0.55 + 0.75 * x4 + 0.22 * x0
        p1, p2, p4, p5 = (np.maximum(w, 0.0) for w in (W1, W2, W4, W5))
        hold = 3500.0 * np.maximum(W1 - kh1, 0.0) ** 2 + 2800.0 * np.maximum(W2 - kh2, 0.0) ** 2
        short = 12000.0 * np.maximum(ks1 - W3, 0.0) ** 1.5 + 9000.0 * np.maximum(
            ks2 - W5, 0.0
        ) ** 1.5
        proc = 1800.0 * (1 - 0.40 * x1) * p1**1.6 + 1400.0 * (1 - 0.35 * x3) * p4**1.4
        coord = 8000.0 * s * np.maximum(0.05, 0.18 - 0.10 * x6 + 0.05 * p2**2 + 0.03 * p5**2)
        setup = (
            7500.0 * (x1**2 + 0.80 * x2**2 + 0.65 * x3**2 + 0.60 * x4**2 + 0.55 * x5**2)
            + 5000.0 * x6**2
            + 2200.0 * (x1 + x2) * x6
        )
        return hold + short + proc + coord + setup
