"""AIS destinations as ports."""

from __future__ import annotations

from vigia.alerts.procedure.routing import destination_port


def test_destination_port_forms() -> None:
    assert destination_port("BR SSZ") == "BRSSZ"
    assert destination_port("br-ssz ") == "BRSSZ"
    assert destination_port("NLRTM>BR SSZ") == "BRSSZ"
    assert destination_port("Macaé") == "MACAE"
    assert destination_port("  @@@ ") is None and destination_port(None) is None
