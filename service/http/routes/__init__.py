"""The API's routers, one module per resource."""

from __future__ import annotations

from fastapi import FastAPI

from vigia.service.http.routes import (
    authorised,
    ballast,
    ballast_arrivals,
    health,
    keys,
    leads,
    vessels,
    zones,
)


def include_routers(app: FastAPI) -> None:
    """Mount every router on the app."""
    for module in (health, zones, vessels, leads, keys, authorised, ballast, ballast_arrivals):
        app.include_router(module.router)
