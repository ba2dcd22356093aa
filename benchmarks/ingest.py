"""Ingest throughput: bare pyais decoding against Vigia's ingest to typed records.

Usage: python -m benchmarks.ingest [NMEA_FILE] [--reps N] [--quick]

All run in this process on the same file, alternating, several times; the script prints
the median rate of each (messages per second of process CPU time, so that other load on a
shared machine disturbs the figures less) and the ratios to pyais, also as the median of
the per-repetition ratios. Two Vigia paths are measured: the batch decoder the commands
use (``FileSource.text_blocks`` -> ``BatchIngestor.feed_texts``, goal >= 3x pyais) and the
per-line path (``FileSource.lines`` -> ``Ingestor.feed_many``, goal >= 0.8x), which must
give the same records and counters (checked on every repetition).

A second baseline, pyais that also refuses a sentence whose checksum is wrong, is printed
beside the first: pyais checks checksums only when asked (``is_valid``), and Vigia always
does, because a corrupted position must not become a lead.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from pyais.exceptions import AISBaseException
from pyais.stream import FileReaderStream

from benchmarks._data import corpus
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.decoder import Ingestor
from vigia.ingest.sources import REPLAY_HINT, FileSource


def bare_pyais(path: str, checksums: bool = False) -> tuple[int, float]:
    """FileReaderStream + decode() of every message (with ``checksums``, of those whose
    checksum is right): (messages decoded, seconds). pyais raises on a sentence it cannot
    decode (an empty payload, as real feeds and the repository's sample carry); a pyais
    user catches that and goes on, and so does the baseline."""
    t0 = time.process_time()
    n = 0
    for msg in FileReaderStream(path):
        if checksums and not msg.is_valid:
            continue
        try:
            msg.decode()
        except AISBaseException:
            continue
        n += 1
    return n, time.process_time() - t0


def vigia(path: str) -> tuple[int, float, str]:
    """FileSource -> Ingestor -> typed records: (messages, seconds, counters)."""
    t0 = time.process_time()
    ing = Ingestor()
    for _ in ing.feed_many(FileSource(path).lines()):
        pass
    ing.flush()
    return ing.counters.messages, time.process_time() - t0, ing.counters.summary()


def vigia_batch(path: str) -> tuple[int, float, str]:
    """FileSource text blocks -> BatchIngestor -> typed records: (messages, seconds, counters)."""
    t0 = time.process_time()
    ing = BatchIngestor()
    src = FileSource(path)
    for _ in ing.feed_texts(src.text_blocks(REPLAY_HINT), src.name):
        pass
    ing.flush()
    return ing.counters.messages, time.process_time() - t0, ing.counters.summary()


def main() -> int:
    """Run both, print medians and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", help="NMEA file (default: the shared 100k corpus)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--quick", action="store_true", help="the repository's real sample, 3 repetitions"
    )
    args = ap.parse_args()
    if args.quick:
        args.reps = 3
    args.path = args.path or str(corpus(args.quick))
    py_rates: list[float] = []
    vg_rates: list[float] = []
    py_times: list[float] = []
    vg_times: list[float] = []
    ck_rates: list[float] = []
    bt_rates: list[float] = []
    bt_times: list[float] = []
    n_py = n_vg = n_ck = n_bt = 0
    summary = ""
    for _ in range(args.reps):
        gc.collect()
        n_py, dt = bare_pyais(args.path)
        py_rates.append(n_py / dt)
        py_times.append(dt)
        gc.collect()
        n_ck, dt = bare_pyais(args.path, checksums=True)
        ck_rates.append(n_ck / dt)
        gc.collect()
        n_vg, dt, summary = vigia(args.path)
        vg_rates.append(n_vg / dt)
        vg_times.append(dt)
        gc.collect()
        n_bt, dt, bt_summary = vigia_batch(args.path)
        bt_rates.append(n_bt / dt)
        bt_times.append(dt)
        if bt_summary != summary:
            raise SystemExit(f"counters differ:\n per line {summary}\n batch    {bt_summary}")
    py = statistics.median(py_rates)
    vg = statistics.median(vg_rates)
    print(f"file: {args.path} ({args.reps} repetitions, medians)")
    print(
        f"bare pyais : {py:>10,.0f} msgs/s ({n_py} msgs, {statistics.median(py_times):.3f} CPU s)"
        " (baseline)"
    )
    print(
        f"vigia      : {vg:>10,.0f} msgs/s ({n_vg} msgs, {statistics.median(vg_times):.3f} CPU s)"
        " per line"
    )
    bt = statistics.median(bt_rates)
    print(
        f"vigia batch: {bt:>10,.0f} msgs/s ({n_bt} msgs, {statistics.median(bt_times):.3f} CPU s)"
        " batch decoder"
    )
    ck = statistics.median(ck_rates)
    print(f"pyais, checksums checked: {ck:>10,.0f} msgs/s ({n_ck} msgs)")
    print(f"vigia counters: {summary}")
    paired = statistics.median(v / p for v, p in zip(vg_rates, py_rates, strict=True))
    print(f"ratio vigia/pyais (median rates): {vg / py:.2f}")
    print(f"ratio vigia/pyais (median of paired repetitions): {paired:.2f}")
    print(f"ratio vigia/pyais with checksums checked (median rates): {vg / ck:.2f}")
    paired_bt = statistics.median(b / p for b, p in zip(bt_rates, py_rates, strict=True))
    print(f"ratio vigia batch/pyais (median rates): {bt / py:.2f}  (goal >= 3)")
    print(f"ratio vigia batch/pyais (median of paired repetitions): {paired_bt:.2f}")
    print(f"ratio vigia batch/pyais with checksums checked (median rates): {bt / ck:.2f}")
    print(f"ratio vigia batch/per line (median rates): {bt / vg:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
