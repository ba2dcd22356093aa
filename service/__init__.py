"""The service: storage, FastAPI app, settings, auth and the ``vigia`` command."""
