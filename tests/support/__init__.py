"""Helpers shared by tests, benchmarks and scripts' checks (imported as ``tests.support``)."""
