"""Your own simulator: shelf space for two products (the README's example).

The shelf share x_j shown raises the demand W_j and its spread (P_x depends on x); stock is
3 + 6 x_j units; a unit sold earns 8, a lost sale costs 4 / 5, a leftover 1 / 1.5, and space
costs ``space_cost * |x|^2``. The shares may not exceed 1.2 in total.

    .venv/bin/python examples/shelf_space.py          # minimize, from Python
    .venv/bin/acfs run examples/shelf.yaml            # a grid, from YAML
"""

import numpy as np


class ShelfSpace:
    dim_x, dim_w = 2, 2
    bounds = [(0.0, 1.0), (0.0, 1.0)]
    A, b = np.array([[1.0, 1.0]]), np.array([1.2])  # x1 + x2 <= 1.2

    def __init__(self, space_cost=3.0):
        self.space_cost = float(space_cost)

    def transform(self, x, z):  # one decision x (2,), standard normals z (n, 2) -> W (n, 2)
        mu = np.array([1.0 + 0.8 * x[0], 0.8 + 1.0 * x[1]])
        sd = np.array([0.3 + 0.4 * x[0], 0.25 + 0.5 * x[1]])
        return np.exp(mu + sd * z)

    def cost(self, W, x):  # scenarios W (n, 2) at one decision x -> costs (n,)
        stock = 3.0 + 6.0 * x
        sold = np.minimum(W, stock)
        lost = np.maximum(W - stock, 0.0) @ np.array([4.0, 5.0])
        left = np.maximum(stock - W, 0.0) @ np.array([1.0, 1.5])
        return self.space_cost * x @ x - 8.0 * sold.sum(axis=1) + lost + left


if __name__ == "__main__":
    from acfs_cli.api import minimize

    sol = minimize(ShelfSpace(), lam=0.7, alpha=0.95, budget=60_000, seed=1)
    print("x* =", sol.x.round(3), f"by {sol.method}: {sol.info.get('plan', '')}")
    print(f"J = {sol.J:.2f} +- {sol.J_se:.2f}  (E[C] = {sol.EC:.2f}, CVaR = {sol.CVaR:.2f})")
    print(f"{sol.draws_used:,} simulator draws; stopped: {sol.stop_reason}")
