"""Speed measurements (run as ``python -m benchmarks.NAME`` from the repository)."""
