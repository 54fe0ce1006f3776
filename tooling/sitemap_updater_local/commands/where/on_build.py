"""``where`` on what ``build`` wrote: the file of the URL's host and section, read for it.

A build output keeps no table: it says where the URL belongs and whether that file lists it,
not what became of a change that is not there. The shard tree is the files of the host's
folder: the names on the path of the URL's hash are looked up (``placing.leaves_among``), so
only the folder is listed and only the URL's own file read; when that file does not list it,
the file of each other section of the host that would hold it, one a section (a change may
name its section, and the build may have been given other ``--section-rules``).
"""

from __future__ import annotations

import os
from typing import Any

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES
from sitemap_updater.protocol.urls import host_of, origin_of
from sitemap_updater.protocol.urlset import PublishedFormatError
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY, url_hash
from sitemap_updater.store.spaces import Layout, section_of_file, shard_file_key
from sitemap_updater_local.commands.where.placing import (
    Place,
    identity_of,
    leaf_of,
    leaves_among,
    listing,
    place,
)
from sitemap_updater_local.commands.where.verdict import judge_build
from sitemap_updater_local.errors import CommandError


def collect(url: str, out: str, site: str | None, section_rules: str) -> dict[str, Any]:
    """What the build output ``out`` says of ``url``: ``site`` is the ``--site`` list given
    (``None``: the URL's own origin, the primary host), ``section_rules`` its rules."""
    identity = identity_of(url)
    try:
        sites = Sites.parse(site if site is not None else origin_of(identity))
        rules = SectionRules.parse(section_rules, field="--section-rules")
    except SitemapError as error:
        raise CommandError(str(error)) from error
    owner = sites.site_of(identity)
    prefix = "" if owner is None else sites.key_prefix(owner)
    folder = os.path.join(out, prefix)
    if site is None and os.path.isdir(os.path.join(out, host_of(identity))):
        raise CommandError(
            f"{out} has a folder of {host_of(identity)}, another host's: give --site as the "
            "build was given it"
        )
    if not os.path.isfile(os.path.join(folder, INDEX_KEY)):
        named = folder or "."
        raise CommandError(f"{named}: no {INDEX_KEY}: not what sitemap-updater build writes")
    keys = {prefix + name for name in os.listdir(folder or ".")}
    layout = Layout(sites, rules)
    uh = url_hash(identity)
    where = place(layout, identity, leaves_among(keys, layout.space_for(identity), uh))
    listed_in, lastmod = None, None
    for candidate in _candidates(where, keys, uh):
        listed, lastmod = _listed(out, candidate, identity)
        if listed:
            listed_in = candidate
            break
    return judge_build(
        {
            "url": url,
            "identity": identity,
            "out": out,
            "sites": [s.origin for s in sites],
            **where.as_json(),
            "listed": listed_in is not None,
            "listed_in": listed_in,
            "lastmod": lastmod,
        }
    )


def _candidates(where: Place, keys: set[str], uh: str) -> list[str]:
    """The files that may list the URL, its own first: then the file of each other section of
    its host that covers its hash, and the host's empty-site file (which lists its root)."""
    if where.site is None or where.file is None:
        return []
    prefix = where.file[: where.file.rfind("/") + 1]
    found = [where.file] if where.shard is not None else []
    sections = sorted({section_of_file(key) or "" for key in keys} - {"", where.section})
    for section in sections:
        space = f"{prefix}{section}/"
        leaf = leaf_of(leaves_among(keys, space, uh), space, uh)
        if leaf is not None:
            found.append(shard_file_key(leaf))
    if prefix + EMPTY_SITE_KEY in keys:
        found.append(prefix + EMPTY_SITE_KEY)
    return found


def _listed(out: str, key: str, identity: str) -> tuple[bool, str | None]:
    path = os.path.join(out, key)
    with open(path, "rb") as fh:
        body = fh.read(MAX_READ_BACK_BYTES + 1)
    try:
        if len(body) > MAX_READ_BACK_BYTES:
            raise PublishedFormatError(f"larger than {MAX_READ_BACK_BYTES} bytes")
        return listing(body, identity)
    except PublishedFormatError as error:
        raise CommandError(f"{path}: not a sitemap file build writes: {error}") from error
