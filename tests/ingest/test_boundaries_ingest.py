"""Both sides of the ingest bounds: the future-time clamp, the stale bound, and the
sender in the reassembly keys. Expected values are written here: times are the receipt
time plus or minus a hand-picked offset, MMSIs and signal figures are read off the
sentences by pyais (an independent decoder) or written in the VSI lines themselves."""

from __future__ import annotations

from pyais import decode as pyais_decode

from tests.support.nmea import sentence, tag_block
from vigia.ingest.decoder import Ingestor
from vigia.ingest.records import Position, RawLine, Record, StaticData
from vigia.service.settings import IngestSettings

RX = 1_800_000_000.0  # receipt time of every line below
POS = "!AIVDM,1,1,,B,15M67FC000G?ufbE`FepT@3n00Sa,0*5C"  # a real type 1
# two real two-part type 5s that both use sequence id 1 on channel A
T5_A = (
    "!AIVDM,2,1,1,A,55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8,0*1C",
    "!AIVDM,2,2,1,A,88888888880,2*25",
)
T5_B = (
    "!AIVDM,2,1,1,A,538CQ>02A;h?D9QC800pu8@T>0P4l9E8L0000017Ah:;;5r50Ahm5;C0,0*07",
    "!AIVDM,2,2,1,A,F@V@00000000000,2*35",
)


def _feed(ing: Ingestor, text: str, peer: str = "", source: str = "udp:10110") -> list[Record]:
    return ing.feed(RawLine(text, RX, source, peer))


def _at(ahead_s: float) -> str:
    return tag_block(f"c:{int(RX + ahead_s)}") + POS


# -- the future-time clamp: 300 s ahead of receipt (shipped default) -------------------


def _clamp_case(ing: Ingestor) -> None:
    (kept,) = _feed(ing, _at(299))
    assert kept.t == RX + 299  # a receiver clock 299 s fast: its time is believed
    assert ing.counters.time_ahead == 0
    (clamped,) = _feed(ing, _at(301))
    assert clamped.t == RX  # 301 s ahead: the report is placed at its receipt
    assert ing.counters.time_ahead == 1
    (far,) = _feed(ing, _at(3600))
    assert far.t == RX and ing.counters.time_ahead == 2


def test_future_clamp_of_the_decoder_default_is_300_s() -> None:
    _clamp_case(Ingestor())


def test_future_clamp_of_the_shipped_ingest_settings_is_300_s() -> None:
    settings = IngestSettings()  # as shipped: the worker builds its Ingestor from these
    _clamp_case(Ingestor(max_ahead_s=settings.max_ahead_s))


# -- the stale bound on live feeds ------------------------------------------------------


def test_stale_bound_refuses_only_what_is_older_than_it() -> None:
    ing = Ingestor(max_behind_s=600.0)
    (kept,) = _feed(ing, _at(-599))
    assert kept.t == RX - 599
    assert _feed(ing, _at(-601)) == []
    assert ing.counters.time_stale == 1


def test_shipped_stale_bound_is_six_hours_on_live_feeds_only() -> None:
    settings = IngestSettings()
    ing = Ingestor(max_behind_s=settings.max_behind_s, historical_sources=["file:a.nmea"])
    (kept,) = _feed(ing, _at(-6 * 3600 + 1))
    assert kept.t == RX - 6 * 3600 + 1
    assert _feed(ing, _at(-6 * 3600 - 1)) == []
    # a replayed file keeps its historical time, years old
    (old,) = _feed(ing, _at(-3 * 365 * 86400), source="file:a.nmea")
    assert old.t == RX - 3 * 365 * 86400


# -- the sender belongs to the reassembly keys ------------------------------------------

GROUP = "89372"
A_POS = tag_block(f"g:1-2-{GROUP},n:1,s:rA,c:{int(RX)}") + (
    "!AIVDM,1,1,,A,181520h000JstMLHbOFc1CUd0<07,0*35"
)
A_VSI = tag_block(f"g:2-2-{GROUP},n:2") + sentence("ARVSI,rA,,000052.5,1972,-108,0", "$")
B_VSI = tag_block(f"g:2-2-{GROUP},n:7") + sentence("ARVSI,rB,,000052.5,9,-50,3", "$")


def test_tag_group_joins_only_lines_of_one_sender() -> None:
    """Two receivers on one UDP port both number a group 89372: B's signal report must
    not complete A's message (and give it B's signal figures)."""
    ing = Ingestor()
    assert _feed(ing, A_POS, peer="10.0.0.1:4001") == []
    got = _feed(ing, B_VSI, peer="10.0.0.2:4001")
    assert [r for r in got if isinstance(r, Position)] == []
    (pos,) = [r for r in _feed(ing, A_VSI, peer="10.0.0.1:4001") if isinstance(r, Position)]
    assert pos.mmsi == pyais_decode(A_POS.rsplit("\\", 1)[-1]).asdict()["mmsi"]
    assert pos.extras == {"slot": 1972.0, "signal_dbm": -108.0, "snr_db": 0.0}


def test_same_sender_group_still_joins() -> None:
    ing = Ingestor()
    assert _feed(ing, A_POS, peer="10.0.0.1:4001") == []
    (pos,) = _feed(ing, A_VSI, peer="10.0.0.1:4001")
    assert isinstance(pos, Position) and pos.extras is not None


def test_fragments_of_two_senders_with_one_sequence_id_are_kept_apart() -> None:
    ing = Ingestor()
    out: list[Record] = []
    for a, b in zip(T5_A, T5_B, strict=True):  # interleaved: A1 B1 A2 B2
        out += _feed(ing, a, peer="10.0.0.1:4001")
        out += _feed(ing, b, peer="10.0.0.2:4001")
    expected = sorted(pyais_decode(*lines).asdict()["mmsi"] for lines in (T5_A, T5_B))
    assert sorted(r.mmsi for r in out if isinstance(r, StaticData)) == expected
    assert len(out) == 2
