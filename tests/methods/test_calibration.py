"""The calibration's routing of an answer's constraints (``acfs_cli.methods.calibration``):
which outputs it counts few-valued - an indicator's mean, as SimOpt states a chance
constraint, whose level no local model resolves - and which it models."""

from __future__ import annotations

import numpy as np

from acfs_cli.methods.calibration import few_valued


def test_an_indicator_minus_its_bound_is_few_valued_and_a_censored_output_is_not():
    rng = np.random.default_rng(0)
    n = 400
    indicator = (rng.uniform(size=n) < 0.05).astype(float) - 0.05  # 1(stock-out) - eps
    overtime = np.maximum(rng.normal(size=n) - 1.5, 0.0)  # zero on most rows, else continuous
    length = rng.exponential(size=n) - 1.0  # continuous everywhere
    counts = rng.poisson(0.5, size=n).astype(float) - 1.0  # a handful of values
    G = np.column_stack([indicator, overtime, length, counts])
    assert few_valued(G).tolist() == [True, False, False, True]


def test_an_output_that_never_varies_tells_nothing_and_counts_few_valued():
    # no stock-out on any row: the indicator is a constant -eps
    assert few_valued(np.full((200, 1), -0.05)).tolist() == [True]
    # a single row off the mode cannot show a continuum either
    G = np.zeros((200, 1))
    G[3] = 0.7
    assert few_valued(G).tolist() == [True]
