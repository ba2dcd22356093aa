"""A ship's ballast declaration (NORMAM-20 2.3.1 exchanges and 2.1 claims) and its
validation: what the audit takes as given, checked before any AIS is looked at."""

from __future__ import annotations

from dataclasses import dataclass

from vigia.ingest.errors import InputFormatError


class AuditInputError(InputFormatError):
    """A declaration that cannot be audited (e.g. an exchange ending before it starts)."""

    code = "invalid-declaration"


# far above any ship's ballast capacity (a VLCC carries about 100,000 m3): larger is a typo
MAX_VOLUME_M3 = 1_000_000.0


@dataclass(frozen=True, slots=True)
class DeclaredPoint:
    """A declared time (Unix s) and position."""

    t: float
    lat: float
    lon: float


@dataclass(frozen=True, slots=True)
class DeclaredExchange:
    """One exchange as the ship declared it."""

    start: DeclaredPoint
    end: DeclaredPoint
    volume_m3: float | None = None
    method: str | None = None


@dataclass(frozen=True, slots=True)
class Declaration:
    """A ship's ballast declaration: its exchanges and what it claims about itself."""

    mmsi: int
    exchanges: tuple[DeclaredExchange, ...]
    state_ship: bool = False  # 2.1.1 a) state ship in non-commercial service
    ballast_capacity_m3: float | None = None  # for 2.1.1 b)
    sealed_tanks: bool = False  # 2.1.1 c)
    no_ballast_tanks: bool = False  # 2.1.1 c)
    only_ajb: bool = False  # 2.1.1 d) as claimed
    ait: bool = False  # 2.1.3 a) foreign ship with a temporary registration (AIT)
    certificate_number: str | None = None  # 2.1.3.1 exemption certificate
    certificate_valid_until: float | None = None
    certificate_issued_at: float | None = None  # 2.1.3.1 b): valid five years at most
    installed_platform: bool = False  # 2.1.3.2 b)
    drilling_rig: bool = False  # 2.1.3.2 c) drilling platform moving between locations
    declared_exceptions: tuple[str, ...] = ()  # BW-EXCEPT: recorded, not judged

    def validate(self) -> None:
        """Refuse a declaration that cannot be audited (raises :class:`AuditInputError`)."""
        if not self.exchanges:
            raise AuditInputError("the declaration has no exchange")
        for k, ex in enumerate(self.exchanges):
            if ex.end.t < ex.start.t:
                raise AuditInputError(f"exchange {k}: its end is before its start")
            if ex.volume_m3 is not None and not 0 < ex.volume_m3 <= MAX_VOLUME_M3:
                raise AuditInputError(
                    f"exchange {k}: volume_m3 must be above 0 and at most {MAX_VOLUME_M3:g} m3"
                )
