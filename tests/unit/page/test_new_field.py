"""A new optional field flows from a message to the XML through its one declaration.

A scratch copy of the ``sitemap_updater`` package gets one field more at the end of ``Page``
(``page/model.py``), a text whose declaration names its element and namespace, and nothing
else: no normalizer, codec, digest or renderer is touched. A process that imports the copy first
then shows that a message carrying the field is judged (the text rules and the declared bound
apply to it), stored and read back, digested and rendered with it; and that a page without it
keeps the stored item, the digest and the bytes the package itself gives.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

import sitemap_updater
from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.urlset import URLSET_CLOSE_BYTES, urlset_opening
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import item_size, live_item
from tests.helpers.pages import NOW
from tests.helpers.xsd import SCHEMAS, SITEMAP_NS

NAMESPACE = "https://www.example.com/schemas/sitemap-page/1.0"
#: The bound is on the text, the element on the field (msgspec takes ``max_length`` on a ``str``
#: alone, not on ``str | None``), as ``priority`` declares its bounds.
FIELD = (
    "    title: Annotated[Annotated[str, Meta(max_length=200)] | None, Meta(extra={"
    f'"element": "page:title", "namespace": "{NAMESPACE}"}})] = None\n'
)
SITE = "https://www.example.com"
#: The official schemas of the namespaces a urlset declares, by namespace.
SCHEMA_FILES = {
    SITEMAP_NS: SCHEMAS / "sitemap.xsd",
    "http://www.w3.org/1999/xhtml": SCHEMAS / "xhtml-link.xsd",
    "http://www.google.com/schemas/sitemap-image/1.1": SCHEMAS / "sitemap-image.xsd",
    "http://www.google.com/schemas/sitemap-video/1.1": SCHEMAS / "sitemap-video.xsd",
    "http://www.google.com/schemas/sitemap-news/0.9": SCHEMAS / "sitemap-news.xsd",
}
PLAIN = {"action": "upsert", "url": SITE + "/a", "lastmod": "2026-11-19", "priority": 0.5}
TITLED = {**PLAIN, "title": "Fish & <chips>"}

#: Run in the process that imports the copy: what each part of the package makes of the
#: messages given as the first argument, as JSON.
SCRIPT = """
import json, sys
import msgspec
import sitemap_updater
from datetime import datetime
from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.page.render import url_element
from sitemap_updater.page.schema import message_schema
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import item_size, live_item, page_of_item

messages, now = json.loads(sys.argv[1]), datetime.fromisoformat(sys.argv[2])
sites = Sites.parse("https://www.example.com")
out = {"package": sitemap_updater.__file__, "changes": [], "rejections": []}
for message in messages:
    (judged,) = judge_message(json.dumps(message), sent_at=now, sites=sites, now=now).items
    if not isinstance(judged, Change):
        out["rejections"].append([judged.field, judged.value, judged.rule])
        continue
    item = live_item(judged.page, judged.key, judged.digest)
    out["changes"].append({
        "page": msgspec.to_builtins(judged.page),
        "round_trip": page_of_item(item) == judged.page,
        "item": item,
        "size": item_size(item),
        "digest": judged.digest,
        "element": url_element(judged.page),
    })
listing = {k: v for k, v in messages[1].items() if k != "action"}
drops = []
out["listing"] = msgspec.to_builtins(judge_listing(listing, sites=sites, now=now, drops=drops).page)
bad = {**listing, "title": "x" * 201}
judge_listing(bad, sites=sites, now=now, drops=drops)
out["drops"] = [[d.field, d.rule] for d in drops]
out["schema"] = message_schema()["$defs"]["Upsert"]["properties"].get("title")
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package whose ``Page`` declares ``title`` as its last field."""
    root = tmp_path_factory.mktemp("scratch")
    package = Path(sitemap_updater.__file__).parent
    shutil.copytree(package, root / "sitemap_updater", ignore=shutil.ignore_patterns("__pycache__"))
    model = root / "sitemap_updater" / "page" / "model.py"
    text = model.read_text(encoding="utf-8")
    start = text.index("\nclass Page(")
    end = text.index("\n\n\n", start)  # the end of the class's body
    model.write_text(text[: end + 1] + FIELD + text[end + 1 :], encoding="utf-8")
    return root


def _run(root: Path, messages: list[dict[str, Any]]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(messages), NOW.isoformat()],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def seen(copied: Path) -> dict[str, Any]:
    bad = [{**PLAIN, "title": "bell\x07"}, {**PLAIN, "title": "x" * 201}]
    return _run(copied, [PLAIN, TITLED, *bad])


def _here(message: dict[str, Any]) -> Change:
    (judged,) = judge_message(
        json.dumps(message), sent_at=NOW, sites=Sites.parse(SITE), now=NOW
    ).items
    assert isinstance(judged, Change)
    return judged


def test_the_copy_is_what_the_process_imports(copied: Path, seen: dict[str, Any]) -> None:
    assert Path(seen["package"]).is_relative_to(copied)
    package, copy = Path(sitemap_updater.__file__).parent, copied / "sitemap_updater"
    differing = [
        str(path.relative_to(copy))
        for path in sorted(copy.rglob("*.py"))
        if path.read_bytes() != (package / path.relative_to(copy)).read_bytes()
    ]
    assert differing == ["page/model.py"]
    assert FIELD in (copied / "sitemap_updater" / "page" / "model.py").read_text()


def test_a_message_with_the_field_is_judged_stored_and_rendered_with_it(
    seen: dict[str, Any],
) -> None:
    plain, titled = seen["changes"]
    assert titled["page"]["title"] == TITLED["title"]
    assert titled["round_trip"] is True
    assert titled["item"]["title"] == {"S": TITLED["title"]}
    element = f'<page:title xmlns:page="{NAMESPACE}">Fish &amp; &lt;chips&gt;</page:title></url>\n'
    assert titled["element"].endswith(element)
    assert titled["element"].removesuffix(element) == plain["element"].removesuffix("</url>\n")
    assert titled["digest"] != plain["digest"]
    assert titled["size"] > plain["size"]


#: A schema of the new element's namespace, as a site that publishes it would give one: sitemap.xsd
#: takes an element of another namespace only where a schema declares it (a strict wildcard).
PAGE_XSD = f"""<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"
  targetNamespace="{NAMESPACE}" elementFormDefault="qualified">
  <xsd:element name="title"><xsd:simpleType><xsd:restriction base="xsd:string">
    <xsd:maxLength value="200"/></xsd:restriction></xsd:simpleType></xsd:element>
</xsd:schema>"""


def test_the_element_of_the_new_field_is_valid_in_a_urlset(
    seen: dict[str, Any], tmp_path: Path
) -> None:
    _, titled = seen["changes"]
    (tmp_path / "page.xsd").write_text(PAGE_XSD, encoding="utf-8")
    locations = {**SCHEMA_FILES, NAMESPACE: tmp_path / "page.xsd"}
    imports = "".join(
        f'<xsd:import namespace="{ns}" schemaLocation="{path.as_uri()}"/>'
        for ns, path in locations.items()
    )
    wrapper = f'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">{imports}</xsd:schema>'
    schema = etree.XMLSchema(etree.fromstring(wrapper.encode()))
    document = urlset_opening(False) + titled["element"].encode() + URLSET_CLOSE_BYTES
    root = etree.fromstring(document)
    assert schema.validate(root), schema.error_log
    assert root.findtext(f".//{{{NAMESPACE}}}title") == TITLED["title"]


def test_the_field_follows_the_text_rules_and_its_declared_bound(seen: dict[str, Any]) -> None:
    (control, long) = seen["rejections"]
    assert control[:2] == ["title", "bell\x07"]
    assert "U+0007" in control[2]
    assert long[0] == "title" and long[2] == "must have at most 200 characters"
    assert seen["listing"]["title"] == TITLED["title"]
    assert seen["drops"] == [["title", "must have at most 200 characters"]]
    assert seen["schema"]["anyOf"][0] == {"type": "string", "maxLength": 200}


def test_a_page_without_the_field_keeps_its_item_digest_and_bytes(seen: dict[str, Any]) -> None:
    plain, _ = seen["changes"]
    here = _here(PLAIN)
    assert here.page is not None
    assert plain["digest"] == here.digest
    assert plain["element"] == url_element(here.page)
    item = live_item(here.page, here.key, here.digest)
    assert plain["item"] == item
    assert plain["size"] == item_size(item)
    assert "title" not in plain["page"]
