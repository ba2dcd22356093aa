"""One-line mutation testing of the domain code: does a plausible bug fail a test?

Each mutation below is a one-line change (a boundary moved, a unit lost, a check dropped)
and the tests that should catch it. For each, the script copies the repository into a
temporary folder once, applies the change there (the worktree itself is never touched,
so Ctrl-C leaves nothing behind), runs the listed tests with ``pytest -x -q`` on one
worker, records ``killed`` (a test failed), ``survived`` (all passed) or ``stale`` (the
original fragment is no longer in the file: the code moved on and the mutation needs
updating; a stale mutation is not counted as killed), restores the file, and goes on.

    python scripts/mutate.py                 # every mutation, survival rate at the end
    python scripts/mutate.py --only NAME     # one (or several, repeat --only) by name
    python scripts/mutate.py --list          # names, files and tests, nothing run
    python scripts/mutate.py --baseline      # first run each test list unmutated
    python scripts/mutate.py --only NAME --tests tests/x.py   # other tests against it

The copy imports as ``vigia.*`` through a ``vigia/`` folder of links put first on
``PYTHONPATH`` (the editable install's finder comes after the standard path finder), and
sits next to a link to ``/work/shared`` so tests that read the seeds find them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("alerts", "zones", "ingest", "service", "data", "tests", "scripts", "benchmarks")
PACKAGES = ("ingest", "zones", "alerts", "service")

# the new boundary tests, by concern (each runs in seconds)
B_BALLAST = "tests/ballast/test_boundaries_ballast.py"
B_RULES = "tests/alerts/test_boundaries_rules.py"
B_PROC = "tests/alerts/test_boundaries_procedure.py"
B_INGEST = "tests/ingest/test_boundaries_ingest.py"
B_ZONES = "tests/zones/test_boundaries_zones.py"
B_DOCS = "tests/api/test_boundaries_documents.py"
ENC = "tests/alerts/test_encounters.py"
PORTS = "tests/alerts/test_port_visits.py"
B_BUS = "tests/bus/test_boundaries_broker_leads.py"  # real nats-server and PostGIS, ~20 s
# every route with two authorities' keys, over a served API on both stores (~45 s)
SCOPE = "tests/live/test_authority_scope.py"
EDITS = "tests/api/test_lead_edits.py"
# an existing test whose expected values are hand-computed (24 h = 12,000 m3 x 2 / 1,000)
ATON = "tests/alerts/test_aton_damage.py"
SART = "tests/alerts/test_sar_distress.py::test_sart_in_test_mode_raises_nothing"
# hand-worked working days across Carnival (Mon 16 / Tue 17 Feb 2026)
HOLIDAYS = "tests/alerts/test_deadlines.py::test_working_days_by_hand"
ERAS = "tests/alerts/test_eras.py"
AUDIT_B = "tests/ballast/test_audit.py::test_exchange_under_b_while_a_was_available"
# exactly at the figure, and the era-clock plumbing with direct oracles (issue 35)
AT_BALLAST = "tests/ballast/test_ballast_at_the_bound.py"
AT_CLOCK = "tests/ingest/test_clock_at_the_bound.py"
PLUMBING = "tests/alerts/test_era_plumbing.py"


@dataclass(frozen=True)
class Mutation:
    """One plausible one-line bug: in ``file``, ``find`` (which must occur exactly once)
    becomes ``replace``; ``tests`` are the pytest arguments that should catch it. A few
    bugs live on two lines that must change together (``also``: more (find, replace)
    pairs in the same file), e.g. a key built in two places."""

    name: str
    file: str
    find: str
    replace: str
    tests: tuple[str, ...]
    why: str = ""
    also: tuple[tuple[str, str], ...] = field(default=())


M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # -- ballast water (NORMAM-20 2.3.1, 2.1) ------------------------------------------
    M(
        "ballast-200nm-199",
        "zones/ballast_grid.py",
        "LIMIT_A_NM = 200.0",
        "LIMIT_A_NM = 199.0",
        (B_BALLAST,),
        "the 2.3.1 a) line moved in by a mile",
    ),
    M(
        "ballast-50nm-49",
        "zones/ballast_grid.py",
        "LIMIT_B_NM = 50.0",
        "LIMIT_B_NM = 49.0",
        (B_BALLAST,),
        "the 2.3.1 b) line moved in by a mile",
    ),
    M(
        "ballast-depth-150",
        "zones/ballast.py",
        "MIN_DEPTH_M = 200.0",
        "MIN_DEPTH_M = 150.0",
        (B_BALLAST,),
        "the 200 m depth taken as 150 m",
    ),
    M(
        "ballast-50-ignores-depth",
        "zones/ballast.py",
        "(zone >= BETWEEN) & deep",
        "(zone >= BETWEEN)",
        (B_BALLAST,),
        "b) water without the depth condition",
    ),
    M(
        "ballast-audit-endpoints-only",
        "alerts/ballast/audit.py",
        "between = np.flatnonzero((at.t > ex.start.t) & (at.t < ex.end.t))",
        "between = np.flatnonzero((at.t > ex.start.t) & (at.t < ex.start.t))",
        (B_BALLAST,),
        "the audit judges only the declared start and end points",
    ),
    M(
        "ballast-match-50nm",
        "alerts/ballast/audit.py",
        "match_distance_nm: float = 5.0",
        "match_distance_nm: float = 50.0",
        (B_BALLAST,),
        "position-match tolerance 50 nm",
    ),
    M(
        "ballast-match-50nm-settings",
        "service/settings.py",
        "match_distance_nm: float = 5.0",
        "match_distance_nm: float = 50.0",
        (B_BALLAST,),
        "the service's shipped tolerance",
    ),
    M(
        "ballast-match-time-5h",
        "alerts/ballast/audit.py",
        "match_time_s: float = 1800.0",
        "match_time_s: float = 18000.0",
        (B_BALLAST,),
        "time-match tolerance ten times looser",
    ),
    M(
        "ballast-fallback-without-opportunity",
        "alerts/ballast/audit.py",
        "elif a.meets_50.all() and not long_enough:",
        "elif a.meets_50.all():",
        (B_BALLAST, AUDIT_B),
        "b) accepted although a)-water was available",
    ),
    M(
        "ballast-sequential-factor",
        "alerts/ballast/audit.py",
        '"sequential": 2.0',
        '"sequential": 1.0',
        (B_BALLAST, AUDIT_B),
        "sequential exchange pumps one volume",
    ),
    M(
        "ballast-certificate-10y",
        "alerts/ballast/applicability.py",
        "CERTIFICATE_MAX_S = 5 * 365.25 * 86_400",
        "CERTIFICATE_MAX_S = 10 * 365.25 * 86_400",
        (B_BALLAST,),
        "2.1.3.1 b) certificate valid ten years",
    ),
    M(
        "ballast-platform-move-50",
        "alerts/ballast/applicability.py",
        "PLATFORM_MOVE_NM = 5.0",
        "PLATFORM_MOVE_NM = 50.0",
        (B_BALLAST,),
        "installed platform may wander 50 nm",
    ),
    M(
        "ballast-ajb-2000nm",
        "alerts/ballast/applicability.py",
        "at.distance_nm <= 200.0",
        "at.distance_nm <= 2000.0",
        (B_BALLAST,),
        "AJB without its 200 nm limit",
    ),
    M(
        "ballast-small-craft-150m",
        "alerts/ballast/applicability.py",
        "length is None or length > 50",
        "length is None or length > 150",
        (B_BALLAST,),
        "2.1.1 b) up to 150 m",
    ),
    M(
        "ballast-small-craft-80m3",
        "alerts/ballast/applicability.py",
        "decl.ballast_capacity_m3 > 8",
        "decl.ballast_capacity_m3 > 80",
        (B_BALLAST,),
        "2.1.1 b) up to 80 m3",
    ),
    M(
        "ballast-window-gap-x10",
        "alerts/ballast/screening.py",
        "ts[i] - ts[i - 1] <= max_gap_s",
        "ts[i] - ts[i - 1] <= 10 * max_gap_s",
        (B_BALLAST,),
        "a long AIS gap no longer splits a window",
    ),
    M(
        "ballast-lookback-2h",
        "alerts/ballast/applicability.py",
        "VOYAGE_LOOKBACK_S = 24 * 3600.0",
        "VOYAGE_LOOKBACK_S = 2 * 3600.0",
        (B_BALLAST,),
        "a track 2 h before the exchange covers the voyage",
    ),
    # -- distances of the NORMAM-07 rules -------------------------------------------------
    M(
        "military-200-150",
        "zones/evaluate.py",
        "ZoneKind.MILITARY: 200.0,",
        "ZoneKind.MILITARY: 150.0,",
        (B_ZONES,),
        "0212 a) 200 m",
    ),
    M(
        "platform-500-450",
        "zones/evaluate.py",
        "ZoneKind.PLATFORM: 500.0,",
        "ZoneKind.PLATFORM: 450.0,",
        (B_ZONES,),
        "0212 f) 500 m",
    ),
    M(
        "beach-200-150",
        "zones/evaluate.py",
        "ZoneKind.BATHER_BEACH: 200.0,",
        "ZoneKind.BATHER_BEACH: 150.0,",
        (B_ZONES,),
        "0211 b) 2) 200 m",
    ),
    M(
        "sail-band-100-50",
        "zones/catalogue.py",
        "SAIL_BAND_M = 100.0",
        "SAIL_BAND_M = 50.0",
        (B_ZONES, B_RULES),
        "0211 b) 1) 100 m",
    ),
    M(
        "footprint-ignored",
        "zones/evaluate.py",
        "dist = np.where(off > 0, np.maximum(dist - off, 0.0), dist)",
        "dist = dist",
        (B_ZONES,),
        "platform footprint / surf line offset ignored",
    ),
    M(
        "valid-to-a-day-late",
        "zones/model.py",
        "t > self.valid_to.timestamp()",
        "t > self.valid_to.timestamp() + 86400",
        (B_ZONES,),
        "zone in force a day too long",
    ),
    M(
        "recurrence-end-inclusive",
        "zones/recurrence.py",
        "start <= now < end if start < end",
        "start <= now <= end if start < end",
        (B_ZONES,),
        "bathers' hours one minute longer",
    ),
    M(
        "jurisdiction-routes-when-near",
        "zones/model.py",
        "if self.kind is ZoneKind.JURISDICTION and distance_m <= 0.0:",
        "if self.kind is ZoneKind.JURISDICTION and distance_m <= 500.0:",
        (B_ZONES,),
        "a lead routed to a Capitania it lies outside of",
    ),
    M(
        "valid-from-a-day-early",
        "zones/model.py",
        "t < self.valid_from.timestamp()",
        "t < self.valid_from.timestamp() - 86400",
        (B_ZONES,),
        "zone in force a day early",
    ),
    M(
        "recurrence-months-ignored",
        "zones/recurrence.py",
        "if months is not None and local.month not in months:",
        "if False:",
        (B_ZONES,),
        "a summer-only zone in force all year",
    ),
    M(
        "recurrence-weekdays-ignored",
        "zones/recurrence.py",
        "if weekdays is not None and local.isoweekday() not in weekdays:",
        "if False:",
        (B_ZONES,),
        "a weekend-only zone in force every day",
    ),
    M(
        "nautical-mile-1850",
        "ingest/units.py",
        "M_PER_NM = 1852.0",
        "M_PER_NM = 1850.0",
        (B_BALLAST,),
        "the nautical mile two metres short",
    ),
    M(
        "pipeline-margin-0",
        "alerts/pipeline.py",
        "margin_m=self.config.hold_m)",
        "margin_m=0.0)",
        (B_RULES,),
        "fixes just beyond the rule distance never seen",
    ),
    # -- the rules' judgement ---------------------------------------------------------
    M(
        "approach-speed-5kn",
        "alerts/rules.py",
        "max_sog_kn: float = 3.0",
        "max_sog_kn: float = 5.0",
        (B_RULES,),
        "0211 b) 3) slow approach at 5 kn",
    ),
    M(
        "approach-angle-45",
        "alerts/rules.py",
        "course_tolerance_deg: float = 30.0",
        "course_tolerance_deg: float = 45.0",
        (B_RULES,),
        "approach tolerance 45 degrees",
    ),
    M(
        "approach-made-good-margin-10",
        "alerts/rules.py",
        "made_good_margin_kn: float = 1.0",
        "made_good_margin_kn: float = 10.0",
        (B_RULES,),
        "ran in fast between fixes, unseen",
    ),
    M(
        "angle-diff-no-wrap",
        "alerts/rules.py",
        "return 360.0 - d if d > 180.0 else d",
        "return d",
        (B_RULES,),
        "bearings 350 and 10 taken as 340 apart",
    ),
    M(
        "area-hysteresis-removed",
        "alerts/pipeline.py",
        "near = d <= thr + cfg.hold_m\n",
        "near = d <= thr\n",
        (B_RULES,),
        "area hysteresis band removed",
    ),
    M(
        "hold-band-0",
        "alerts/episodes.py",
        "hold_m: float = 50.0",
        "hold_m: float = 0.0",
        (B_RULES,),
        "no boundary-jitter band at all",
    ),
    M(
        "hold-60s",
        "alerts/episodes.py",
        "hold_s: float = 600.0",
        "hold_s: float = 60.0",
        (B_RULES,),
        "an episode closes after a minute clear",
    ),
    M(
        "glitch-speed-unit",
        "alerts/tracking.py",
        "d > cfg.glitch_speed_kn * KN * dt",
        "d > cfg.glitch_speed_kn * dt",
        (B_RULES,),
        "glitch speed limit in m/s, not knots",
    ),
    M(
        "glitch-min-jump-2000",
        "alerts/episodes.py",
        "glitch_min_jump_m: float = 200.0",
        "glitch_min_jump_m: float = 2000.0",
        (B_RULES,),
        "1 km jumps never glitches",
    ),
    M(
        "anchor-sog-1.5",
        "alerts/episodes.py",
        "anchor_sog_kn: float = 0.5",
        "anchor_sog_kn: float = 1.5",
        (B_RULES,),
        "1 kn counts as stopped",
    ),
    M(
        "anchor-dwell-30s",
        "alerts/episodes.py",
        "anchor_dwell_s: float = 300.0",
        "anchor_dwell_s: float = 30.0",
        (B_RULES,),
        "anchored after 30 s stopped",
    ),
    M(
        "stale-status-20kn",
        "alerts/episodes.py",
        "status_moving_kn: float = 2.0",
        "status_moving_kn: float = 20.0",
        (B_RULES,),
        "'at anchor' believed at 10 kn",
    ),
    M(
        "installation-radius-x3",
        "alerts/episodes.py",
        "installation_radius_m: float = 100.0",
        "installation_radius_m: float = 300.0",
        (B_RULES,),
        "installation radius tripled",
    ),
    M(
        "installation-length-10",
        "alerts/episodes.py",
        "installation_min_length_m: float = 100.0",
        "installation_min_length_m: float = 10.0",
        (B_RULES,),
        "a fishing boat tied up is the installation",
    ),
    M(
        "installation-moving",
        "alerts/beach.py",
        "if not m.stopped or d > cfg.installation_radius_m or info is None:",
        "if d > cfg.installation_radius_m or info is None:",
        (B_RULES,),
        "a ship under way near a platform exempt",
    ),
    M(
        "launch-dwell-x10",
        "alerts/rules.py",
        "m.stopped_for_s > limit * 60.0",
        "m.stopped_for_s > limit * 600.0",
        (B_RULES,),
        "launch-area dwell in 10-minute units",
    ),
    M(
        "channel-anchoring-allowed",
        "alerts/rules.py",
        "if m.anchored and anchoring_prohibited(zone):",
        "if False:",
        (B_RULES,),
        "allowed ships may anchor in a channel",
    ),
    M(
        "sailing-type-37",
        "alerts/rules.py",
        "SAILING_SHIP_TYPE = 36",
        "SAILING_SHIP_TYPE = 37",
        (B_RULES,),
        "pleasure craft taken for sail",
    ),
    M(
        "sail-band-not-applied",
        "alerts/pipeline.py",
        "thr = min(self._sail_band, self._thr[z]) if m.sailing else self._thr[z]",
        "thr = self._thr[z]",
        (B_RULES,),
        "sailing boats held to the motor band",
    ),
    M(
        "allow-list-types-ignored",
        "alerts/rules.py",
        "return ship_type is not None and ship_type in zone.allowed_ship_types",
        "return False",
        (B_RULES,),
        "allowed ship types ignored",
    ),
    M(
        "authorised-valid-to-ignored",
        "alerts/authorised.py",
        "return not (self.valid_to is not None and t > self.valid_to)",
        "return True",
        (B_RULES,),
        "an expired authorisation still exempts",
    ),
    M(
        "authorised-valid-from-ignored",
        "alerts/authorised.py",
        "if self.valid_from is not None and t < self.valid_from:",
        "if False:",
        (B_RULES,),
        "an authorisation exempts before it starts",
    ),
    M(
        "authorised-any-zone",
        "alerts/authorised.py",
        "if (e.zone_id == zone.id or",
        "if (True or",
        (B_RULES,),
        "an authorisation for one platform exempts at all",
    ),
    M(
        "aton-radius-200",
        "alerts/aton.py",
        "radius_m: float = 500.0",
        "radius_m: float = 200.0",
        (ATON,),
        "0207 candidates only within 200 m",
    ),
    M(
        "aton-silent-900",
        "alerts/aton.py",
        "silent_s: float = 1_800.0",
        "silent_s: float = 900.0",
        (ATON,),
        "a buoy silent 15 min raises",
    ),
    M(
        "sart-test-status",
        "alerts/distress.py",
        "NAV_SART_TEST = 15",
        "NAV_SART_TEST = 14",
        (SART,),
        "a SART in test mode raises an alarm",
    ),
    # -- ingest clock and reassembly ----------------------------------------------------
    M(
        "future-clamp-x100",
        "ingest/decoder.py",
        "MAX_AHEAD_S = 300.0",
        "MAX_AHEAD_S = 30000.0",
        (B_INGEST,),
        "the future-time clamp a hundred times looser",
    ),
    M(
        "future-clamp-x100-settings",
        "service/settings.py",
        "max_ahead_s: float = Field(default=300.0, ge=0)",
        "max_ahead_s: float = Field(default=30000.0, ge=0)",
        (B_INGEST,),
        "the service's shipped clamp a hundred times looser",
    ),
    M(
        "stale-bound-x2",
        "ingest/decoder.py",
        "and t < received_at - self.max_behind_s",
        "and t < received_at - 2 * self.max_behind_s",
        (B_INGEST,),
        "stale bound doubled",
    ),
    M(
        "tagblock-key-no-sender",
        "ingest/decoder.py",
        'key: tuple[str, ...] = ("g", source, peer, tag.group_id)',
        'key: tuple[str, ...] = ("g", source, "", tag.group_id)',
        (B_INGEST,),
        "tag-block group key without its sender",
        also=(
            (
                '("g", source, peer, tag.group_id), tag.group_total',
                '("g", source, "", tag.group_id), tag.group_total',
            ),
        ),
    ),
    M(
        "fragment-key-no-sender",
        "ingest/decoder.py",
        'key = ("s", source, peer, fields[3], fields[4], fields[1])',
        'key = ("s", source, "", fields[3], fields[4], fields[1])',
        (B_INGEST,),
        "multi-sentence key without its sender",
    ),
    M(
        "knot-unit",
        "ingest/units.py",
        "MS_PER_KN = M_PER_NM / S_PER_H",
        "MS_PER_KN = M_PER_NM / 1000.0",
        (B_RULES, B_INGEST),
        "knots taken as km/h",
    ),
    M(
        "bus-drops-leads-closed-in-a-batch",
        "service/runtime/bus/partition.py",
        "leads = pipeline.process(records)\n",
        "leads = pipeline.process(records)[:0]\n",
        (B_BUS,),
        "broker mode loses the leads a batch closes",
    ),
    M(
        "bus-ignores-stream-clocks",
        "service/runtime/bus/partition.py",
        "pipeline.witness(clocks)",
        "pipeline.witness([])",
        ("tests/bus/test_broker_mode.py::test_two_workers_raise_the_same_leads_as_one_process",),
        "a partition ends an older era's episodes on its own vessels' clock only",
    ),
    # -- stream eras (issue 23: a vessel's verdicts depend only on its own records) -----
    M(
        "eras-one-clock",
        "alerts/eras.py",
        "        return self._hi[i]\n",
        "        return now\n",
        (ERAS,),
        "an older era's vessels expire on the latest era's clock",
    ),
    M(
        "eras-jump-is-quiet-time",
        "alerts/eras.py",
        "self._last = t  # the leap itself is no time passed",
        "pass",
        (ERAS,),
        "a jump to a later era settles the earlier ones at once",
    ),
    M(
        "eras-no-late-records",
        "alerts/eras.py",
        "if t >= above - self.back_s:",
        "if t >= above:",
        (ERAS,),
        "a record a little before an era's start starts an era of its own",
    ),
    # -- the procedure (NORMAM-07 0306, 0404) -------------------------------------------
    M(
        "repeat-counts-penalties-not-yet-final",
        "alerts/procedure/repeats.py",
        "if final is None or final > committed:",
        "if final is None:",
        ("tests/alerts/test_repeats.py",),
        "a fine still open to appeal on the day of the new infraction makes it a repeat",
    ),
    M(
        "infraction-to-closed",
        "alerts/procedure/workflow.py",
        '"infraction": ("defence", "judged"),',
        '"infraction": ("defence", "judged", "closed"),',
        (B_PROC,),
        "infraction -> closed skipping judgment",
    ),
    M(
        "new-to-notified",
        "alerts/procedure/workflow.py",
        '"new": ("triaged", "dismissed"),',
        '"new": ("triaged", "dismissed", "notified"),',
        (B_PROC,),
        "notice without triage",
    ),
    M(
        "lesta-auto-before-notice",
        "alerts/procedure/workflow.py",
        'if status == "triaged" and regime == LESTA:',
        "if False:",
        (B_PROC,),
        "0306 a) I: LESTA Auto before the Notice",
    ),
    M(
        "three-appeals",
        "alerts/procedure/workflow.py",
        "MAX_APPEALS = 2",
        "MAX_APPEALS = 3",
        (B_PROC,),
        "a third appeal instance",
    ),
    M(
        "appeal-after-acquittal",
        "alerts/procedure/workflow.py",
        'or last.get("outcome") != "procedente"',
        'or last.get("outcome") == "nenhum"',
        (B_PROC,),
        "appeal against an improcedente decision",
    ),
    M(
        "dismiss-without-reason",
        "alerts/procedure/workflow.py",
        "if not reason or not reason.strip():",
        "if not reason:",
        (B_PROC,),
        "a blank dismissal reason accepted",
    ),
    M(
        "lesta-defence-10wd",
        "alerts/procedure/deadlines.py",
        'defence=(15, f"{N07} 0306 b) I")',
        'defence=(10, f"{N07} 0306 b) I")',
        (B_PROC,),
        "0306 b) I 15 working days",
    ),
    M(
        "lesta-judgment-60",
        "alerts/procedure/deadlines.py",
        'judgment=(30, f"{N07} 0306 b) II")',
        'judgment=(60, f"{N07} 0306 b) II")',
        (B_PROC,),
        "0306 b) II 30 days",
    ),
    M(
        "lesta-appeal-10wd",
        "alerts/procedure/deadlines.py",
        'appeal=((5, f"{N07} 0306 c)")',
        'appeal=((10, f"{N07} 0306 c)")',
        (B_PROC,),
        "0306 c) 5 working days",
    ),
    M(
        "lesta-payment-5",
        "alerts/procedure/deadlines.py",
        'payment=(15, f"{N07} 0306 b) IV")',
        'payment=(5, f"{N07} 0306 b) IV")',
        (B_PROC,),
        "0306 b) IV 15 days",
    ),
    M(
        "pollution-defence-15",
        "alerts/procedure/deadlines.py",
        'defence=(20, f"{N07} 0404 b); Lei 9.966/2000")',
        'defence=(15, f"{N07} 0404 b); Lei 9.966/2000")',
        (B_PROC,),
        "0404 b) 20 days",
    ),
    M(
        "saturday-working",
        "alerts/procedure/calendars.py",
        "if day.weekday() >= 5:",
        "if day.weekday() >= 6:",
        (B_PROC,),
        "Saturdays counted as working days",
    ),
    M(
        "judged-on-last-defence-day",
        "alerts/procedure/deadlines.py",
        "    if decided <= defence[0].due:",
        "    if decided < defence[0].due:",
        (B_PROC,),
        "judgment on the last day of the defence term",
    ),
    M(
        "repeat-window-24",
        "alerts/procedure/repeats.py",
        "REPEAT_WINDOW_MONTHS = 36",
        "REPEAT_WINDOW_MONTHS = 24",
        (B_PROC,),
        "NORMAM-20 1.5.3 b) 36 months",
    ),
    M(
        "carnival-working",
        "alerts/procedure/calendars.py",
        "    days.update(_optional(state, year, closed))",
        "    pass",
        (HOLIDAYS,),
        "federal offices open on Carnival",
    ),
    M(
        "documents-for-viewers",
        "service/http/routes/documents.py",
        'inspector = require_role("inspector")',
        'inspector = require_role("viewer")',
        (B_DOCS,),
        "a viewer drafts an Auto (both of the route's role checks dropped: either alone "
        "still refuses, so one of them changed is no bug)",
        also=(('Depends(require_scope("inspector"))', 'Depends(require_scope("viewer"))'),),
    ),
    M(
        "documents-authority-dropped",
        "service/http/routes/documents.py",
        "lead = found(repo.get_lead(lead_id, scope), lead_id)",
        "lead = found(repo.get_lead(lead_id, Scope(None)), lead_id)",
        (B_DOCS,),
        "a draft of another Capitania's lead",
    ),
    M(
        "scope-ignored-by-the-store",
        "service/db/zones_leads.py",
        "return [] if scope.authority is None else [column == scope.authority]",
        "return []",
        (SCOPE,),
        "one Capitania reads every other's leads, silences and watch entries",
    ),
    M(
        "stream-unscoped",
        "service/http/routes/stream.py",
        "if wanted(f.event) and scope.admits(f.event.authority)",
        "if wanted(f.event)",
        (SCOPE,),
        "the event stream carries another Capitania's CPFs",
    ),
    M(
        "silence-of-any-authority",
        "alerts/procedure/silencing.py",
        "if self.authority is not None and self.authority != authority:",
        "if False:",
        ("tests/alerts/test_register_routing.py",),
        "one Capitania's silence hides another's lead",
    ),
    M(
        "edit-without-version-check",
        "service/db/procedure_store.py",
        ".where(LeadRow.id == lead_id, LeadRow.version == row.version)",
        ".where(LeadRow.id == lead_id)",
        (EDITS,),
        "two concurrent edits both acknowledged, one lost (SQLite)",
    ),
    M(
        "documents-for-new-leads",
        "service/http/routes/documents.py",
        'DRAFTABLE = ("triaged", "notified", "infraction")',
        'DRAFTABLE = ("new", "triaged", "notified", "infraction")',
        (B_DOCS,),
        "a draft before triage",
    ),
    # -- AT the bound (issue 35): the comparison with a named threshold made strict or
    # loose. The value is right on both sides; only a case exactly at the threshold
    # tells ``<`` from ``<=``, and that is the case a test on both sides never tries
    M(
        "bound-encounter-500m-strict",
        "alerts/encounters/pairing.py",
        "keep = np.flatnonzero(np.asarray(dist) <= near_m)",
        "keep = np.flatnonzero(np.asarray(dist) < near_m)",
        (ENC,),
        "two ships exactly 500 m apart are no longer adjacent (GFW: within 500 m)",
    ),
    M(
        "bound-encounter-2kn-loose",
        "alerts/encounters/watch.py",
        "if p.sog is not None and p.sog < cfg.max_sog_kn:",
        "if p.sog is not None and p.sog <= cfg.max_sog_kn:",
        (ENC,),
        "a ship at exactly 2 kn counts as slow (GFW: below 2 knots)",
    ),
    M(
        "bound-encounter-2h-strict",
        "alerts/encounters/watch.py",
        "if run.duration_s(self.cfg.slot_s) >= self.cfg.min_duration_s:",
        "if run.duration_s(self.cfg.slot_s) > self.cfg.min_duration_s:",
        (ENC,),
        "a meeting of exactly 2 h is no longer a lead (GFW: at least 2 hours)",
    ),
    M(
        "bound-encounter-gap-strict",
        "alerts/encounters/tracks.py",
        "if after is None or after.t - before.t > max_gap_s:",
        "if after is None or after.t - before.t >= max_gap_s:",
        (ENC,),
        "a silence of exactly 1 h is no longer interpolated across (GFW: over 1 hour)",
    ),
    M(
        "bound-port-entry-strict",
        "alerts/ports/visits.py",
        "if d <= cfg.entry_m]",
        "if d < cfg.entry_m]",
        (PORTS,),
        "a ship exactly 3 km from the anchorage no longer enters it (GFW: within 3 km)",
    ),
    M(
        "bound-port-exit-loose",
        "alerts/ports/visits.py",
        "near.get(st.zone, math.inf) > cfg.exit_m:",
        "near.get(st.zone, math.inf) >= cfg.exit_m:",
        (PORTS,),
        "a ship exactly 4 km out has left (GFW: beyond 4 km)",
    ),
    M(
        "bound-port-stop-loose",
        "alerts/ports/visits.py",
        "if st.stop_from is None and sog < cfg.stop_kn:",
        "if st.stop_from is None and sog <= cfg.stop_kn:",
        (PORTS,),
        "a ship at exactly 0.2 kn is stopped (GFW: below 0.2 kn)",
    ),
    M(
        "bound-port-go-loose",
        "alerts/ports/visits.py",
        "elif st.stop_from is not None and sog > cfg.go_kn:",
        "elif st.stop_from is not None and sog >= cfg.go_kn:",
        (PORTS,),
        "a ship at exactly 0.5 kn ends its stop (GFW: above 0.5 kn)",
    ),
    M(
        "bound-ballast-200nm-strict",
        "zones/ballast.py",
        "z[distance_nm >= LIMIT_A_NM] = BEYOND",
        "z[distance_nm > LIMIT_A_NM] = BEYOND",
        (B_BALLAST, AT_BALLAST),
        "a point exactly 200 nm from land no longer counts as 200 nm (NORMAM-20: at least)",
    ),
    M(
        "bound-ballast-50nm-strict",
        "zones/ballast.py",
        "z[distance_nm >= LIMIT_B_NM] = BETWEEN",
        "z[distance_nm > LIMIT_B_NM] = BETWEEN",
        (B_BALLAST, AT_BALLAST),
        "exactly 50 nm from land is inside the 50 nm line",
    ),
    M(
        "bound-ballast-depth-strict",
        "zones/ballast.py",
        "np.nan_to_num(depth_m, nan=-1.0) >= MIN_DEPTH_M",
        "np.nan_to_num(depth_m, nan=-1.0) > MIN_DEPTH_M",
        (B_BALLAST, AT_BALLAST),
        "water exactly 200 m deep is too shallow",
    ),
    M(
        "bound-bather-sail-band-loose",
        "zones/catalogue.py",
        "distance_m is not None and distance_m < SAIL_BAND_M:",
        "distance_m is not None and distance_m <= SAIL_BAND_M:",
        (B_ZONES, B_RULES),
        "a sailing boat exactly at the band's outer edge is in the bathers' band",
    ),
    M(
        "bound-eez-loose",
        "alerts/procedure/waters.py",
        "if d_brazil > EEZ_NM:",
        "if d_brazil >= EEZ_NM:",
        ("tests/alerts/test_island_waters.py", "tests/alerts/test_routing.py"),
        "a lead exactly 200 nm out is outside the EEZ",
    ),
    M(
        "bound-territorial-loose",
        "alerts/procedure/waters.py",
        "return bool(d[0] > TERRITORIAL_NM)",
        "return bool(d[0] >= TERRITORIAL_NM)",
        ("tests/alerts/test_island_waters.py", "tests/alerts/test_routing.py"),
        "exactly 12 nm out is beyond the territorial sea",
    ),
    M(
        "bound-appeals-one-more",
        "alerts/procedure/workflow.py",
        ">= MAX_APPEALS",
        "> MAX_APPEALS",
        ("tests/alerts/test_appeal_terms.py", B_PROC),
        "a third appeal where the law allows two instances",
    ),
    M(
        "bound-time-ahead-loose",
        "ingest/decoder.py",
        "if t > received_at + self.max_ahead_s:",
        "if t >= received_at + self.max_ahead_s:",
        (B_INGEST, "tests/ingest/test_clock_bounds.py", AT_CLOCK),
        "a time exactly max_ahead_s after receipt is clamped",
    ),
    M(
        "bound-time-stale-loose",
        "ingest/decoder.py",
        "and t < received_at - self.max_behind_s",
        "and t <= received_at - self.max_behind_s",
        (B_INGEST, "tests/ingest/test_clock_bounds.py", AT_CLOCK),
        "a report exactly max_behind_s old is refused",
    ),
    M(
        "bound-forget-after-loose",
        "alerts/settling.py",
        "if w - last > self.config.forget_after_s and vs.quiet:",
        "if w - last >= self.config.forget_after_s and vs.quiet:",
        ("tests/alerts/test_rules_unit.py", ERAS, "tests/alerts/test_arrival.py", PLUMBING),
        "a vessel silent exactly the forget time is forgotten",
    ),
    M(
        "bound-eras-leap-loose",
        "alerts/eras.py",
        "if t - now >= self.back_s:",
        "if t - now > self.back_s:",
        (ERAS,),
        "a leap of exactly the lateness bound stays in the era",
    ),
    M(
        "bound-eras-seen-strict",
        "alerts/eras.py",
        "if self._progress - self._seen[i] <= self.back_s:",
        "if self._progress - self._seen[i] < self.back_s:",
        (ERAS,),
        "an era last heard exactly the bound ago no longer takes late records",
    ),
    # -- era-clock plumbing (issue 35): what carries each era's clock to whoever needs
    # it (a broker partition's witness, the forget sweep), with no verdict of its own
    M(
        "eras-clocks-latest-only",
        "alerts/eras.py",
        "return [*self._hi, now] if self.floor != math.inf else []",
        "return [now] if self.floor != math.inf else []",
        (ERAS, PLUMBING),
        "a partition hears only the latest era's clock: older eras never settle there",
    ),
    M(
        "eras-clocks-without-latest",
        "alerts/eras.py",
        "return [*self._hi, now] if self.floor != math.inf else []",
        "return [*self._hi] if self.floor != math.inf else []",
        (ERAS, PLUMBING),
        "a partition never hears the latest era's clock",
    ),
    M(
        "sweep-on-the-latest-clock",
        "alerts/settling.py",
        "w = clock(last, now) - bound",
        "w = now - bound",
        (ERAS, "tests/alerts/test_arrival.py", PLUMBING),
        "an older era's vessels are forgotten on the latest era's clock",
    ),
    M(
        "sweep-forgets-open-episodes",
        "alerts/settling.py",
        "if w - last > self.config.forget_after_s and vs.quiet:",
        "if w - last > self.config.forget_after_s:",
        (ERAS, "tests/alerts/test_arrival.py", "tests/alerts/test_rules_unit.py", PLUMBING),
        "a silent vessel with an episode open is forgotten, the episode with it",
    ),
    M(
        "sweep-forgets-what-it-heard",
        "alerts/settling.py",
        "gone[m] = (vs.tl.last_t, vs.seen)",
        "pass",
        (ERAS, "tests/alerts/test_arrival.py"),
        "a forgotten vessel's rerun records are judged again as new",
    ),
    # zones imported from charts and registers (issue 40)
    M(
        "import-updates-ignored",
        "zones/enc_import.py",
        'S57_OPTIONS = {"UPDATES": "APPLY"',
        'S57_OPTIONS = {"UPDATES": "IGNORE"',
        ("tests/zones/test_zone_import.py",),
        "a cell is imported as first issued, its updates (reshaped channels) lost",
    ),
    M(
        "import-fidn-signed",
        "zones/import_types.py",
        "return fidn + 2**32 if fidn < 0 else fidn",
        "return fidn",
        ("tests/zones/test_zone_import.py",),
        "a feature id of 2**31 or more is named by GDAL's wrapped negative number",
    ),
    M(
        "import-overwrites-hand-edits",
        "zones/import_plan.py",
        "elif scope_of(old) == scope_of(new) and edited_since_import(old) and not force:",
        "elif scope_of(old) == scope_of(new) and False and not force:",
        ("tests/storage/test_zone_import_store.py",),
        "a zone an admin corrected is silently replaced by the next import",
    ),
    M(
        "import-retires-other-sources",
        "zones/import_plan.py",
        "if old.id in arriving or scope_of(old) not in covered:",
        "if old.id in arriving:",
        ("tests/storage/test_zone_import_store.py",),
        "an import retires every zone it did not make, bundled and hand-drawn ones too",
    ),
    M(
        "import-stale-plan-stored",
        "service/db/zone_imports.py",
        "            if moved:",
        "            if False:",
        ("tests/storage/test_zone_import_store.py",),
        "an import planned before an admin's edit overwrites the edit",
    ),
    M(
        "identity-imo-weights",
        "alerts/identity/static.py",
        "zip(d[:6], range(7, 1, -1), strict=True)",
        "zip(d[:6], range(8, 2, -1), strict=True)",
        ("tests/alerts/test_identity_static.py",),
        "the IMO check digit weighted 8..3 instead of 7..2",
    ),
    M(
        "bound-identity-day-strict",
        "alerts/identity/static.py",
        "prior = [k for s, k in ident.seen if t - s <= WINDOW_S]",
        "prior = [k for s, k in ident.seen if t - s < WINDOW_S]",
        ("tests/alerts/test_identity_static.py",),
        "an identity back exactly a day later is no longer a return",
    ),
    M(
        "bound-identity-forget-loose",
        "alerts/identity/static.py",
        "if t - ident.last_t > forget:",
        "if t - ident.last_t >= forget:",
        ("tests/alerts/test_identity_static.py",),
        "identities forgotten after a static silence of exactly the forget time",
    ),
    M(
        "bound-identity-quiet-strict",
        "alerts/identity/static.py",
        "if not evs or w - evs[n - 1][0] <= QUIET_S:",
        "if not evs or w - evs[n - 1][0] < QUIET_S:",
        ("tests/alerts/test_identity_static.py",),
        "an identity lead given out when the bound is exactly at its quiet time",
    ),
    M(
        "bound-identity-history-day-cap",
        "alerts/identity/history.py",
        "if change.n <= DAY_CAP:",
        "if change.n < DAY_CAP:",
        ("tests/alerts/test_identity_history.py",),
        "a vessel's 50th change of the day handed out as counted only, not kept",
    ),
    M(
        "bound-identity-history-store-cap",
        "service/db/identity_history.py",
        "if (c.t, c.field) in keys or len(keys) >= DAY_CAP:",
        "if (c.t, c.field) in keys or len(keys) > DAY_CAP:",
        ("tests/storage/test_identity_history_store.py",),
        "a day that holds 50 rows takes a 51st from a worker restarted mid-day",
    ),
    M(
        "identity-history-late-not-replaced",
        "alerts/rejudge.py",
        "        judged_again(pipe.identity_out(), mmsi, vs.ident, first_static)",
        "        pass",
        ("tests/alerts/test_identity_history.py",),
        "a late static report leaves the changes handed out before it in the store",
    ),
    M(
        "identity-brazil-series",
        "alerts/identity/mid.py",
        "return self.lo[:2] <= cs[:2] <= self.hi[:2]",
        "return self.lo[:2] <= cs[:2] < self.hi[:2]",
        ("tests/alerts/test_identity_static.py",),
        "the last series of a range (Brazil's PY) taken for another country's",
    ),
    M(
        "identity-land-margin",
        "alerts/identity/land.py",
        "MARGIN_M = 2_000.0",
        "MARGIN_M = 1_000.0",
        ("tests/alerts/test_identity_land.py",),
        "fixes 1 km inside the coarse land taken as deep on land",
    ),
)


def _copy_tree(base: Path) -> Path:
    """The repository's code and tests under ``base/wt``, importable as ``vigia.*``."""
    wt = base / "wt"
    wt.mkdir()
    for name in COPIED:
        shutil.copytree(
            ROOT / name,
            wt / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    shutil.copy2(ROOT / "pyproject.toml", wt / "pyproject.toml")
    (wt / "vigia").mkdir()
    for p in PACKAGES:
        (wt / "vigia" / p).symlink_to(Path("..") / p)
    # vigia.zones.geojson is data/geojson in the installed layout
    (wt / "zones" / "geojson").symlink_to(Path("..") / "data" / "geojson")
    shared = ROOT.parent / "shared"
    if shared.exists():
        (base / "shared").symlink_to(shared)
    return wt


def _pytest(wt: Path, tests: tuple[str, ...], timeout: float) -> tuple[str, float, str]:
    env = dict(os.environ, PYTHONPATH=str(wt), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-q", *tests]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd, cwd=wt, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, ""
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
    # 0: all passed; 1: a test failed; 2-4: interrupted or a usage/collection error
    status = {0: "passed", 1: "failed"}.get(proc.returncode, f"error rc={proc.returncode}")
    return status, time.monotonic() - start, " | ".join(tail)


def _apply(text: str, m: Mutation) -> str | None:
    """The mutated text, or None when a fragment is missing or ambiguous (stale)."""
    for find, new in ((m.find, m.replace), *m.also):
        if text.count(find) != 1:
            return None
        text = text.replace(find, new)
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the mutations; the exit code is 1 when the survival rate is 5% or more."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="mutation name (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--baseline", action="store_true", help="run each test list unmutated first")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per test run")
    ap.add_argument(
        "--tests",
        nargs="+",
        default=None,
        help="run these pytest arguments for every chosen mutation instead of its own list "
        "(e.g. to see which older tests catch it)",
    )
    args = ap.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    if args.tests:
        chosen = [replace(m, tests=tuple(args.tests)) for m in chosen]
    unknown = set(args.only) - {m.name for m in MUTATIONS}
    if unknown:
        ap.error(f"unknown mutation(s): {', '.join(sorted(unknown))}")
    if args.list:
        for m in chosen:
            print(f"{m.name:40} {m.file:36} {' '.join(m.tests)}")
        print(f"{len(chosen)} mutations")
        return 0
    base = Path(tempfile.mkdtemp(prefix="vigia-mutate-"))
    results: dict[str, str] = {}
    try:
        wt = _copy_tree(base)
        if args.baseline:
            for tests in sorted({m.tests for m in chosen}):
                status, secs, tail = _pytest(wt, tests, args.timeout)
                print(f"baseline {' '.join(tests)}: {status} in {secs:.0f}s", flush=True)
                if status != "passed":
                    print(f"  {tail}")
                    return 2
        for m in chosen:
            path = wt / m.file
            original = path.read_bytes()
            mutated = _apply(original.decode(), m)
            if mutated is None:
                results[m.name] = "stale"
                print(f"{m.name:40} stale (fragment not found once in {m.file})", flush=True)
                continue
            try:
                path.write_text(mutated)
                status, secs, tail = _pytest(wt, m.tests, args.timeout)
            finally:
                path.write_bytes(original)
            verdict = "survived" if status == "passed" else "killed"
            results[m.name] = verdict
            print(f"{m.name:40} {verdict:8} ({status}, {secs:.0f}s)", flush=True)
            if status.startswith("error"):
                print(f"  {tail}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    counted = [n for n, v in results.items() if v != "stale"]
    survivors = [n for n in counted if results[n] == "survived"]
    stale = [n for n, v in results.items() if v == "stale"]
    rate = 100.0 * len(survivors) / len(counted) if counted else 0.0
    print(
        f"\n{len(counted)} mutations run, {len(counted) - len(survivors)} killed, "
        f"{len(survivors)} survived: survival rate {rate:.1f}%"
    )
    if survivors:
        print("survivors: " + ", ".join(survivors))
    if stale:
        print(f"stale (fragment not found, not counted): {', '.join(stale)}")
    return 1 if rate >= 5.0 else 0


if __name__ == "__main__":
    sys.exit(main())
