"""Meetings at sea (issue 37): ``STS-ENCOUNTER`` and ``LOITER``, after Global Fishing
Watch's published definitions (docs/encounters.md).

``tracks`` resamples each vessel's fixes to 10-minute slots (no interpolation across a
silence over 1 hour), the same whatever order they arrive in; ``pairing`` puts the slow
vessels of one slot in H3 cells and measures the pairs of neighbouring cells in metres;
``runs`` follows adjacency and slow drifting from slot to slot; ``exempt`` says which
meetings are lawful work; ``leads`` builds the leads; ``watch`` ties them to the stream
clock and the lateness bound, as the pipeline does for one vessel.
"""
