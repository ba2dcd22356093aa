"""The administrative procedure a lead starts: its workflow, terms and calendars,
documents, routing to an authority, and silences."""
