"""The API's routers, one module per resource."""

from __future__ import annotations

from fastapi import FastAPI

from vigia.service.http.routes import (
    ballast,
    ballast_arrivals,
    health,
    keys,
    leads,
    map_layers,
    vessels,
    zones,
)


def include_routers(app: FastAPI) -> None:
    """Mount every router on the app."""
    for module in (health, zones, vessels, leads, keys, ballast, ballast_arrivals, map_layers):
        app.include_router(module.router)
