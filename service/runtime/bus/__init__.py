"""Broker mode: ingest publishes to JetStream, evaluation workers hold partitions."""
