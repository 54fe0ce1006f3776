"""Writes ``protocol/languages/registry.py``: the language subtags of the IANA Language Subtag
Registry (https://www.iana.org/assignments/language-subtag-registry), the source BCP 47 names.

The registry read is the copy the ``langcodes`` package ships (a development dependency), so the
table knows the languages ``langcodes`` knows; a test checks that the committed module is what
this writes. Run it again after moving ``langcodes`` on::

    .venv/bin/python -m sitemap_updater_local.language_subtags \\
        > layers/shared/sitemap_updater/protocol/languages/registry.py
"""

from __future__ import annotations

import string
import sys
from collections.abc import Iterable, Iterator
from itertools import product
from pathlib import Path

#: Characters of a line of the table's text, its quotes and indent included.
LINE = 96


def registry_path() -> Path:
    """The registry file of the installed ``langcodes``."""
    import langcodes

    return Path(langcodes.__file__).parent / "data" / "language-subtag-registry.txt"


def _records(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """Each record of the registry (fields of a record are separated from the next by ``%%``;
    a line that starts with a space continues the field before it)."""
    record: dict[str, str] = {}
    last = ""
    for raw in lines:
        line = raw.rstrip("\n")
        if line == "%%":
            yield record
            record, last = {}, ""
        elif line.startswith(" ") and last:
            record[last] += line[1:]
        elif ": " in line:
            last, value = line.split(": ", 1)
            record.setdefault(last, value)
    yield record


def _expanded(subtag: str) -> Iterator[str]:
    """The subtags of ``subtag``, a range such as ``qaa..qtz`` expanded."""
    first, _, last = subtag.partition("..")
    if not last:
        yield subtag
        return
    for letters in product(string.ascii_lowercase, repeat=len(first)):
        code = "".join(letters)
        if first <= code <= last:
            yield code


def language_subtags(lines: Iterable[str]) -> tuple[str, list[str]]:
    """The registry's ``File-Date`` and its language subtags, lowercase, sorted by length and
    then alphabetically."""
    records = list(_records(lines))
    date = records[0].get("File-Date", "unknown")
    codes = {
        code
        for record in records
        if record.get("Type") == "language"
        for code in _expanded(record["Subtag"].lower())
    }
    return date, sorted(codes, key=lambda code: (len(code), code))


def _packed(codes: list[str], width: int) -> str:
    """``codes`` of ``width`` letters written one after the other, as the lines of a string
    literal of :data:`LINE` characters (a code is never cut)."""
    text = "".join(code for code in codes if len(code) == width)
    step = (LINE - 7) // 6 * 6  # a multiple of 2 and of 3
    chunks = [text[i : i + step] for i in range(0, len(text), step)] or [""]
    return "\n".join(f'    "{chunk}"' for chunk in chunks)


def module_text(lines: Iterable[str]) -> str:
    """The text of ``protocol/languages/registry.py`` for the registry ``lines``."""
    date, codes = language_subtags(lines)
    if any(len(code) not in (2, 3) for code in codes):
        raise ValueError("the registry has a language subtag of other than 2 or 3 letters")
    return (
        '"""The language subtags of the IANA Language Subtag Registry (File-Date: '
        f"{date}), as the\n``langcodes`` package ships it: {len(codes):,} codes, ranges such as "
        "``qaa..qtz`` expanded.\n\nWritten by ``python -m sitemap_updater_local.language_subtags"
        "``; do not edit.\n"
        '"""\n\nfrom typing import Final\n\n'
        f'FILE_DATE: Final = "{date}"\n'
        "#: Every two-letter language subtag, lowercase, one after the other.\n"
        f"TWO_LETTER: Final = (\n{_packed(codes, 2)}\n)\n"
        "#: Every three-letter language subtag, lowercase, one after the other.\n"
        f"THREE_LETTER: Final = (\n{_packed(codes, 3)}\n)\n"
    )


def main() -> None:
    with open(registry_path(), encoding="utf-8") as registry:
        sys.stdout.write(module_text(registry))


if __name__ == "__main__":
    main()
