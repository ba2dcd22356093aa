"""The API's routers, one module per resource."""

from __future__ import annotations

from fastapi import FastAPI

from vigia.service.http.routes import (
    assignment,
    authorised,
    ballast,
    ballast_arrivals,
    documents,
    drafts,
    health,
    identity,
    keys,
    leads,
    map_layers,
    map_vessels,
    ogc,
    ogc_vessels,
    port_visits,
    procedure,
    queryables,
    silences,
    state_vessels,
    stream,
    vessels,
    webhooks,
    zone_imports,
    zones,
)


def include_routers(app: FastAPI) -> None:
    """Mount every router on the app."""
    # stream before leads: /leads/stream must not be read as /leads/{lead_id}
    for module in (
        health,
        zones,
        vessels,
        identity,
        port_visits,
        stream,
        leads,
        procedure,
        assignment,
        silences,
        ogc,
        ogc_vessels,
        queryables,
        keys,
        authorised,
        state_vessels,
        ballast,
        ballast_arrivals,
        documents,
        map_layers,
        map_vessels,
        webhooks,
        zone_imports,
        drafts,
    ):
        app.include_router(module.router)
