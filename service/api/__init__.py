"""The API's routers, one module per resource."""

from __future__ import annotations

import importlib
import importlib.util

from fastapi import APIRouter, FastAPI

from service.api import health, keys, leads, vessels, zones

#: routers other issues add; included when their module is present
OPTIONAL_ROUTERS = ("service.api.ballast", "service.api.ballast_arrivals")


def include_routers(app: FastAPI) -> list[str]:
    """Mount every router on the app; returns the optional ones that were found."""
    for module in (health, zones, vessels, leads, keys):
        app.include_router(module.router)
    found = []
    for name in OPTIONAL_ROUTERS:
        if importlib.util.find_spec(name) is None:
            continue
        router = getattr(importlib.import_module(name), "router", None)
        if isinstance(router, APIRouter):
            app.include_router(router)
            found.append(name)
    return found
