"""Strategic classification (performative prediction): features move against the classifier."""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize, special

from acfs_cli.problems.library._common import (
    BoxMixin,
    TransformMixin,
    bisect_increasing,
    check_batch,
    check_int,
    check_real,
    cost_args,
    minimize_box,
)


#: Gauss-Legendre rule for the 1-D Gaussian integrals: the integrands are analytic in a strip
#: around the real axis, so 400 nodes on an interval of length <= 24 are exact to rounding.
@functools.cache
def _legendre() -> tuple[np.ndarray, np.ndarray]:
    # computed on first use: 0.5 s that `acfs list` and every import would otherwise pay
    return np.polynomial.legendre.leggauss(400)
#: Standard-normal mass beyond this many standard deviations is below 1e-31: truncation.
_ZMAX = 12.0


def _gauss_rule(lo, hi):
    """Nodes z and weights w (..., 400) with sum w f(z) = int_lo^hi f(z) phi(z) dz."""
    half = 0.5 * (hi - lo)[..., None]
    nodes, weights = _legendre()
    z = 0.5 * (hi + lo)[..., None] + half * nodes
    return z, half * weights * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)


class StrategicClassification(TransformMixin, BoxMixin):
    """Logistic classifier facing agents who game its strategic features.

    Model. Labels Y in {+1 (creditworthy), -1} with P(Y = +1) = ``prior``; features
    X | Y = y ~ N(y m, S) in R^d. A linear classifier theta in [-bound, bound]^d scores
    theta . x; every agent best-responds to the published theta with a quadratic
    manipulation cost and shifts its strategic features (the first ``n_strategic``) by
    epsilon theta_S (Perdomo et al. 2020, Section 5.2), so the observed features are
    X' = X + epsilon theta_S (zero outside the strategic block). W = (Y, X'_1, .., X'_d),
    dim_w = d + 1: Y = +1 when z_0 < Phi^{-1}(prior), X' = Y m + L z_{1:d} + epsilon theta_S.
    Loss: logistic loss plus ridge, C(W, theta) = log(1 + exp(-Y theta . X')) +
    (reg/2) ||theta||^2.

    Instance: m_j = 1.2 * 0.75^j, S = 0.7 I + 0.3 1 1^T (correlated features).

    Exact J. The margin U = Y theta . X' given Y = y is N(a_y, b^2) with
    a_y = theta . m + y epsilon ||theta_S||^2 and b = ||L^T theta||; C = softplus(-U) + ridge is
    a decreasing function of U. So the alpha-quantile of C is softplus(-u*) with u* the
    (1 - alpha)-quantile of the two-component Gaussian mixture of U (bisection on its closed
    form CDF); E[C] and E[(C - t)_+] = sum_y pi_y int_{-inf}^{(u* - a_y)/b} (softplus(-a_y - b z)
    - t) phi(z) dz are 1-D Gaussian integrals, computed by 400-point Gauss-Legendre on
    [-12, upper limit] (exact to ~1e-15). theta = 0 gives a constant loss log 2.

    Optimum. J is not convex (the gaming of the positive class makes the mean margin concave
    in theta_S). Multi-start L-BFGS-B with the analytic gradient (``_value_grad``) from x0,
    x0/4, -x0, (0.5, .., 0.5) and two alternating-sign points, best kept; at the defaults all
    starts reach the same minimum. At lam = 0 the performative optimum moves weight from the
    strategic features to the other one, (0.737, 0.488, 0.555) against x0 = (1.94, 1.08,
    0.44); the CVaR term then shrinks the whole classifier, (0.320, 0.187, 0.102) at lam 0.7.

    Parameters: ``dim`` d in [2, 20] (3), ``n_strategic`` in [1, d] (2), ``epsilon`` >= 0
    manipulation strength (1.0), ``prior`` in (0, 1) (0.6), ``reg`` > 0 ridge (0.05),
    ``bound`` > 0 half-width of the box (4). x0 = the Bayes (LDA) slope 2 S^{-1} m of the
    unshifted data, clipped into X: the classifier that ignores the agents' response.
    """

    name = "strategic-classification"
    #: Changed whenever this problem\'s scenarios or costs change (acfs_cli.core.fingerprint).
    version = "1"
    source = (
        "Perdomo, Zrnic, Mendler-Duenner & Hardt (2020), ICML (performative prediction, "
        "strategic classification: features shift by eps*theta on the strategic block); "
        "Gaussian classes, logistic loss"
    )
    vectorized = True

    def __init__(self, dim=3, n_strategic=2, epsilon=1.0, prior=0.6, reg=0.05, bound=4.0):
        d = check_int(dim, "dim", lo=2, hi=20)
        self.dim_x, self.dim_w = d, d + 1
        self.n_strategic = check_int(n_strategic, "n_strategic", lo=1, hi=d)
        self.epsilon = check_real(epsilon, "epsilon", lo=0.0)
        self.prior = check_real(prior, "prior", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        self.reg = check_real(reg, "reg", lo=0.0, lo_open=True)
        self.bound = check_real(bound, "bound", lo=0.0, lo_open=True)
        self.m = 1.2 * 0.75 ** np.arange(d)
        self.S = 0.7 * np.eye(d) + 0.3
        self.L = np.linalg.cholesky(self.S)
        self.mask = (np.arange(d) < self.n_strategic).astype(float)
        self.lo = np.full(d, -self.bound)
        self.hi = np.full(d, self.bound)
        self.x0 = np.clip(2.0 * np.linalg.solve(self.S, self.m), self.lo, self.hi)

    def transform_batch(self, X, Z) -> np.ndarray:
        X, Z = check_batch(X, Z, self.dim_x, self.dim_w)
        y = np.where(Z[..., :1] < special.ndtri(self.prior), 1.0, -1.0)
        feats = y * self.m + Z[..., 1:] @ self.L.T + (self.epsilon * self.mask * X)[:, None, :]
        return np.concatenate([y, feats], axis=-1)

    def cost(self, W, x) -> np.ndarray:
        W, x = cost_args(W, x, self.dim_w, self.dim_x)
        score = np.matmul(W[..., 1:], np.swapaxes(x, -1, -2))[..., 0]
        return np.logaddexp(0.0, -W[..., 0] * score) + 0.5 * self.reg * (x * x).sum(axis=-1)

    # -- exact values --------------------------------------------------------------------------
    def margin_law(self, x):
        """(a_{+1}, a_{-1}, b): the margin Y theta . X' is N(a_y, b^2) given Y = y."""
        base = x @ self.m
        push = self.epsilon * ((self.mask * x) ** 2).sum(axis=-1)
        return base + push, base - push, np.linalg.norm(x @ self.L, axis=-1)

    def _value_grad(self, x, lam, alpha, with_grad=False):
        """J at decisions (..., d) and, for one decision, its gradient.

        The gradient needs no derivative of the quantile: t is a minimiser of the
        Rockafellar-Uryasev objective (envelope theorem), and the tail integrand vanishes at
        its moving upper limit. What remains are Gaussian integrals of the logistic slope.
        """
        a_pos, a_neg, b = self.margin_law(x)
        ridge = 0.5 * self.reg * (x * x).sum(axis=-1)
        pi = np.array([self.prior, 1.0 - self.prior])
        a = np.stack([a_pos, a_neg], axis=-1)  # (..., 2)
        deg = b <= 0.0  # theta = 0: constant margin
        bs = np.where(deg, 1.0, b)

        def mix_cdf(u):
            return (pi * special.ndtr((u[..., None] - a) / bs[..., None])).sum(axis=-1)

        lo = a.min(axis=-1) - 40.0 * bs
        hi = a.max(axis=-1) + 40.0 * bs
        if x.ndim == 1:  # Brent is ~10x faster than bisection for the optimiser's calls
            u_star = optimize.brentq(
                lambda u: float(mix_cdf(np.asarray(u))) - (1.0 - alpha),
                float(lo),
                float(hi),
                xtol=1e-14,
                rtol=4 * np.finfo(float).eps,
            )
            u_star = np.asarray(u_star)
        else:
            u_star = bisect_increasing(lambda u: mix_cdf(u) - (1.0 - alpha), lo, hi)
        t = np.logaddexp(0.0, -u_star)

        mean = excess = 0.0
        d_mean = np.zeros((2, 2))  # [class, (d/da, d/db)]
        d_tail = np.zeros((2, 2))
        for k in range(2):
            a_y = a[..., k]
            upper = np.clip((u_star - a_y) / bs, -_ZMAX, _ZMAX)
            for lim, is_tail in ((np.full(a_y.shape, _ZMAX), False), (upper, True)):
                z, w = _gauss_rule(np.full(a_y.shape, -_ZMAX), lim)
                u = a_y[..., None] + bs[..., None] * z
                loss = np.logaddexp(0.0, -u)
                if is_tail:
                    excess = excess + pi[k] * (w * (loss - t[..., None])).sum(axis=-1)
                else:
                    mean = mean + pi[k] * (w * loss).sum(axis=-1)
                if with_grad:
                    slope = -special.expit(-u)  # d softplus(-u) / du
                    out = d_tail if is_tail else d_mean
                    out[k] = pi[k] * np.array([(w * slope).sum(), (w * slope * z).sum()])
        J = mean + lam * (t + excess / (1.0 - alpha)) + (1.0 + lam) * ridge
        # theta = 0: every margin is 0 and the loss is log 2 for sure.
        J = np.where(deg, (1.0 + lam) * np.log(2.0), J)
        if not with_grad:
            return J
        if deg:
            return J, np.zeros_like(x)
        coef = d_mean + lam / (1.0 - alpha) * d_tail
        grad_a = self.m[None, :] + np.array([[2.0], [-2.0]]) * self.epsilon * self.mask * x
        grad_b = self.S @ x / b
        g = (coef[:, :1] * grad_a).sum(axis=0) + coef[:, 1].sum() * grad_b
        return J, g + (1.0 + lam) * self.reg * x

    def _exact_J(self, x, lam, alpha):
        return self._value_grad(x, lam, alpha)

    def _solve(self, lam, alpha):
        half = 0.5 * self.bound
        d = self.dim_x
        corners = [half * np.where((np.arange(d) + k) % 2 == 0, 1.0, -1.0) for k in range(2)]
        starts = [self.x0, 0.25 * self.x0, np.full(d, 0.5), -self.x0, *corners]
        return minimize_box(
            lambda v: float(self._exact_J(v, lam, alpha)),
            starts,
            self.lo,
            self.hi,
            value_and_grad=lambda v: self._value_grad(v, lam, alpha, with_grad=True),
        )
