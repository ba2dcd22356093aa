"""Garbage-collector settings for the long-running processes.

A Vigia process loads a large long-lived heap at start (zones and their prepared
geometries, the register, the store's engine) and then allocates short-lived objects by
the million. With CPython's defaults every collection of the oldest generation walks the
whole start-up heap again: 180-225 ms with the event loop stopped, every few seconds,
under 200 SSE streams (``python -m benchmarks.sse_load``), and a tenth of a bus worker's
CPU in young collections. Freezing what start-up made takes it out of every later
collection (it is freed by reference counting as before, but cycles among it are
kept; a server process keeps its start-up objects for its life anyway).
"""

from __future__ import annotations

import gc


def freeze_startup_heap(young: int = 50_000, middle: int = 20, old: int = 20) -> None:
    """Collect once, freeze every object that survives, and collect the young
    generation every ``young`` allocations (CPython: 700)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, middle, old)
