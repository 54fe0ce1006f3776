"""Text from outside (a file name, a URL, a value, a queue message, an AWS answer) made safe to
print on a terminal or in a log line.

Every control character (Unicode category Cc: newlines, carriage returns, tabs, ESC and the
rest of C0 and C1), every format character (Cf: the bidi embeddings, overrides and isolates
U+202A-U+202E and U+2066-U+2069, zero-width characters, the soft hyphen, ...), the line and
paragraph separators (Zl, Zp) and lone surrogates (Cs) are written as Python-style escapes
(``\\x1b``, ``\\u202e``, ``\\U000e0001``). So a file name holding a newline cannot forge a line of
its own, an escape sequence never reaches the terminal, and right-to-left overrides cannot
reorder what is shown. Everything else, non-ASCII letters included, is kept as it is.
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: The categories written as escapes.
ESCAPED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: object) -> str:
    """``text`` (``str()`` of any other value) with every character of
    :data:`ESCAPED_CATEGORIES` written as an escape; one line, whatever it held."""
    text = text if isinstance(text, str) else str(text)
    if text.isascii() and text.isprintable():  # the common case: nothing to look at
        return text
    category = unicodedata.category
    return "".join(_escape(c) if category(c) in ESCAPED_CATEGORIES else c for c in text)
