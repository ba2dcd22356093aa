"""Which webhook URLs are refused (no network needed: literal addresses, or a resolver
standing in for DNS). The expected verdicts come from the IANA special-purpose address
registries (RFC 6890 and its updates), not from the code under test."""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import Any

import pytest

from vigia.service.runtime.webhook_url import (
    WebhookUrlError,
    check_webhook_url,
    resolve_webhook_url,
)

PRIVATE_OR_SPECIAL = [
    "http://10.0.0.1/",  # RFC 1918
    "http://10.255.255.255/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.1.10/",
    "http://100.64.0.1/",  # RFC 6598 shared (CGNAT)
    "http://100.127.255.254/",
    "http://198.18.0.1/",  # RFC 2544 benchmarking
    "http://198.19.255.254/",
    "http://169.254.1.1/",
    "http://0.1.2.3/",  # "this network"
    "http://224.0.0.1/",  # multicast
    "http://239.1.2.3/",
    "http://240.0.0.1/",  # reserved
    "http://255.255.255.255/",
    "http://192.0.2.5/",  # documentation
    "http://[fd00::1]/",  # unique local fc00::/7
    "http://[fc00::1]/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",  # multicast
    "http://[::ffff:10.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:192.168.0.1]/",
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[2002:a00:1::1]/",  # 6to4 of 10.0.0.1
    "http://[2001:db8::1]/",  # documentation
]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/leads",
        "http://127.8.9.10/",
        "http://localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::1]:9/",
        "http://100.100.100.200/",
        "http://0.0.0.0/",
        "http://user:pw@10.0.0.1/",
        "file:///etc/passwd",
        "gopher://10.0.0.1/",
        "http:///nohost",
        "http://[::1/",
        *PRIVATE_OR_SPECIAL,
    ],
)
def test_refused(url: str) -> None:
    with pytest.raises(WebhookUrlError):
        check_webhook_url(url, allow_private=False)


@pytest.mark.parametrize(
    "url",
    [
        "https://8.8.8.8/hook",
        "http://9.255.255.255/",  # just below 10/8
        "http://11.0.0.0/",  # just above
        "http://172.15.255.255/",  # just below 172.16/12
        "http://172.32.0.0/",  # just above
        "http://100.63.255.255/",  # just below 100.64/10
        "http://100.128.0.0/",  # just above
        "http://198.17.255.255/",  # just below 198.18/15
        "http://198.20.0.0/",  # just above
        "http://223.255.255.254/",  # last unicast before multicast
        "http://[2001:4860:4860::8888]/",
        "http://[64:ff9b::808:808]/",  # NAT64 of 8.8.8.8
    ],
)
def test_global_unicast_passes(url: str) -> None:
    check_webhook_url(url, allow_private=False)


@pytest.mark.parametrize("url", PRIVATE_OR_SPECIAL[:8])
def test_allow_private_permits_private_networks(url: str) -> None:
    check_webhook_url(url, allow_private=True)


def test_explicit_permission_never_covers_credentials() -> None:
    check_webhook_url("http://127.0.0.1:9/hook", allow_private=True)
    with pytest.raises(WebhookUrlError):
        check_webhook_url("http://a:b@127.0.0.1/", allow_private=True)


def test_a_name_is_refused_if_any_of_its_addresses_is_and_the_checked_one_is_called() -> None:
    answers: dict[str, list[str]] = {"hook.example": ["8.8.4.4", "10.1.2.3"]}

    def resolver(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]

    with pytest.raises(WebhookUrlError, match=r"10\.1\.2\.3"):
        resolve_webhook_url("https://hook.example/x", allow_private=False, resolver=resolver)
    answers["hook.example"] = ["8.8.4.4"]
    target = resolve_webhook_url(
        "https://hook.example:8443/x?a=1", allow_private=False, resolver=resolver
    )
    assert target.url == "https://8.8.4.4:8443/x?a=1"
    assert (target.host, target.server_name) == ("hook.example:8443", "hook.example")


def test_with_allow_private_a_name_need_not_resolve_at_registration() -> None:
    # checked (and connected to by address) at each delivery instead
    check_webhook_url("http://receiver.internal.invalid:8080/hook", allow_private=True)


# issue 31: what Python 3.11's ``is_global`` passes. Each IPv6 form carries an IPv4
# address; the ones a relay or translator would route are judged by it, the rest are
# refused whatever they carry (8.8.8.8 inside still refused).
EMBEDDED_OR_SPECIAL = [
    "192.0.0.8",  # IETF protocol assignments 192.0.0/24 (RFC 6890)
    "192.0.0.9",
    "192.0.0.192",  # Oracle Cloud metadata
    "192.0.0.255",
    "168.63.129.16",  # Azure wire server
    "::ffff:0:7f00:1",  # IPv4-translated 127.0.0.1 (RFC 2765)
    "::ffff:0:808:808",  # IPv4-translated 8.8.8.8
    "::127.0.0.1",  # IPv4-compatible (RFC 4291, deprecated)
    "::8.8.8.8",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:168.63.129.16",
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:c000:8::1",  # 6to4 of 192.0.0.8
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a83f:8110",  # NAT64 of 168.63.129.16
    "64:ff9b::c000:8",  # NAT64 of 192.0.0.8
    "64:ff9b:1::808:808",  # local-use NAT64 (RFC 8215)
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1
    "2001:0:808:808::f7f7:f7f7",  # Teredo, server and client 8.8.8.8
]


def _literal(address: str) -> str:
    return f"http://[{address}]/" if ":" in address else f"http://{address}/"


@pytest.mark.parametrize("address", EMBEDDED_OR_SPECIAL)
def test_embedded_and_special_forms_are_refused_at_registration(address: str) -> None:
    with pytest.raises(WebhookUrlError):
        check_webhook_url(_literal(address), allow_private=False)


@pytest.mark.parametrize("address", EMBEDDED_OR_SPECIAL)
def test_embedded_and_special_forms_are_refused_when_a_name_rebinds_to_them(
    address: str,
) -> None:
    # the dispatcher calls resolve_webhook_url before every delivery (DNS rebinding)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    def resolver(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    with pytest.raises(WebhookUrlError, match=re.escape(str(ipaddress.ip_address(address)))):
        resolve_webhook_url("https://hook.example/x", allow_private=False, resolver=resolver)


def test_the_embedded_address_is_named() -> None:
    with pytest.raises(WebhookUrlError, match=r"127\.0\.0\.1 inside ::ffff:0:7f00:1"):
        check_webhook_url("http://[::ffff:0:7f00:1]/", allow_private=False)


@pytest.mark.parametrize(
    "url",
    ["http://[2002:808:808::1]/", "http://[::ffff:8.8.8.8]/", "http://192.0.1.1/"],
)
def test_routed_embeddings_of_global_addresses_pass(url: str) -> None:
    # 6to4 and IPv4-mapped forms of 8.8.8.8 reach 8.8.8.8; 192.0.1/24 is ordinary space
    check_webhook_url(url, allow_private=False)
