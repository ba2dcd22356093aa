"""Zone files: every way a file can be wrong is refused whole, with file, feature and reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from vigia.zones.catalogue import (
    bundled_zones_dir,
    load_zones,
    parse_feature_collection,
    zone_to_feature,
)
from vigia.zones.model import ZoneError, ZoneKind

SQUARE = [[[-43.0, -23.0], [-42.9, -23.0], [-42.9, -22.9], [-43.0, -22.9], [-43.0, -23.0]]]


def good_collection() -> dict[str, Any]:
    """A valid file with one zone of each geometry family."""
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"id": "plat-1", "kind": "platform", "name": "P-1"},
                "geometry": {"type": "Point", "coordinates": [-40.3, -22.5]},
            },
            {
                "type": "Feature",
                "properties": {"id": "beach-1", "kind": "bather_beach", "distance_m": 250},
                "geometry": {
                    "type": "LineString",
                    "coordinates": [[-43.19, -22.985], [-43.18, -22.975], [-43.17, -22.97]],
                },
            },
            {
                "type": "Feature",
                "properties": {
                    "id": "notice-1",
                    "kind": "special_area",
                    "valid_from": "2025-01-10T08:00:00-03:00",
                    "valid_to": "2025-01-12T18:00:00Z",
                    "notice": "Aviso 123/25",
                    "allowed": {"mmsi": [710000001], "ship_types": [35]},
                },
                "geometry": {"type": "Polygon", "coordinates": SQUARE},
            },
        ],
    }


def _write(folder: Path, name: str, obj: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return path


def _mutate(index: int, change: Any) -> dict[str, Any]:
    fc = good_collection()
    change(fc["features"][index])
    return fc


def _set(key: str, value: Any) -> Any:
    return lambda f: f["properties"].__setitem__(key, value)


def _geom(geometry: Any) -> Any:
    return lambda f: f.__setitem__("geometry", geometry)


BOWTIE = [[[-43.0, -23.0], [-42.9, -22.9], [-42.9, -23.0], [-43.0, -22.9], [-43.0, -23.0]]]
CASES = [
    ("unknown kind", 0, _set("kind", "fish_farm"), "plat-1", "unknown kind"),
    ("missing kind", 0, lambda f: f["properties"].pop("kind"), "plat-1", "missing kind"),
    ("missing id", 1, lambda f: f["properties"].pop("id"), "#1", "missing id"),
    ("empty id", 1, _set("id", " "), "#1", "missing id"),
    ("numeric id", 1, _set("id", 7), "#1", "missing id"),
    ("duplicate id", 2, _set("id", "plat-1"), "plat-1", "duplicate id"),
    (
        "lon out of range",
        0,
        _geom({"type": "Point", "coordinates": [-190.0, -22.5]}),
        "plat-1",
        "out of range",
    ),
    (
        "lat out of range",
        0,
        _geom({"type": "Point", "coordinates": [-40.0, -95.0]}),
        "plat-1",
        "out of range",
    ),
    (
        "self-intersecting polygon",
        2,
        _geom({"type": "Polygon", "coordinates": BOWTIE}),
        "notice-1",
        "Self-intersection",
    ),
    (
        "self-intersecting baseline",
        1,
        _geom(
            {
                "type": "LineString",
                "coordinates": [
                    [-43.19, -22.98],
                    [-43.17, -22.96],
                    [-43.17, -22.98],
                    [-43.19, -22.96],
                ],
            }
        ),
        "beach-1",
        "self-intersecting",
    ),
    (
        "unclosed ring",
        2,
        _geom({"type": "Polygon", "coordinates": [SQUARE[0][:-1]]}),
        "notice-1",
        "malformed",
    ),
    ("missing geometry", 0, _geom(None), "plat-1", "missing geometry"),
    (
        "polygon for a beach",
        1,
        _geom({"type": "Polygon", "coordinates": SQUARE}),
        "beach-1",
        "not one bather_beach takes",
    ),
    (
        "line for an area",
        2,
        _geom({"type": "LineString", "coordinates": [[-43, -23], [-42, -22]]}),
        "notice-1",
        "not one special_area takes",
    ),
    (
        "multipolygon platform",
        0,
        _geom({"type": "MultiPolygon", "coordinates": [SQUARE]}),
        "plat-1",
        "not one platform takes",
    ),
    (
        "special area without validity",
        2,
        lambda f: f["properties"].pop("valid_to"),
        "notice-1",
        "needs both valid_from and valid_to",
    ),
    (
        "validity ends before it starts",
        2,
        _set("valid_to", "2025-01-09T00:00:00Z"),
        "notice-1",
        "before valid_from",
    ),
    (
        "instant without offset",
        2,
        _set("valid_from", "2025-01-10T08:00:00"),
        "notice-1",
        "no UTC offset",
    ),
    ("unparseable instant", 2, _set("valid_from", "10/01/2025"), "notice-1", "not an ISO 8601"),
    ("negative distance", 0, _set("distance_m", -5), "plat-1", "zero or more"),
    ("text distance", 0, _set("distance_m", "500"), "plat-1", "must be a number"),
    ("motor band inside the sail band", 1, _set("distance_m", 80), "beach-1", "oar/sail band"),
    ("absurd distance", 0, _set("distance_m", 1e7), "plat-1", "beyond"),
    ("allowed not an object", 2, _set("allowed", [1, 2]), "notice-1", "allowed must be"),
    (
        "allowed ship type out of range",
        2,
        _set("allowed", {"ship_types": [120]}),
        "notice-1",
        "allowed.ship_types",
    ),
    (
        "allowed mmsi as text",
        2,
        _set("allowed", {"mmsi": ["710000001"]}),
        "notice-1",
        "allowed.mmsi",
    ),
    ("allowed unknown key", 2, _set("allowed", {"callsigns": ["PU1"]}), "notice-1", "unknown keys"),
    (
        "anchoring flag as text",
        2,
        _set("anchoring_prohibited", "yes"),
        "notice-1",
        "anchoring_prohibited",
    ),
    ("name not text", 0, _set("name", 12), "plat-1", "name must be a string"),
    ("zero dwell", 2, _set("max_dwell_min", 0), "notice-1", "positive"),
]


@pytest.mark.parametrize(
    ("index", "change", "feature", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_bad_file_is_refused_whole_naming_file_feature_reason(
    tmp_path: Path, index: int, change: Any, feature: str, reason: str | None
) -> None:
    """One bad feature refuses the whole load; the error says where and why."""
    _write(
        tmp_path,
        "a_good.geojson",
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {"id": "other", "kind": "military"},
                    "geometry": {"type": "Point", "coordinates": [-43.16, -22.91]},
                }
            ],
        },
    )
    bad = _write(tmp_path, "b_bad.geojson", _mutate(index, change))
    with pytest.raises(ZoneError) as err:
        load_zones([tmp_path])
    assert err.value.file == str(bad)
    assert err.value.feature == feature
    if reason is not None:
        assert reason in err.value.reason
    assert str(bad) in str(err.value) and feature in str(err.value)


def test_the_same_checks_apply_to_uploads() -> None:
    """The API's parser refuses what the file loader refuses."""
    fc = _mutate(2, _set("valid_to", "2024-01-01T00:00:00Z"))
    with pytest.raises(ZoneError) as err:
        parse_feature_collection(fc)
    assert err.value.feature == "notice-1" and err.value.file is None


def test_a_single_feature_upload_parses() -> None:
    """A bare Feature is accepted, as POST /collections/zones/items sends it."""
    (zone,) = parse_feature_collection(good_collection()["features"][0])
    assert zone.id == "plat-1" and zone.kind is ZoneKind.PLATFORM


def test_duplicate_ids_across_files_are_refused(tmp_path: Path) -> None:
    """Ids are unique across every loaded file, and the error names both files."""
    first = _write(tmp_path, "a.geojson", good_collection())
    second = _write(tmp_path, "b.geojson", good_collection())
    with pytest.raises(ZoneError) as err:
        load_zones([first, second])
    assert err.value.file == str(second) and err.value.feature == "plat-1"
    assert str(first) in err.value.reason


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a GeoJSON object"),
        ('{"type": "Polygon"}', "expected a Feature or FeatureCollection"),
    ],
)
def test_unreadable_files_are_refused(tmp_path: Path, content: str, reason: str) -> None:
    """A file that is not a zone collection at all is named in the error."""
    path = _write(tmp_path, "z.geojson", content)
    with pytest.raises(ZoneError, match=reason) as err:
        load_zones([path])
    assert err.value.file == str(path)


def test_missing_path_and_empty_folder_are_refused(tmp_path: Path) -> None:
    """A typo in --zones is an error, not an empty catalogue."""
    with pytest.raises(ZoneError, match="no such file"):
        load_zones([tmp_path / "nope.geojson"])
    with pytest.raises(ZoneError, match=r"no \*\.geojson"):
        load_zones([tmp_path])


def test_good_file_loads_with_properties_and_defaults(tmp_path: Path) -> None:
    """Validated values reach the Zone: instants with offsets, allow-lists, defaults."""
    zones = {z.id: z for z in load_zones([_write(tmp_path, "g.geojson", good_collection())])}
    notice = zones["notice-1"]
    assert notice.valid_from is not None and notice.valid_from.utcoffset() is not None
    assert notice.in_force(notice.valid_from.timestamp() + 60)
    assert not notice.in_force(notice.valid_from.timestamp() - 60)
    assert notice.allowed_mmsi == {710000001} and notice.allowed_ship_types == {35}
    assert zones["beach-1"].distance_m == 250.0
    assert not zones["plat-1"].anchoring_prohibited


def test_channels_prohibit_anchoring_by_default() -> None:
    """access_channel zones default to anchoring_prohibited=True (docs/contract.md, section 1)."""
    feat = {
        "type": "Feature",
        "properties": {"id": "ch", "kind": "access_channel"},
        "geometry": {"type": "Polygon", "coordinates": SQUARE},
    }
    (zone,) = parse_feature_collection(feat)
    assert zone.anchoring_prohibited


def test_bundled_zones_load_and_round_trip() -> None:
    """The shipped catalogue is valid, covers its themes, and survives a write/parse cycle."""
    zones = load_zones([bundled_zones_dir()])
    kinds = {z.kind for z in zones}
    assert {ZoneKind.BATHER_BEACH, ZoneKind.MILITARY, ZoneKind.PLATFORM} <= kinds
    assert all(z.source for z in zones)
    names = {z.name for z in zones if z.kind is ZoneKind.BATHER_BEACH}
    assert any("Copacabana" in (n or "") for n in names)
    assert any("Icaraí" in (n or "") for n in names)
    fc = {"type": "FeatureCollection", "features": [zone_to_feature(z) for z in zones]}
    again = parse_feature_collection(copy.deepcopy(json.loads(json.dumps(fc))))
    assert again == zones


def test_env_var_points_to_another_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VIGIA_ZONES_DIR overrides where the bundled zones are read from."""
    monkeypatch.setenv("VIGIA_ZONES_DIR", str(tmp_path))
    assert bundled_zones_dir() == tmp_path
    monkeypatch.delenv("VIGIA_ZONES_DIR")
    assert (bundled_zones_dir() / "beaches_rio.geojson").is_file()
