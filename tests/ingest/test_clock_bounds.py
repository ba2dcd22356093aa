"""A message's own clock is not trusted blindly (issue 15 item 2)."""

from __future__ import annotations

from tests.support.nmea import tag_block as tag
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import RawLine
from vigia.service.settings import IngestSettings

POS = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"
NOW = 1_800_000_000.0


def test_a_time_far_ahead_of_receipt_is_clamped_and_counted() -> None:
    ing = Ingestor()
    (rec,) = ing.feed(RawLine(tag("c:9999999999") + POS, NOW, "udp"))
    assert rec.t == NOW  # not the year 2286, where no later report could replace it
    assert ing.counters.time_ahead == 1
    (rec,) = ing.feed(RawLine(tag(f"c:{int(NOW) + 60}") + POS, NOW, "udp"))
    assert rec.t == NOW + 60  # a receiver clock a minute fast is tolerated


def test_a_stale_time_is_refused_on_live_feeds_but_kept_in_replays() -> None:
    old = tag("c:1428451206") + POS  # 2015
    live = Ingestor(max_behind_s=6 * 3600, historical_sources=["archive.nmea"])
    assert live.feed(RawLine(old, NOW, "udp:127.0.0.1:4001")) == []
    assert live.counters.time_stale == 1 and live.counters.outcomes() == live.counters.lines
    (rec,) = live.feed(RawLine(old, NOW, "archive.nmea"))  # a file the worker replays
    assert rec.t == 1428451206.0
    (rec,) = Ingestor().feed(RawLine(old, NOW, "archive.nmea"))  # vigia replay / decode
    assert rec.t == 1428451206.0


def test_udp_listens_on_loopback_unless_told_otherwise() -> None:
    assert IngestSettings().udp_host == "127.0.0.1"
