"""XML escaping and the XML 1.0 character rule, shared by every writer."""

from __future__ import annotations

import re
from functools import cache


@cache
def forbidden_chars() -> re.Pattern[str]:
    """Characters outside XML 1.0's ``Char`` production (https://www.w3.org/TR/xml/#charsets),
    which are also the characters SQS refuses in a message. Compiled on first use: its wide
    ranges take milliseconds to compile, which a cold start would pay for text that is nearly
    always printable ASCII."""
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def escape(text: str) -> str:
    """Escape all five XML special characters; valid in text and in double- or single-quoted
    attribute values alike."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    return text


def needs_escape(text: str) -> bool:
    return "&" in text or "<" in text or ">" in text or '"' in text or "'" in text


def forbidden_char_at(text: str) -> int:
    """Index of the first character XML 1.0 forbids, or -1."""
    if text.isascii() and text.isprintable():
        return -1
    found = forbidden_chars().search(text)
    return -1 if found is None else found.start()
