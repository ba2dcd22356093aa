"""What-if: a draft zone tried on past traffic through the live rule engine (issue 36)."""
