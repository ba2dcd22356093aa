"""Which webhook URLs the service will call, and at which address.

A webhook makes the service send requests where an admin says. Pointed at the service
itself, a private network, or a cloud metadata endpoint, it would turn the service into
a proxy into places only it can reach (SSRF). So, as the Standard Webhooks guidance
and SSRF-filter libraries (Python's ``advocate``, Node's ``ssrf-req-filter``) do, only
globally routable unicast addresses are called unless the endpoint is registered with
``allow_private`` (a receiver inside the Navy's own network, on this host, a test):

- every address Python's ``ipaddress`` does not call ``is_global`` (RFC 1918 10/8,
  172.16/12, 192.168/16; 100.64/10 shared CGNAT space; 198.18/15 benchmarking; 127/8,
  ::1; 169.254/16, fe80::/10 link-local; fc00::/7 unique-local; 0/8; 240/4 reserved;
  documentation nets; ...);
- and explicitly what ``is_global`` lets through in some Python versions: multicast,
  the 6to4 relay anycast 192.88.99/24, the cloud metadata addresses outside link-local
  space, and this host's own addresses;
- IPv6 forms that carry an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64
  ``64:ff9b::/96`` and ``64:ff9b:1::/48``, 6to4 ``2002::/16``) are judged by the IPv4
  address inside them.

Addresses are checked when the endpoint is registered and again before every delivery,
and the delivery then connects to the very address that was checked (the URL's name is
kept for ``Host`` and TLS), so a name that resolves elsewhere a moment later (DNS
rebinding) gains nothing. Redirects are never followed.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from vigia.service.errors import RequestInvalidError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[..., Sequence[tuple[Any, ...]]]
#: metadata services that do not sit in link-local space (Alibaba, AWS over IPv6)
_METADATA = {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")}
_EXTRA_NETS = (ipaddress.ip_network("192.88.99.0/24"),)  # 6to4 relay anycast (RFC 7526)
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class WebhookUrlError(RequestInvalidError):
    """A webhook URL the service refuses to call."""

    code = "webhook-url"


@dataclass(slots=True, frozen=True)
class WebhookTarget:
    """Where a delivery goes: ``url`` has the checked address as its host; ``host`` is
    the ``Host`` header and ``server_name`` the TLS name, both from the registered URL."""

    url: str
    host: str
    server_name: str


def _embedded_ipv4(ip: IPAddress) -> IPAddress:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if any(ip in net for net in _NAT64):
            return ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
    return ip


def forbidden_reason(ip: IPAddress, own: frozenset[IPAddress] = frozenset()) -> str | None:
    """Why ``ip`` may not be called without ``allow_private`` (None: it may)."""
    inner = _embedded_ipv4(ip)
    for candidate in {ip, inner}:
        if candidate in _METADATA:
            return "a cloud metadata address"
        if candidate.is_loopback or candidate in own:
            return "this host (the service itself)"
        if candidate.is_link_local:
            return "a link-local address (cloud metadata lives there)"
        if candidate.is_multicast or candidate.is_unspecified:
            return "not a unicast address"
        if not candidate.is_global or any(candidate in net for net in _EXTRA_NETS):
            return "a private, shared or special-use address"
    return None


def _own_addresses() -> frozenset[IPAddress]:
    own: set[IPAddress] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            own.add(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
    except (OSError, ValueError):
        pass
    return frozenset(own)


def _parse(url: str) -> tuple[SplitResult, str, int]:
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
    return parts, parts.hostname, port


def resolve_webhook_url(
    url: str, *, allow_private: bool, resolver: Resolver = socket.getaddrinfo
) -> WebhookTarget:
    """Check ``url`` and resolve its host; refuse it if it is not plain http(s) to a
    host or (unless ``allow_private``) if any address the name resolves to is refused."""
    parts, hostname, port = _parse(url)
    try:
        infos = resolver(hostname, port, proto=socket.IPPROTO_TCP)
        addresses = [ipaddress.ip_address(str(i[4][0]).split("%", 1)[0]) for i in infos]
    except (OSError, ValueError, UnicodeError) as exc:
        raise WebhookUrlError(f"webhook host {hostname!r} does not resolve: {exc}") from None
    if not addresses:
        raise WebhookUrlError(f"webhook host {hostname!r} does not resolve")
    if not allow_private:
        own = _own_addresses()
        for ip in addresses:
            why = forbidden_reason(ip, own)
            if why is not None:
                raise WebhookUrlError(
                    f"webhook host {hostname!r} resolves to {ip}, {why}; register it "
                    'with "allow_private": true if that is really meant'
                )
    ip = addresses[0]
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{literal}:{port}"
    return WebhookTarget(
        url=urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")),
        host=parts.netloc,
        server_name=hostname,
    )


def check_webhook_url(url: str, *, allow_private: bool) -> None:
    """At registration: refuse a URL ``resolve_webhook_url`` refuses. With
    ``allow_private`` any address may be called, so the name need not resolve yet."""
    if allow_private:
        _parse(url)
    else:
        resolve_webhook_url(url, allow_private=False)
