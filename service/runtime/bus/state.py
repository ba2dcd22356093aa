"""A partition's evaluation state as bytes, so a partition can move between workers.

The state is one ``LeadPipeline`` (per-vessel tracks, open episodes, look-ahead fixes,
distress alarms, the static data it judged with), the last stream sequence it has seen,
and the outbox: the leads, vessels and identity changes that commit owes the store (see
partition.py: they are written after the commit, so only the partition's holder writes).
The zone index is not in it: zones live in the store, so the snapshot names the zone
versions it was built against and the loader hands the index back in.

Pickle keeps this exact without a second mapping of every pipeline class to keep in step
with the pipeline; loading is restricted to an allow-list of Vigia and builtin types, so
a forged blob in the bucket cannot run code.
"""

from __future__ import annotations

import io
import json
import pickle
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vigia.alerts.identity.history import HistoryOut
from vigia.alerts.identity.state_register import StateVessels
from vigia.alerts.lead import Lead
from vigia.alerts.pipeline import LeadPipeline
from vigia.ingest.records import VesselInfo
from vigia.zones.evaluate import ZoneIndex
from vigia.zones.model import Zone

_MAGIC = b"VGS2"
_MAGIC_V1 = b"VGS1"  # a pipeline alone, as written before the outbox (read, never written)
_ALLOWED_MODULES = ("vigia.alerts.", "vigia.ingest.records", "vigia.ingest.registry")
_ALLOWED_BUILTINS = {
    ("builtins", n)
    for n in ("dict", "list", "set", "frozenset", "tuple", "float", "int", "str", "bool")
}
_ALLOWED_OTHER = {
    ("collections", "Counter"),
    ("collections", "deque"),
    ("copyreg", "_reconstructor"),
    ("builtins", "object"),
}


class StateError(Exception):
    """A snapshot that cannot be loaded (corrupt, forged, or from another format)."""


ZoneKey = tuple[tuple[str, int], ...]
IndexFor = Callable[[ZoneKey], ZoneIndex]  # the zone index of the versions a state names


def zone_key(zones: Sequence[Zone]) -> ZoneKey:
    """Which zone versions, in which order, an index was built from."""
    return tuple((z.id, z.version) for z in zones)


@dataclass(slots=True)
class Outbox:
    """What one commit owes the store and the lead subjects. It is committed with the
    state that produced it and written after that commit, so a worker that has lost
    the partition (its commit refused) never writes it, and the next holder writes the
    last committed one again in case its writer died before finishing (every write is
    an idempotent upsert)."""

    vessels: list[VesselInfo] = field(default_factory=list)
    history: HistoryOut = field(default_factory=HistoryOut)
    leads: list[Lead] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.vessels or self.history or self.leads)


@dataclass(slots=True)
class PartitionState:
    """A partition's pipeline, the stream sequence it has consumed up to, and the
    outbox of its last commit."""

    pipeline: LeadPipeline
    seq: int = 0
    outbox: Outbox = field(default_factory=Outbox)


class _Pickler(pickle.Pickler):
    def __init__(self, f: io.BytesIO, index: ZoneIndex) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self._index = index
        self._zone_pos = {id(z): i for i, z in enumerate(index.zones)}

    def persistent_id(self, obj: Any) -> Any:
        if obj is self._index:
            return "index"
        if obj is self._index.zones:
            return "zones"
        if isinstance(obj, StateVessels):
            # like the zones, the register lives in the store: the worker hands the
            # current one to the pipeline when it takes the partition
            return "state_vessels"
        if isinstance(obj, Zone):
            pos = self._zone_pos.get(id(obj))
            if pos is None:
                raise StateError("a zone outside the index is referenced by the state")
            return ("zone", pos)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, f: io.BytesIO, index: ZoneIndex) -> None:
        super().__init__(f)
        self._index = index

    def persistent_load(self, pid: Any) -> Any:
        if pid == "index":
            return self._index
        if pid == "zones":
            return self._index.zones
        if pid == "state_vessels":
            return StateVessels()
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "zone":
            return self._index.zones[int(pid[1])]
        raise StateError(f"unknown reference {pid!r}")

    def find_class(self, module: str, name: str) -> Any:
        ok = (
            module.startswith(_ALLOWED_MODULES)
            or (module, name) in _ALLOWED_BUILTINS
            or (module, name) in _ALLOWED_OTHER
            or (module == "numpy" and name in ("dtype", "ndarray"))
            or (module.startswith("numpy.") and name in ("scalar", "_reconstruct"))
        )
        if not ok:
            raise StateError(f"type {module}.{name} is not allowed in a partition state")
        return super().find_class(module, name)


def dump(state: PartitionState) -> bytes:
    """Snapshot bytes: magic, a JSON header (zone versions, sequence), compressed pickle."""
    index = state.pipeline.index
    header = json.dumps({"zones": zone_key(index.zones), "seq": state.seq}).encode()
    buf = io.BytesIO()
    box = state.outbox
    # a plain tuple: the loader's allow-list holds Vigia's domain types, not this module
    _Pickler(buf, index).dump((state.pipeline, (box.vessels, box.history, box.leads)))
    return _MAGIC + struct.pack(">I", len(header)) + header + zlib.compress(buf.getvalue(), 1)


def load(blob: bytes, index_for: IndexFor) -> PartitionState:
    """Rebuild a snapshot; ``index_for`` returns the zone index of the versions it names."""
    if not blob.startswith((_MAGIC, _MAGIC_V1)) or len(blob) < len(_MAGIC) + 4:
        raise StateError("not a partition state")
    try:
        (n,) = struct.unpack(">I", blob[4:8])
        header = json.loads(blob[8 : 8 + n])
        key: ZoneKey = tuple((str(i), int(v)) for i, v in header["zones"])
        seq = header["seq"]
        if type(seq) is not int or seq < 0:
            raise StateError("bad sequence in state header")
        index = index_for(key)
        got = _Unpickler(io.BytesIO(zlib.decompress(blob[8 + n :])), index).load()
        if blob.startswith(_MAGIC_V1):
            pipeline, outbox = got, Outbox()
        else:
            pipeline, (vessels, history, leads) = got
            outbox = Outbox(list(vessels), history, list(leads))
    except StateError:
        raise
    except Exception as exc:  # a corrupt blob can fail in many ways; all mean "unusable"
        raise StateError(f"unreadable partition state: {exc}") from exc
    if not isinstance(pipeline, LeadPipeline):
        raise StateError("state holds no pipeline")
    ok = isinstance(outbox.history, HistoryOut) and all(isinstance(x, Lead) for x in outbox.leads)
    if not ok or not all(isinstance(v, VesselInfo) for v in outbox.vessels):
        raise StateError("state holds a malformed outbox")
    return PartitionState(pipeline, seq, outbox)
