"""Going dark (issue 33): AIS gaps judged against what the receivers could hear.

``coverage`` counts, per H3 cell and hour and per receiver and hour, what was heard;
``detect`` finds each vessel's silences in its own time order and, once the lateness
bound has passed a silence, scores it against that coverage and raises ``AIS-GAP``
where the silence touches a closed area (docs/gaps.md).
"""
