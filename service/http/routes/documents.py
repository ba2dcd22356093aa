"""Drafted documents for a lead: the Notice to Appear (Anexo 3-A) and the Auto de
Infração (Anexo 3-B), in Portuguese, as PDF for an inspector to complete and sign."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path
from fastapi.responses import Response

from vigia.alerts.procedure.documents import draft
from vigia.alerts.procedure.workflow import check_draft
from vigia.service.db.protocol import Repository, Scope
from vigia.service.http.deps import get_repository, require_role, require_scope
from vigia.service.http.problems import problem_responses
from vigia.service.http.routes.procedure import found

inspector = require_role("inspector")
router = APIRouter(tags=["procedure"], dependencies=[Depends(inspector)])


@router.get(
    "/leads/{lead_id}/documents/{kind}.pdf",
    summary="Draft the Notice to Appear or the Auto de Infração (inspector)",
    response_class=Response,
    responses={
        200: {
            "content": {"application/pdf": {"example": "%PDF-1.3 ... (binary)"}},
            "description": "the draft PDF",
        },
        **problem_responses(401, 403, 404, 409, 422),
    },
)
def draft_document(
    lead_id: Annotated[str, Path(max_length=200)],
    kind: Literal["notice", "auto"],
    repo: Annotated[Repository, Depends(get_repository)],
    scope: Annotated[Scope, Depends(require_scope("inspector"))],
) -> Response:
    """``notice``: Notificação para Comparecimento (NORMAM-07 Anexo 3-A); ``auto``: Auto de
    Infração (Anexo 3-B). Signatures, witnesses and refusal to sign are left blank.
    A lead the procedure would never notify or charge (no infraction, or an offender not
    yet named) gets the problem that move would get: 409 or 422."""
    lead = found(repo.get_lead(lead_id, scope), lead_id)
    check_draft(lead.rule, lead.status, lead.procedure)
    zone = repo.get_zone(lead.zone_id, lead.zone_version) if lead.zone_id else None
    info = repo.get_vessel(lead.mmsi)
    vessel = {} if info is None else {"imo": info.imo, "callsign": info.callsign}
    pdf, _ = draft(kind, lead, zone, {k: v for k, v in vessel.items() if v is not None})
    name = f"{'notificacao' if kind == 'notice' else 'auto'}-{lead.id}.pdf"
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{name}"'},
    )
