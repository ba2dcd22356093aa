"""Identity integrity (issue 34): false leads on real traffic and planted spoofing found,
against a naive baseline on the same records.

Real traffic is the shared 100,000-message corpus and pyais's captures (``--quick``: the
repository's sample alone), decoded as ``vigia decode`` does; the corpus carries no
times, so message k is taken as heard at T0 + k/10 s (ten messages a second, a busy coast
station). Every ``ID-*`` lead on it counts as false, and is listed for the note. Then
``scripts/inject_identity.py`` plants each kind of case on real vessels of the same
capture, and the run says which were found.

Vigia: the pipeline's ``ID-*`` rules. Baseline: what a first attempt would flag: any
change of name, call sign or IMO under one MMSI, any IMO that fails its check digit, any
MID no administration holds or call sign in another administration's series, and any
single fix on Natural Earth's land (no rivers, lakes or ports taken out).

    .venv/bin/python -m benchmarks.identity [--per-case 5] [--quick]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from benchmarks._data import CORPUS, SAMPLE, corpus
from scripts.inject_identity import CASES, TRUTH, inject
from vigia.alerts.identity.land import inside_coast
from vigia.alerts.identity.mid import country, flag_conflict
from vigia.alerts.identity.static import imo_valid
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.ingest.registry import VesselRegistry
from vigia.zones.evaluate import ZoneIndex

T0 = 1_767_261_600.0
PYAIS = [CORPUS.parent / n for n in ("pyais_nmea_data_sample.txt", "pyais_mixed.txt")]


def read_capture(*paths: str | Path) -> list[Record]:
    """Position and static records of the files, message k heard at T0 + k/10 s."""
    ing = Ingestor()
    out: list[Record] = []
    k = 0
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
            for r in ing.feed(RawLine(line, T0 + k / 10.0, "capture")):
                k += 1
                if type(r) in (Position, StaticData):
                    out.append(r)
    return out


def vigia_leads(records: Sequence[Record]) -> tuple[list[Lead], float]:
    """The pipeline's ID-* leads (no zones: only identity rules speak), seconds taken."""
    pipe = LeadPipeline(ZoneIndex([]), VesselRegistry())
    t = time.perf_counter()
    leads: list[Lead] = []
    for i in range(0, len(records), 2_000):
        leads += pipe.process(records[i : i + 2_000]) + pipe.expire(pipe.stream_time)
    leads += pipe.finish()
    return [x for x in leads if x.rule.startswith("ID-")], time.perf_counter() - t


def land_flags(records: Sequence[Record]) -> set[int]:
    """MMSIs the baseline flags for any fix on land (margin 0)."""
    pos = [r for r in records if type(r) is Position and r.lon is not None and r.lat is not None]
    lon = np.array([p.lon for p in pos], dtype=np.float64)
    lat = np.array([p.lat for p in pos], dtype=np.float64)
    on = inside_coast(lon, lat, 1e-3)
    return {p.mmsi for p, d in zip(pos, on.tolist(), strict=True) if d}


def baseline_flags(records: Sequence[Record]) -> set[tuple[int, str]]:
    """(MMSI, what) the naive rules flag (see the module's docstring)."""
    out: set[tuple[int, str]] = set()
    last: dict[int, tuple[object, ...]] = {}
    for r in records:
        if type(r) is not StaticData:
            continue
        ident = (r.name, r.callsign, r.imo)
        before = last.get(r.mmsi)
        if before is not None and any(
            a is not None and b is not None and a != b for a, b in zip(before, ident, strict=True)
        ):
            out.add((r.mmsi, "change"))
        last[r.mmsi] = tuple(
            b if b is not None else a for a, b in zip(before or ident, ident, strict=True)
        )
        if r.imo and not imo_valid(r.imo):
            out.add((r.mmsi, "imo"))
        if country(r.mmsi)[1] is None or flag_conflict(r.mmsi, r.callsign):
            out.add((r.mmsi, "mid"))
    return out


def named(x: Lead) -> set[int]:
    """The MMSIs a lead names: an interference lead names every ship that jumped."""
    if x.rule == "ID-INTERFERENCE":
        return {int(v["mmsi"]) for v in x.details["vessels"]}
    return {x.mmsi}


def _per_100k(n: int, messages: int) -> float:
    return n * 100_000 / max(messages, 1)


def _show(
    title: str, flagged: Iterable[int], found: int, plan: dict[int, str], messages: int
) -> None:
    """Precision: flagged vessels that carry a planted case a rule should find; recall:
    planted cases found by the rule meant for them (``found``)."""
    flagged = set(flagged)
    planted_true = {m for m, c in plan.items() if TRUTH[c] is not None}
    tp = len(flagged & planted_true)
    fp = len(flagged - planted_true)
    precision = tp / max(tp + fp, 1)
    recall = found / max(len(planted_true), 1)
    print(
        f"{title:32s} precision {precision:5.2f}  recall {recall:5.2f}  "
        f"vessels flagged {len(flagged):4d}  false {fp:4d}  "
        f"false per 100k messages {_per_100k(fp, messages):7.1f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-case", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="the repository's sample only")
    args = ap.parse_args(argv)
    files = [SAMPLE] if args.quick else [corpus(False), *[p for p in PYAIS if p.exists()]]
    real = read_capture(*files)
    vessels = len({r.mmsi for r in real})
    span_d = (max(r.t for r in real) - min(r.t for r in real)) / 86_400
    print(f"real traffic: {len(real)} records, {vessels} vessels, {len(files)} files")

    leads, secs = vigia_leads(real)
    base = baseline_flags(real)
    base_land = land_flags(real)
    print("\n-- on real traffic (every flag counts as false) --")
    print(f"vigia ID-* leads            {len(leads):5d}  per 100k records "
          f"{_per_100k(len(leads), len(real)):7.1f}  per 1,000 vessel-days "
          f"{len(leads) * 1000 / max(vessels * span_d, 1e-9):9.1f}")  # fmt: skip
    for x in leads:
        what = x.details.get("events") or x.details.get("max_apart_m")
        print(f"  {x.rule} {x.mmsi} at {x.closest_lon:.4f}, {x.closest_lat:.4f} {what or ''}")
    print(f"baseline flags              {len(base) + len(base_land):5d}  per 100k records "
          f"{_per_100k(len(base) + len(base_land), len(real)):7.1f}")  # fmt: skip
    print(f"cost: {secs / max(len(real), 1) * 1e6:.1f} us per record through the pipeline")

    planted, plan = inject(real, args.per_case, args.seed, min_fixes=3 if args.quick else 10)
    got, _ = vigia_leads(planted)
    print(f"\n-- planted: {args.per_case} vessels per case, {len(plan)} in all --")
    print(f"{'case':10s} {'truth':18s} {'vigia':>6s} {'baseline':>9s}")
    naive = baseline_flags(planted)
    naive_land = land_flags(planted)
    found_v = found_b = 0
    for case in CASES:
        ms = [m for m, c in plan.items() if c == case]
        truth = TRUTH[case]
        found = sum(
            1 for m in ms
            if any(m in named(x) and (truth is None or x.rule == truth) for x in got)
        )  # fmt: skip
        flagged = sum(
            1 for m in ms
            if (m in naive_land if truth == "ID-ON-LAND" else any(f[0] == m for f in naive))
        )  # fmt: skip
        print(f"{case:10s} {truth or 'no lead':18s} {found:4d}/{len(ms)} {flagged:6d}/{len(ms)}")
        if truth is not None:
            found_v, found_b = found_v + found, found_b + flagged
    victims = {m for m, c in plan.items() if c == "cluster"}
    own = sorted({x.mmsi for x in got if x.mmsi in victims and x.rule != "ID-INTERFERENCE"})
    events = [x for x in got if x.rule == "ID-INTERFERENCE"]
    print(f"interference leads: {len(events)} (vessels named: "
          f"{sorted(len(named(x)) for x in events)}); cluster ships with a lead of their "
          f"own as well: {len(own)}")  # fmt: skip
    vigia_flagged = {m for x in got for m in named(x)}
    base_flagged = {f[0] for f in naive} | naive_land
    print()
    _show("vigia", vigia_flagged, found_v, plan, len(planted))
    _show("baseline (naive rules)", base_flagged, found_b, plan, len(planted))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
