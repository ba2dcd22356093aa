"""Port visits (issue 33): Global Fishing Watch's entry, exit and stop rule per vessel
(``visits``) and its place in the pipeline (``stage``)."""
