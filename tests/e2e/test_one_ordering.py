"""One ordering rule: a file that lists a page twice publishes the same page through ``build``
(offline) and through ``simulate`` (the deployment on moto): the later line wins in both."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from lxml import etree

from sitemap_updater.sites import Sites
from sitemap_updater_local.commands.simulate import simulate
from sitemap_updater_local.pipeline.static_build import build_static

SITE = "https://www.example.com"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
LINES = [
    {"action": "upsert", "url": f"{SITE}/p/1", "lastmod": "2025-01-02"},
    {"action": "upsert", "url": f"{SITE}/p/2"},
    {"action": "upsert", "url": f"{SITE}/p/1", "lastmod": "2024-01-01"},
]


def _lastmods(root: Path) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for path in root.glob("sitemap-*.xml.gz"):
        for url in etree.fromstring(gzip.decompress(path.read_bytes())).iterfind("s:url", NS):
            found[url.findtext("s:loc", namespaces=NS) or ""] = url.findtext("s:lastmod", None, NS)
    return found


def test_the_later_line_of_a_page_wins_through_build_and_simulate(tmp_path: Path) -> None:
    source = tmp_path / "wave.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in LINES))

    build_static([str(source)], Sites.parse(SITE), str(tmp_path / "built"), stylesheet=False)
    simulate([[json.dumps(line) for line in LINES]], tmp_path / "simulated", site=SITE)

    built, simulated = _lastmods(tmp_path / "built"), _lastmods(tmp_path / "simulated")
    assert built == simulated == {f"{SITE}/p/1": "2024-01-01", f"{SITE}/p/2": None}
