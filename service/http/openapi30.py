"""The OpenAPI document as 3.0, for OGC API - Features Part 1 (``oas30``) and the
clients that look for it (OWSLib's ``api()`` follows a ``service-desc`` link of type
``application/vnd.oai.openapi+json;version=3.0``).

FastAPI writes OpenAPI 3.1, whose schemas are JSON Schema 2020-12. The differences it
uses are few and mechanical: ``info.summary`` and the licence's ``identifier`` (3.1
only), ``null`` as a type (3.0: ``nullable``), lists of ``examples`` in schemas (3.0: one
``example``), ``const`` and numeric ``exclusiveMinimum``/``exclusiveMaximum``.
tests/api/test_openapi30.py holds the result to openapi-spec-validator.
"""

from __future__ import annotations

import copy
from typing import Any

OPENAPI_30_MEDIA_TYPE = "application/vnd.oai.openapi+json;version=3.0"


def _schema(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if isinstance(kind, list):
        rest = [t for t in kind if t != "null"]
        node["type"] = rest[0] if len(rest) == 1 else "string"
        if "null" in kind:
            node["nullable"] = True
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list) and {"type": "null"} in options:
            rest = [o for o in options if o != {"type": "null"}]
            node["nullable"] = True
            if len(rest) == 1 and "$ref" in rest[0]:
                del node[key]
                node["allOf"] = rest
            elif len(rest) == 1:
                del node[key]
                for k, v in rest[0].items():
                    node.setdefault(k, v)
            else:
                node[key] = rest
    if isinstance(node.get("examples"), list):
        examples = node.pop("examples")
        if examples:
            node.setdefault("example", examples[0])
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = node.get(bound)
        if isinstance(value, int | float) and not isinstance(value, bool):
            node[plain] = value
            node[bound] = True
    for key in ("contentMediaType", "contentEncoding", "$schema"):
        node.pop(key, None)


def _info(info: dict[str, Any]) -> None:
    # 3.0's info has no ``summary`` and its licence no SPDX ``identifier``: the summary
    # heads the description, so no text is lost
    summary = info.pop("summary", None)
    if summary:
        description = info.get("description")
        info["description"] = f"{summary}\n\n{description}" if description else summary
    licence = info.get("license")
    if isinstance(licence, dict) and "identifier" in licence:
        identifier = licence.pop("identifier")
        licence.setdefault("url", f"https://spdx.org/licenses/{identifier}.html")


def _walk(node: Any) -> None:
    if isinstance(node, dict):
        for value in node.values():
            _walk(value)
        _schema(node)
    elif isinstance(node, list):
        for item in node:
            _walk(item)


def openapi_30(doc: dict[str, Any]) -> dict[str, Any]:
    """A 3.0.3 copy of a FastAPI 3.1 document."""
    out = copy.deepcopy(doc)
    out["openapi"] = "3.0.3"
    out.pop("webhooks", None)
    out.pop("jsonSchemaDialect", None)
    _info(out.setdefault("info", {}))
    components = out.get("components")
    if isinstance(components, dict):
        components.pop("pathItems", None)  # 3.1 only; FastAPI puts webhooks' there
    _walk(out)
    return out
