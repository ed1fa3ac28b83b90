"""Numbers as the report prints them: to the first digit of their standard error, and never
to the digits of a double's rounding."""

from __future__ import annotations

from acfs_cli.report.layout import interval, number, se_decimals


def test_a_value_shows_to_the_first_significant_digit_of_its_standard_error():
    assert number(-164.987, decimals=se_decimals(0.01)).plain == "-164.99"
    assert number(0.123456, decimals=se_decimals(0.0004)).plain == "0.1235"
    # a J in the hundred thousands keeps its units where its error is in the thousands
    assert number(141_747.3, decimals=se_decimals(2_000)).plain == "141,747"


def test_a_standard_error_of_rounding_noise_leaves_the_value_its_own_decimals():
    # replications that compute J alike (a deterministic cost) differ in the last bits only:
    # 15 decimals of -164.999999999999943 are a double's rounding, not a precision
    digits = se_decimals(1e-14, scale=-164.999999999999943)
    assert number(-164.999999999999943, decimals=digits).plain == "-165"
    assert number(2.8e-14, decimals=digits).plain == "0"  # the spread of such replications
    assert interval(-164.999999999999943, -164.99999999999989,
                    decimals=digits).plain == "[-165; -165]"
    assert se_decimals(0.0, scale=-165.0) == 0 and se_decimals(0.0) is None
    # a genuine error keeps its digit, whatever the scale
    assert se_decimals(0.01, scale=-165.0) == 2
