"""Identity integrity (issue 34): ``ID-*`` leads. An exemption a vessel claims by its own
word (a military or law-enforcement ship type) must be earned on the register of state
vessels; one MMSI used by two ships is split into segments; jumps no vessel could make
are reported, not judged as zone breaches."""
