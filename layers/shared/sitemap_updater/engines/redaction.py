"""Credentials kept out of every text the engines' clients keep or print.

An engine's error answer may echo what it was sent: the Bing API key (a query parameter), the
OAuth access token (the ``Authorization: Bearer ...`` header), in any case and percent-encoded
or not. :func:`redact` replaces each credential it is given, case-insensitively and in each
form a URL or a form body may carry it, and any ``Bearer`` value whatever its credential, by
:data:`REDACTED`. The clients redact every reason before it becomes an error's text, and the
observer redacts again, with every credential of the run, whatever it stores or logs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final
from urllib.parse import quote, quote_plus

REDACTED: Final = "[redacted]"
#: ``Bearer`` (any case) and the value after it, up to a space, a quote or a separator
_BEARER: Final = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)([^\s\"'<>,;&\\]+)")


def _forms(secret: str) -> set[str]:
    """The ways a credential may be written: as it is, percent-encoded, form-encoded."""
    return {secret, quote(secret, safe=""), quote_plus(secret, safe="")} - {""}


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` without any of ``secrets`` (in any case and encoding) or any Bearer value."""
    forms = {form for secret in secrets if secret for form in _forms(secret)}
    for form in sorted(forms, key=len, reverse=True):  # a longer form first: it may hold another
        text = re.sub(re.escape(form), REDACTED, text, flags=re.IGNORECASE)
    return _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
