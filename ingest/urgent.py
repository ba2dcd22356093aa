"""Spot a distress beacon's sentence before decoding it, so it can skip the queue.

Under a heavy feed the worker's line queue holds seconds of traffic; a person in the
water should not wait behind it (SAR-DISTRESS goes out first, NORMAM-07 0213 c). The
MMSI sits in the first seven payload characters of every AIS message, so the reader can
read it with a few integer operations and send AIS-SART, MOB and EPIRB-AIS lines
(970/972/974xxxxxx) down a priority lane. Only single-fragment sentences qualify (a
fragment of a longer message must stay in order with its siblings); anything malformed
is simply not urgent, and the decoder judges it as usual.
"""

from __future__ import annotations

_DISTRESS_PREFIXES = (970, 972, 974)


def is_distress_line(text: str) -> bool:
    """Whether ``text`` is a one-sentence AIS message from a distress transmitter."""
    if text.startswith("\\"):
        end = text.find("\\", 1)
        if end < 0:
            return False
        text = text[end + 1 :]
    fields = text.split(",", 6)
    if len(fields) < 7 or fields[1] != "1" or len(fields[5]) < 7:
        return False
    v = 0
    for ch in fields[5][1:7]:
        c = ord(ch) - 48
        if c > 40:
            c -= 8
        if not 0 <= c < 64:
            return False
        v = (v << 6) | c
    mmsi = (v >> 4) & 0x3FFFFFFF
    return mmsi // 1_000_000 in _DISTRESS_PREFIXES
