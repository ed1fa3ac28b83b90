"""Shared helpers of the problem library: argument checks, the cost alignment rule, the
box-decision boilerplate and a few exact risk formulas.

Self-contained on purpose (numpy and scipy only): the library must not depend on the rest of
the code base, which evolves independently.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

#: Relative slack when deciding whether a decision lies in X (rounding of optimisers).
FEAS_TOL = 1e-9


# -- argument checks ---------------------------------------------------------------------------
def check_real(value, name: str, *, lo=None, hi=None, lo_open=False, hi_open=False) -> float:
    """A finite real number in the stated range, or ``ValueError`` naming the argument."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if lo is not None and (v <= lo if lo_open else v < lo):
        raise ValueError(f"{name} must be {'>' if lo_open else '>='} {lo}, got {v}")
    if hi is not None and (v >= hi if hi_open else v > hi):
        raise ValueError(f"{name} must be {'<' if hi_open else '<='} {hi}, got {v}")
    return v


def check_int(value, name: str, *, lo: int, hi: int | None = None) -> int:
    """An integer in [lo, hi], or ``ValueError`` naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def check_vector(value, name: str, size: int, *, lo=None, lo_open=False) -> np.ndarray:
    """A finite float vector of the given size (a scalar is repeated), elementwise >= lo."""
    try:
        v = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or a sequence of {size} numbers") from None
    if v.ndim == 0:
        v = np.full(size, float(v))
    if v.shape != (size,):
        raise ValueError(f"{name} must have {size} entries, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be finite, got {v}")
    if lo is not None and np.any(v <= lo if lo_open else v < lo):
        raise ValueError(f"{name} must be {'>' if lo_open else '>='} {lo} elementwise, got {v}")
    return v


def check_risk(lam, alpha) -> tuple[float, float]:
    """``lam >= 0`` finite and ``0 < alpha < 1``."""
    lam = check_real(lam, "lam", lo=0.0)
    alpha = check_real(alpha, "alpha", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return lam, alpha


def check_n(n, name: str = "n") -> int:
    return check_int(n, name, lo=0)


def check_x(x, dim: int, name: str = "x") -> np.ndarray:
    """Decisions of shape (..., dim), finite."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.shape[-1] != dim:
        raise ValueError(f"{name} must have a last dimension of {dim}, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite")
    return x


def check_single_x(x, dim: int) -> np.ndarray:
    x = check_x(x, dim)
    if x.ndim != 1:
        raise ValueError(f"x must be a single decision of shape ({dim},), got {x.shape}")
    return x


def check_z(z, dim_w: int) -> np.ndarray:
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or z.shape[1] != dim_w:
        raise ValueError(f"z must have shape (n, {dim_w}), got {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError("z must be finite")
    return z


def check_batch(X, Z, dim_x: int, dim_w: int) -> tuple[np.ndarray, np.ndarray]:
    X = check_x(X, dim_x)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (m, {dim_x}), got {X.shape}")
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 3 or Z.shape[0] != X.shape[0] or Z.shape[2] != dim_w:
        raise ValueError(
            f"Z must have shape (m, n, {dim_w}) with m = {X.shape[0]} decisions, got {Z.shape}"
        )
    if not np.all(np.isfinite(Z)):
        raise ValueError("Z must be finite")
    return X, Z


def cost_args(W, x, dim_w: int, dim_x: int) -> tuple[np.ndarray, np.ndarray]:
    """The alignment rule of ``cost``: W (..., n, dim_w) against x (..., dim_x).

    Returns W and ``x[..., None, :]``, so each decision of a leading index meets all rows of
    its scenario set, and k decisions (k, dim_x) broadcast against one W (n, dim_w).
    """
    W = np.asarray(W, dtype=float)
    x = np.asarray(x, dtype=float)
    if W.ndim < 2 or W.shape[-1] != dim_w:
        raise ValueError(f"W must have shape (..., n, {dim_w}), got {W.shape}")
    if x.ndim == 0 or x.shape[-1] != dim_x:
        raise ValueError(f"x must have a last dimension of {dim_x}, got shape {x.shape}")
    if np.isnan(x).any():
        raise ValueError("x contains NaN")
    return W, x[..., None, :]


# -- box-decision boilerplate ------------------------------------------------------------------
class BoxMixin:
    """Bounds, feasibility and the ``optimum`` cache for problems whose X is a box, possibly
    cut by linear constraints ``A x <= b`` (a subclass then sets ``A`` and ``b``).

    A subclass sets ``lo``, ``hi`` (arrays), ``dim_x``, ``dim_w`` and implements
    ``transform_batch`` (or ``sample``), ``_exact_J`` on validated arrays and ``_solve``.
    """

    lo: np.ndarray
    hi: np.ndarray

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(float(a), float(b)) for a, b in zip(self.lo, self.hi, strict=True)]

    def violation(self, x) -> np.ndarray:
        """Largest constraint violation of decisions (..., dim_x), 0 when feasible."""
        x = check_x(x, self.dim_x)
        v = np.maximum(np.max(self.lo - x, axis=-1), np.max(x - self.hi, axis=-1))
        if getattr(self, "A", None) is not None:
            v = np.maximum(v, np.max(x @ self.A.T - self.b, axis=-1))
        return np.maximum(v, 0.0)

    def is_feasible(self, x, tol: float = FEAS_TOL) -> np.ndarray | bool:
        scale = max(1.0, float(np.max(np.abs(self.hi - self.lo))))
        ok = self.violation(x) <= tol * scale
        return bool(ok) if np.ndim(ok) == 0 else ok

    def _check_domain(self, x) -> None:
        """``ValueError`` where the model itself is undefined (J is defined on a neighbourhood
        of X, so optimisers and difference stencils may step slightly outside)."""

    def exact_J(self, x, lam, alpha):
        """Exact J(x) = E[C] + lam CVaR_alpha(C) at decisions of shape (..., dim_x)."""
        lam, alpha = check_risk(lam, alpha)
        x = check_x(x, self.dim_x)
        self._check_domain(x)
        J = np.asarray(self._exact_J(x, lam, alpha), dtype=float)
        return float(J) if J.ndim == 0 else J

    def optimum(self, lam, alpha) -> tuple[np.ndarray, float]:
        """``(x_star, J_star)`` of the exact J, cached per ``(lam, alpha)``."""
        lam, alpha = check_risk(lam, alpha)
        cache = self.__dict__.setdefault("_optimum_cache", {})
        if (lam, alpha) not in cache:
            x = np.clip(np.asarray(self._solve(lam, alpha), dtype=float), self.lo, self.hi)
            cache[(lam, alpha)] = (x, float(self._exact_J(x, lam, alpha)))
        x, J = cache[(lam, alpha)]
        return x.copy(), J


class TransformMixin:
    """``transform`` and ``sample`` on top of a vectorised ``transform_batch``."""

    def transform(self, x, z) -> np.ndarray:
        x = check_single_x(x, self.dim_x)
        z = check_z(z, self.dim_w)
        return self.transform_batch(x[None], z[None])[0]

    def sample(self, x, n, rng: np.random.Generator) -> np.ndarray:
        n = check_n(n)
        return self.transform(x, rng.standard_normal((n, self.dim_w)))


# -- numerical helpers -------------------------------------------------------------------------
def gaussian_cvar_factor(alpha: float) -> float:
    """CVaR_alpha of a standard normal: phi(Phi^{-1}(alpha)) / (1 - alpha)."""
    return float(np.exp(-0.5 * special.ndtri(alpha) ** 2) / math.sqrt(2 * math.pi) / (1 - alpha))


def bisect_increasing(f, lo, hi, max_iter: int = 200) -> np.ndarray:
    """Elementwise root of an increasing ``f`` with ``f(lo) <= 0 <= f(hi)`` (bisection to the
    last bit: robust where Newton steps would leave a tail bracket)."""
    lo, hi = (np.array(a, dtype=float) for a in np.broadcast_arrays(lo, hi))
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        done = (mid <= lo) | (mid >= hi)
        if np.all(done):
            break
        up = f(mid) > 0
        hi = np.where(up & ~done, mid, hi)
        lo = np.where(~up & ~done, mid, lo)
    return 0.5 * (lo + hi)


def minimize_box(fun, starts, lo, hi, grad=None, value_and_grad=None) -> np.ndarray:
    """Best local minimum of a smooth ``fun`` on the box [lo, hi] from several starts.

    L-BFGS-B to a tight projected-gradient tolerance, with ``grad`` or ``value_and_grad``
    (returning (f, g) in one call) when given; otherwise central differences keep the
    gradient error near 1e-10, so J is off its minimum by ~1e-16.
    """
    bounds = list(zip(lo, hi, strict=True))
    best_x, best_f = None, np.inf
    for x_start in starts:
        if value_and_grad is not None:
            target, jac = value_and_grad, True
        else:
            target, jac = fun, (grad if grad is not None else "3-point")
        res = optimize.minimize(
            target,
            np.clip(np.asarray(x_start, dtype=float), lo, hi),
            jac=jac,
            method="L-BFGS-B",
            bounds=bounds,
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 20_000, "maxls": 100},
        )
        x = np.clip(res.x, lo, hi)
        f = float(fun(x) if fun is not None else value_and_grad(x)[0])
        if f < best_f:
            best_x, best_f = x, f
    return best_x
