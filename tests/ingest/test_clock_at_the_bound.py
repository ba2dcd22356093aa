"""The message-clock bounds exactly at their figures (issue 35), in both decoders: a
time ``max_ahead_s`` (300 s) after receipt is still believed, one second more is
clamped; a report ``max_behind_s`` (6 h) old is still taken on a live feed, one second
older is refused. The other tests try each side, never the figure itself."""

from __future__ import annotations

import pytest

from tests.support.nmea import tag_block as tag
from vigia.ingest.batch import BatchIngestor
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import RawLine, Record

POS = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"
NOW = 1_800_000_000
SIX_HOURS = 21_600  # 6 x 3,600 s


def _feed(ing: Ingestor, c: int) -> list[Record]:
    line = RawLine(tag(f"c:{c}") + POS, float(NOW), "udp:127.0.0.1:4001")
    return ing.feed_batch([line]) if isinstance(ing, BatchIngestor) else ing.feed(line)


@pytest.mark.parametrize("decoder", [Ingestor, BatchIngestor], ids=lambda d: d.__name__)
def test_exactly_max_ahead_is_believed_one_second_more_is_clamped(
    decoder: type[Ingestor],
) -> None:
    ing = decoder(max_ahead_s=300.0)
    assert [r.t for r in _feed(ing, NOW + 300)] == [NOW + 300.0]
    assert ing.counters.time_ahead == 0
    assert [r.t for r in _feed(ing, NOW + 301)] == [float(NOW)]
    assert ing.counters.time_ahead == 1


@pytest.mark.parametrize("decoder", [Ingestor, BatchIngestor], ids=lambda d: d.__name__)
def test_exactly_max_behind_is_taken_one_second_older_is_refused(
    decoder: type[Ingestor],
) -> None:
    ing = decoder(max_behind_s=float(SIX_HOURS))
    assert [r.t for r in _feed(ing, NOW - SIX_HOURS)] == [NOW - 21_600.0]
    assert ing.counters.time_stale == 0
    assert _feed(ing, NOW - SIX_HOURS - 1) == []
    assert ing.counters.time_stale == 1
