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

``DECLARED`` holds the problems that declare integer coordinates (``integrality``) or
stochastic constraints (``stochastic_constraints`` with ``constraint_values``): same protocol
and exact ``exact_J`` and ``optimum`` (the constrained, whole optimum), plus
``exact_constraints(x)``, the exact E[g_j] (``{name}``, compared with 0) or P(g_j > 0)
(``{name, chance}``, compared with the chance). Kept apart from ``LIBRARY``, whose studies and
tests take every method, none of which searches such problems yet.

========================  =====  =====  =====================================  =================
name                      dim_x  dim_w  declares                               decision set X
========================  =====  =====  =====================================  =================
service-newsvendor        2      1      P(D > q) <= 0.05 (stockout, chance)    price [3, 12],
                                                                               quantity [0, 80]
overtime-staffing         2      1      E[(D - q)_+] <= 1.5 (overtime)         spend [0, 100],
                                                                               hours [0, 200]
fleet-pricing             2      1      integrality [1, 1]                     fee 4..12,
                                                                               vans 0..20
========================  =====  =====  =====================================  =================

========================  ==========================================  ===========================
name                      what of P_x depends on x                    source
========================  ==========================================  ===========================
service-newsvendor        lognormal demand with mean a - b p; the     Petruzzi & Dada (1999);
                          constraint binds at the optimum             Charnes & Cooper (1959)
overtime-staffing         lognormal workload with mean                Harrison & Zeevi (2005);
                          mu0 exp(-e / e_scale); the cap binds        Whitt (2006)
fleet-pricing             lognormal orders with mean a - b p; the     Petruzzi & Dada (1999);
                          whole optimum beats its neighbours by 5 %+  Van Mieghem (2003)
========================  ==========================================  ===========================
"""

from __future__ import annotations

from acfs_cli.problems.library.classification import StrategicClassification
from acfs_cli.problems.library.erlang import ErlangA
from acfs_cli.problems.library.fleet import FleetPricing
from acfs_cli.problems.library.location import HuffLocation
from acfs_cli.problems.library.newsvendor import PriceNewsvendor
from acfs_cli.problems.library.portfolio import ImpactPortfolio
from acfs_cli.problems.library.pricing import PerformativePricing
from acfs_cli.problems.library.queues import TandemMM1
from acfs_cli.problems.library.service import ServiceNewsvendor
from acfs_cli.problems.library.staffing import OvertimeStaffing

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

#: Problems with integer coordinates or stochastic constraints, by name (apart from LIBRARY,
#: which the studies and the library's tests iterate with every method).
DECLARED: dict[str, type] = {
    ServiceNewsvendor.name: ServiceNewsvendor,
    OvertimeStaffing.name: OvertimeStaffing,
    FleetPricing.name: FleetPricing,
}

__all__ = [
    "DECLARED",
    "LIBRARY",
    "ErlangA",
    "FleetPricing",
    "HuffLocation",
    "ImpactPortfolio",
    "OvertimeStaffing",
    "PerformativePricing",
    "PriceNewsvendor",
    "ServiceNewsvendor",
    "StrategicClassification",
    "TandemMM1",
]
