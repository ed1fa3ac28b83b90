"""A library of decision-dependent problems whose optimum is known exactly.

Every problem minimises J(x) = E[C(W, x)] + lam CVaR_alpha(C(W, x)) over a compact convex X,
with W ~ P_x, and provides ``exact_J`` (closed form, 1-D quadrature to rounding, or root
finding on closed forms: never Monte Carlo), ``optimum(lam, alpha)`` (deterministic, cached)
and a reference decision ``x0``. Costs are vectorised as ``x[..., None, :]`` against the rows of
W (..., n, dim_w).

========================  ========  ========  ===========  =====================================
name                      dim_x     dim_w     kind         decision set X
========================  ========  ========  ===========  =====================================
tandem-mm1                2         2         sample-only  box: service rates in [lambda+0.1, 8]
price-newsvendor          2         1         transform    box: price [3, 12], quantity [0, 60]
performative-pricing      dim (10)  dim       transform    box [0, 8]^dim (any dim up to 200)
impact-portfolio          k (8)     k + 1     transform    box [0, 0.35]^k and A x <= b (budget,
                                                           sector caps)
strategic-classification  d (3)     d + 1     transform    box [-4, 4]^d
huff-location             2         1         transform    box [0, 10]^2
erlang-a                  2         1         transform    box: price [1, 10], rate [0.5, 4]
========================  ========  ========  ===========  =====================================

========================  ==========================================  ===========================
name                      what of P_x depends on x                    source
========================  ==========================================  ===========================
tandem-mm1                sojourn laws Exp(mu_i - lambda); the number  SimOpt MM1 (Eckman et al.
                          of simulated events grows with lambda/mu_i  2023); Reich (1957)
price-newsvendor          lognormal demand with mean a - b p          Petruzzi & Dada (1999);
                                                                      Chen, Xu & Zhang (2009)
performative-pricing      Gaussian demand N(mu0 - E x, Sigma)         Izzo, Ying & Zou (2021);
                                                                      Perdomo et al. (2020)
impact-portfolio          Laplace returns with mean mu - Gamma x      Almgren & Chriss (2001)
strategic-classification  strategic features shift by eps theta_S     Perdomo, Zrnic, Mendler-
                                                                      Duenner & Hardt (2020)
huff-location             lognormal demand: level and dispersion      Huff (1964); Drezner &
                          follow the Huff market shares of the site   Drezner (2004)
erlang-a                  stationary number in an M/M/s+M queue       Garnett, Mandelbaum &
                          (discrete, exact birth-death chain)         Reiman (2002); Maglaras &
                                                                      Zeevi (2003)
========================  ==========================================  ===========================

Special roles: performative-pricing scales to dim = 50 (and beyond); tandem-mm1 is a
sample-only discrete-event simulator whose use of the random stream depends on x;
huff-location has two separated local minima (``local_minima``); impact-portfolio has
linear constraints coupling the coordinates (``A``, ``b``, and a ``design`` map onto X).
erlang-a has a discrete W (atoms) and a J that is only piecewise smooth (kinks where the
alpha-quantile of the queue jumps).
Convex: tandem-mm1, performative-pricing, impact-portfolio; price-newsvendor is convex in
the quantity for each price; strategic-classification, huff-location and erlang-a are not
convex.
"""

from __future__ import annotations

from acfs_cli.problems.library.classification import StrategicClassification
from acfs_cli.problems.library.erlang import ErlangA
from acfs_cli.problems.library.location import HuffLocation
from acfs_cli.problems.library.newsvendor import PriceNewsvendor
from acfs_cli.problems.library.portfolio import ImpactPortfolio
from acfs_cli.problems.library.pricing import PerformativePricing
from acfs_cli.problems.library.queues import TandemMM1

#: The library problems by name (explicit: nothing is discovered by scanning).
LIBRARY: dict[str, type] = {
    TandemMM1.name: TandemMM1,
    PriceNewsvendor.name: PriceNewsvendor,
    PerformativePricing.name: PerformativePricing,
    ImpactPortfolio.name: ImpactPortfolio,
    StrategicClassification.name: StrategicClassification,
    HuffLocation.name: HuffLocation,
    ErlangA.name: ErlangA,
}

__all__ = [
    "LIBRARY",
    "ErlangA",
    "HuffLocation",
    "ImpactPortfolio",
    "PerformativePricing",
    "PriceNewsvendor",
    "StrategicClassification",
    "TandemMM1",
]
