"""`vigia decode` run as a real subprocess on real files."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from vigia.ingest.jsonout import record_to_json
from vigia.ingest.records import Position, StaticData


def vigia(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "vigia.service.cli", "decode", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_decode_file_writes_json_lines_with_nulls(fixtures: Path) -> None:
    res = vigia(str(fixtures / "ingest_decode_sample.nmea"))
    assert res.returncode == 0, res.stderr
    objs = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert [o["msg_type"] for o in objs] == [18, 1, 5, 27]

    b = objs[0]
    # the type 18 carries every "not available" value: all null, not 181/91/102.3/360/511
    assert b["mmsi"] == 710000009
    for key in ("lon", "lat", "sog", "cog", "heading"):
        assert key in b and b[key] is None
    assert "nav_status" not in b  # a class B report does not carry it

    a = objs[1]
    assert a["t"] == "2024-05-01T12:00:00Z"  # from the tag block's c:
    assert a["source"] == "RJ-01"
    assert (a["cog"], a["heading"], a["nav_status"], a["sog"]) == (None, None, 0, 0.0)
    assert a["device"] == "vessel"

    s = objs[2]
    assert (s["name"], s["callsign"], s["ship_type"], s["length_m"], s["beam_m"]) == (
        "EVER DIADEM",
        "3FOF8",
        70,
        295.0,
        32.0,
    )
    assert s["destination"] == "NEW YORK"
    assert s["imo"] == 9134270

    lr = objs[3]
    assert "heading" not in lr and lr["sog"] == 57

    err = res.stderr.decode()
    assert "lines=7" in err and "not_nmea=1" in err and "bad_checksum=1" in err


def test_decode_stdin_gzip_and_csv_together(fixtures: Path, tmp_path: Path) -> None:
    gz = tmp_path / "sample.nmea.gz"
    gz.write_bytes(gzip.compress((fixtures / "pyais_mixed.txt").read_bytes()))
    stdin = (fixtures / "ingest_decode_sample.nmea").read_bytes()
    res = vigia("-", str(gz), str(fixtures / "ingest_noaa_sample.csv"), stdin=stdin)
    assert res.returncode == 0, res.stderr
    objs = [json.loads(line) for line in res.stdout.decode().splitlines()]
    sources = [o["source"] for o in objs]
    assert sources[0] == "stdin"
    assert str(gz) in sources
    assert sources[-1] == "noaa"
    assert "csv:" in res.stderr.decode()


def test_missing_file_writes_nothing(fixtures: Path) -> None:
    res = vigia(str(fixtures / "ingest_decode_sample.nmea"), "/nonexistent/x.nmea")
    assert res.returncode == 2
    assert res.stdout == b""
    assert b"no such file" in res.stderr


def test_bad_csv_header_is_an_error(fixtures: Path) -> None:
    res = vigia(str(fixtures / "ingest_not_ais.csv"))
    assert res.returncode == 2
    assert b"neither" in res.stderr


def test_record_to_json_shapes() -> None:
    pos = Position(710000001, 1714564800.5, 1, -43.1, -22.9, 5.0, 90.0, 91, 0, True, "rx", ())
    assert record_to_json(pos) == {
        "mmsi": 710000001,
        "msg_type": 1,
        "t": "2024-05-01T12:00:00.500Z",
        "lon": -43.1,
        "lat": -22.9,
        "sog": 5.0,
        "cog": 90.0,
        "heading": 91,
        "nav_status": 0,
        "source": "rx",
        "device": "vessel",
    }
    sart = record_to_json(Position(970012345, 0.0, 1, None, None))
    assert sart["device"] == "sart" and sart["lon"] is None
    part_a = record_to_json(StaticData(338091445, 0.0, 24, name="SEA DOG", part="A"))
    assert part_a["name"] == "SEA DOG" and "ship_type" not in part_a


def test_small_and_large_inputs_decode_alike(fixtures: Path, tmp_path: Path) -> None:
    """A small plain file is decoded line by line (no numpy to import: a fast first
    contact); a large or compressed one in blocks. Same records either way."""
    src = fixtures / "libais_tagblock_groups.nmea"  # every line has its own time
    small = tmp_path / "small.nmea"
    small.write_bytes(src.read_bytes())
    packed = tmp_path / "packed.nmea.gz"
    packed.write_bytes(gzip.compress(src.read_bytes()))
    # past the size limit: the same lines, then 300 KiB of blank lines (skipped)
    large = tmp_path / "large.nmea"
    large.write_bytes(src.read_bytes() + b"\n" * (300 * 1024))

    def records(path: Path) -> list[dict[str, object]]:
        res = vigia(str(path))
        assert res.returncode == 0, res.stderr
        out = [json.loads(line) for line in res.stdout.decode().splitlines()]
        for o in out:
            o.pop("source")
        return out

    want = records(small)
    assert len(want) == 7 and {o["msg_type"] for o in want} >= {1, 5}
    assert records(packed) == want
    assert records(large) == want


def test_a_type_19_report_is_one_object_with_its_position_and_static_part(
    tmp_path: Path,
) -> None:
    """CONTRACT.md section 4: one object per decoded message. pyais's test_msg_type_19:
    CAPT.J.RIMES, cargo (70), A=5 B=21 C=4 D=4 (26 by 8 m), 8.7 kn, lat 29.543695."""
    src = tmp_path / "t19.nmea"
    src.write_text(
        "!AIVDM,1,1,,B,C5N3SRgPEnJGEBT>NhWAwwo862PaLELTBJ:V00000000S0D:R220,0*0B\n"
        "!AIVDM,1,1,,A,15NPOOPP00o?b=bE`UNv4?w428D;,0*24\n"
    )
    res = vigia(str(src))
    assert res.returncode == 0, res.stderr
    objs = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert [o["msg_type"] for o in objs] == [19, 1]
    one = objs[0]
    assert one["mmsi"] == 367059850 and one["sog"] == 8.7 and one["lat"] == 29.543695
    assert (one["name"], one["ship_type"], one["length_m"], one["beam_m"]) == (
        "CAPT.J.RIMES", 70, 26.0, 8.0,
    )  # fmt: skip
