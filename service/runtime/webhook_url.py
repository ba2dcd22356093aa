"""Which webhook URLs the service will call.

A webhook makes the service send requests where an admin says. Pointed at the service
itself, a loopback or link-local address, or a cloud metadata endpoint, it would turn
the service into a proxy into places only it can reach (SSRF). Those are refused unless
the endpoint is registered with ``allow_private`` (a receiver on the same host, a test).
Addresses are checked when the endpoint is registered and again before every delivery,
as a name may resolve elsewhere later. Redirects are never followed.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from vigia.service.errors import RequestInvalidError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: metadata services that do not sit in link-local space (Alibaba, AWS over IPv6)
_METADATA = {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")}


class WebhookUrlError(RequestInvalidError):
    """A webhook URL the service refuses to call."""

    code = "webhook-url"


def _forbidden(ip: IPAddress, own: set[IPAddress]) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in _METADATA:
        return "a cloud metadata address"
    if ip.is_loopback or ip in own:
        return "this host (the service itself)"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if ip.is_unspecified or ip.is_multicast or ip.is_reserved:
        return "not a unicast address"
    return None


def _own_addresses() -> set[IPAddress]:
    own: set[IPAddress] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            own.add(ipaddress.ip_address(info[4][0]))
    except OSError:
        pass
    return own


def check_webhook_url(url: str, *, allow_private: bool) -> None:
    """Refuse a URL that is not plain http(s) to a host, or (unless ``allow_private``)
    one whose host resolves to this host, link-local or metadata addresses."""
    if len(url) > 2_000:
        raise WebhookUrlError("webhook URL is longer than 2000 characters")
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise WebhookUrlError(f"webhook URL is not valid: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookUrlError("webhook URL must be http:// or https:// with a host")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlError("webhook URL must not carry credentials; receivers verify signatures")
    if allow_private:
        return
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise WebhookUrlError(f"webhook host {parts.hostname!r} does not resolve: {exc}") from None
    own = _own_addresses()
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        why = _forbidden(ip, own)
        if why is not None:
            raise WebhookUrlError(
                f"webhook host {parts.hostname!r} resolves to {ip}, {why}; register it with "
                '"allow_private": true if that is really meant'
            )
