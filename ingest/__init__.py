"""AIS ingestion: sources, NMEA framing, decoding and normalisation into typed records."""
