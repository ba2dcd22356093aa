"""Which webhook URLs are refused (no network needed: literal addresses)."""

from __future__ import annotations

import pytest

from vigia.service.runtime.webhook_url import WebhookUrlError, check_webhook_url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/leads",
        "http://localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fe80::1]/",
        "http://[::1]:9/",
        "http://100.100.100.200/",
        "http://0.0.0.0/",
        "http://user:pw@10.0.0.1/",
        "file:///etc/passwd",
        "gopher://10.0.0.1/",
        "http:///nohost",
        "http://[::1/",
    ],
)
def test_refused(url: str) -> None:
    with pytest.raises(WebhookUrlError):
        check_webhook_url(url, allow_private=False)


def test_private_networks_and_explicit_permission_pass() -> None:
    # a receiver inside the Navy's own network is normal
    check_webhook_url("https://10.20.30.40/hook", allow_private=False)
    check_webhook_url("http://127.0.0.1:9/hook", allow_private=True)
    with pytest.raises(WebhookUrlError):  # permission does not cover credentials in URLs
        check_webhook_url("http://a:b@127.0.0.1/", allow_private=True)
