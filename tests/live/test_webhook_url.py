"""Which webhook URLs are refused (no network needed: literal addresses, or a resolver
standing in for DNS). The expected verdicts come from the IANA special-purpose address
registries (RFC 6890 and its updates), not from the code under test."""

from __future__ import annotations

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
