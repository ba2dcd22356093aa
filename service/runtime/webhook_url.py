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
  the IETF protocol assignments 192.0.0/24 (Oracle's metadata at 192.0.0.192 among
  them), the 6to4 relay anycast 192.88.99/24, the cloud metadata addresses outside
  link-local space (Azure's wire server 168.63.129.16), and this host's own addresses;
- IPv6 forms that carry an IPv4 address are judged by the IPv4 address inside them
  as well as by themselves: IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``,
  6to4 ``2002::/16`` (all routed to that IPv4 host by a translator or relay), and the
  forms no public route leads to, refused whatever they carry: IPv4-compatible
  ``::a.b.c.d`` (deprecated, RFC 4291), IPv4-translated ``::ffff:0:a.b.c.d`` (SIIT,
  RFC 2765), local-use NAT64 ``64:ff9b:1::/48`` (RFC 8215) and Teredo ``2001::/32``
  (whose client address, obfuscated inside, is still named in the refusal).

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
#: metadata services that do not sit in link-local space (Alibaba, Azure's wire
#: server, AWS over IPv6); Oracle's 192.0.0.192 falls in 192.0.0/24 below
_METADATA = {ipaddress.ip_address(a) for a in ("100.100.100.200", "168.63.129.16", "fd00:ec2::254")}
#: special-use nets that ``is_global`` passes (wholly or in part) in Python 3.11
_EXTRA_NETS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890): no webhook lives there
        "192.88.99.0/24",  # 6to4 relay anycast (RFC 7526)
        "::/96",  # IPv4-compatible, deprecated (RFC 4291 2.5.5.1): nothing routes it
        "::ffff:0:0:0/96",  # IPv4-translated, inside SIIT translators only (RFC 2765)
        "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215): a site's own translator
        "2001::/32",  # Teredo: reached through relays, never a server's address
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = (ipaddress.ip_network("::/96"), ipaddress.ip_network("::ffff:0:0:0/96"))


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


def _embedded_ipv4(ip: IPAddress) -> list[IPAddress]:
    """Every IPv4 address an IPv6 form carries (none for an IPv4 address)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        server, client = ip.teredo
        return [client, server]
    if ip in _NAT64 or any(ip in net for net in _COMPATIBLE):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)]
    return []


#: the refusals in order, the most telling reason first whichever address it is about
_CHECKS: tuple[tuple[Callable[[IPAddress, frozenset[IPAddress]], bool], str], ...] = (
    (lambda a, own: a in _METADATA, "a cloud metadata address"),
    (lambda a, own: a.is_loopback or a in own, "this host (the service itself)"),
    (lambda a, own: a.is_link_local, "a link-local address (cloud metadata lives there)"),
    (lambda a, own: a.is_multicast or a.is_unspecified, "not a unicast address"),
    (
        lambda a, own: not a.is_global or any(a in net for net in _EXTRA_NETS),
        "a private, shared or special-use address",
    ),
)


def forbidden_reason(ip: IPAddress, own: frozenset[IPAddress] = frozenset()) -> str | None:
    """Why ``ip`` may not be called without ``allow_private`` (None: it may). An IPv6
    form that carries an IPv4 address is refused if either address is."""
    inner = _embedded_ipv4(ip)
    for refused, why in _CHECKS:
        for candidate in (ip, *inner):
            if refused(candidate, own):
                return why if candidate == ip else f"{why}: {candidate} inside {ip}"
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
