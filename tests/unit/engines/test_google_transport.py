"""google-auth's transport goes only to the addresses it was given."""

from __future__ import annotations

import re

import pytest

from sitemap_updater.engines.google_transport import BoundedRequest, NoAnswer


def test_an_address_not_given_is_refused_before_any_connection() -> None:
    request = BoundedRequest(1.0, {"http://127.0.0.1:9"})
    with pytest.raises(NoAnswer, match=re.escape("https://oauth2.example is not one")):
        request("https://oauth2.example/token", "POST", b"assertion=secret")
