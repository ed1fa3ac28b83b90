"""The spectral-risk estimator: J = E[C] + lam * CVaR_alpha(C) (DESIGN.md section 1).

From n cost samples c: EC = mean(c); CVaR = tau + mean((c - tau)_+) / (1 - alpha) with tau the
empirical alpha-quantile by the inverted CDF, which is an exact minimiser of the
Rockafellar-Uryasev objective on the empirical distribution. This is the one implementation
of the estimator in the project; it is vectorised over any leading batch axes.
"""

from __future__ import annotations

import math

import numpy as np

#: Draws an estimate needs in the CVaR tail: below ten, CVaR is the mean of one or two order
#: statistics and its bootstrap interval collapses onto them.
MIN_TAIL_DRAWS = 10


def min_tail_draws(alpha: float) -> int:
    """Draws that put :data:`MIN_TAIL_DRAWS` in the CVaR tail at level ``alpha``."""
    return math.ceil(MIN_TAIL_DRAWS / (1.0 - alpha) - 1e-9)


def search_level(alpha: float, n: int, tail_rows: int = 0) -> float:
    """The level at which a search weighs its sample of ``n`` rows: ``alpha``, lowered to
    1 - ``tail_rows`` / n where fewer than ``tail_rows`` rows lie beyond alpha's quantile (at
    most n - 1 of them; 0: alpha always). On 20 rows at alpha 0.95 the sample CVaR is its one
    costliest row, and a search on it minimises that row: a few rows in the tail trade the
    bias of a lower level for a sample objective that is not one scenario's. Only a search's
    own sample objective uses it; every estimate an answer is chosen or reported by keeps
    alpha."""
    if tail_rows <= 0 or n < 2:
        return alpha
    return min(alpha, 1.0 - min(tail_rows, n - 1) / n)


def _as_float(value, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None


def check_risk_params(lam: float, alpha: float) -> tuple[float, float]:
    """Validate ``lam >= 0`` and ``0 < alpha < 1``; ``ValueError`` naming the argument."""
    lam, alpha = _as_float(lam, "lam"), _as_float(alpha, "alpha")
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam must be a finite number >= 0, got {lam}")
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    return lam, alpha


def spectral_risk(costs, lam: float, alpha: float):
    """``(J, EC, CVaR)`` of cost samples along the last axis of ``costs``.

    ``costs`` has shape (..., n); each output has shape (...) (floats for a 1-D input).
    """
    lam, alpha = check_risk_params(lam, alpha)
    c = np.asarray(costs, dtype=float)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise ValueError("costs must have at least one sample along the last axis")
    tau = np.quantile(c, alpha, axis=-1, method="inverted_cdf", keepdims=True)
    ec = c.mean(axis=-1)
    cvar = tau[..., 0] + np.maximum(c - tau, 0.0).mean(axis=-1) / (1.0 - alpha)
    J = ec + lam * cvar
    if c.ndim == 1:
        return float(J), float(ec), float(cvar)
    return J, ec, cvar


def influence(costs, lam: float, alpha: float) -> np.ndarray:
    """Per-sample influence values of J along the last axis (for standard errors).

    psi_i = c_i + lam * (tau + (c_i - tau)_+ / (1 - alpha)): their mean is the estimate of J and
    their standard deviation over sqrt(n) its asymptotic standard error.
    """
    lam, alpha = check_risk_params(lam, alpha)
    c = np.asarray(costs, dtype=float)
    tau = np.quantile(c, alpha, axis=-1, method="inverted_cdf", keepdims=True)
    return c + lam * (tau + np.maximum(c - tau, 0.0) / (1.0 - alpha))


def start_note(J: float, J_x0: float, on: str) -> str | None:
    """The note of a run whose answer is no better than its start: J(x*) not below J(x0),
    both estimated ``on`` the same random numbers (or exact); None when x* is better or
    either is unknown."""
    if not (np.isfinite(J) and np.isfinite(J_x0)) or J < J_x0:
        return None
    return f"no better than x0: J(x*) = {J:.6g}, J(x0) = {J_x0:.6g} {on}"
