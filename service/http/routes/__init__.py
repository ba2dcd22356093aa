"""The API's routers, one module per resource."""

from __future__ import annotations

from fastapi import FastAPI

from vigia.service.http.routes import (
    ballast,
    ballast_arrivals,
    documents,
    health,
    keys,
    leads,
    map_layers,
    procedure,
    silences,
    vessels,
    zones,
)


def include_routers(app: FastAPI) -> None:
    """Mount every router on the app."""
    for module in (
        health,
        zones,
        vessels,
        leads,
        procedure,
        silences,
        keys,
        ballast,
        ballast_arrivals,
        documents,
        map_layers,
    ):
        app.include_router(module.router)
