"""Writes ``protocol/languages/subtags.txt``: the language subtags of the IANA Language Subtag
Registry (https://www.iana.org/assignments/language-subtag-registry), the source BCP 47 names.

The registry read is the copy the ``langcodes`` package ships (a development dependency), so the
table knows the languages ``langcodes`` knows; a test checks that the committed file is what
this writes. Run it again after moving ``langcodes`` on::

    .venv/bin/python -m sitemap_updater_local.language_subtags \\
        > layers/shared/sitemap_updater/protocol/languages/subtags.txt
"""

from __future__ import annotations

import string
import sys
from collections.abc import Iterable, Iterator
from itertools import product
from pathlib import Path


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


def table_text(lines: Iterable[str]) -> str:
    """The text of ``protocol/languages/subtags.txt`` for the registry ``lines``: its date, then
    every language subtag, lowercase, one a line."""
    date, codes = language_subtags(lines)
    if any(len(code) not in (2, 3) for code in codes):
        raise ValueError("the registry has a language subtag of other than 2 or 3 letters")
    return f"# IANA Language Subtag Registry, File-Date: {date}\n" + "".join(
        f"{c}\n" for c in codes
    )


def main() -> None:
    with open(registry_path(), encoding="utf-8") as registry:
        sys.stdout.write(table_text(registry))


if __name__ == "__main__":
    main()
