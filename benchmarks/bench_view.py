"""How fast the human view (sitemap.html) shows the first rows of a 50,000-URL file, in headless
Chromium with XSLT off, against the floor of the same run: the same file fetched, inflated and
parsed by the browser's XML parser alone (what any view must do before it can show a row).

    .venv/bin/python benchmarks/bench_view.py [--urls 50000] [--rounds 3]

A ``build`` writes the file (URLs with an alternate and images, as a shop's); ``sitemap-updater
serve`` serves it on 127.0.0.1. Each round opens the view in a new tab and reads the time from
opening the file to its first rows drawn (the page records it), then measures the floor in that
tab; the best of the rounds is kept for each, and their ratio printed. Also printed: a search
and a sort over every URL, and what the view weighs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "layers" / "shared", ROOT / "tooling"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from sitemap_updater.sites import Sites  # noqa: E402
from sitemap_updater.view import view_files  # noqa: E402
from sitemap_updater_local.commands.build import build_static  # noqa: E402
from tests.helpers.chromium import WITHOUT_XSLT, browser, chromium_binary  # noqa: E402

SITE = "https://www.example.com"
#: The floor, in the page: fetch the file, inflate it, parse it (no extraction, no drawing).
FLOOR = """(async () => {
  const start = performance.now();
  const body = await (await fetch(NAME)).arrayBuffer();
  const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream('gzip'));
  const text = await new Response(stream).text();
  const parsedFrom = performance.now();
  new DOMParser().parseFromString(text, 'application/xml');
  const end = performance.now();
  return [end - start, end - parsedFrom];
})()"""
#: A search over every URL and a sort of them all, each timed to its rows drawn.
ACTIONS = """(async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const box = document.getElementById('search');
  let start = performance.now();
  box.value = '/p/1234';
  box.dispatchEvent(new Event('input'));
  await frame();
  const search = performance.now() - start;
  box.value = '';
  box.dispatchEvent(new Event('input'));
  await frame();
  start = performance.now();
  document.querySelector('button[data-sort=lastmod]').click();
  await frame();
  return [search, performance.now() - start];
})()"""


def write_site(folder: Path, urls: int) -> str:
    source = folder / "changes.jsonl"
    with source.open("w") as out:
        for i in range(urls):
            change = {
                "action": "upsert",
                "url": f"{SITE}/p/{i}",
                "lastmod": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
                "alternates": [{"hreflang": "de", "href": f"{SITE}/de/p/{i}"}] if i % 2 else [],
                "images": [{"loc": f"https://cdn.example.net/{i}/{k}.jpg"} for k in range(i % 3)],
            }
            out.write(json.dumps(change) + "\n")
    build_static([str(source)], Sites.parse(SITE), str(folder / "out"), max_urls=urls)
    (name,) = (p.name for p in (folder / "out").glob("sitemap-*.xml.gz"))
    return name


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    binary = chromium_binary()
    if binary is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as work:
        name = write_site(Path(work), args.urls)
        out = Path(work) / "out"
        size = (out / name).stat().st_size
        serve = subprocess.Popen(
            [sys.executable, "-m", "sitemap_updater_local.cli", "serve", str(out), "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        try:
            assert serve.stdout is not None
            base = re.search(r"http://127\.0\.0\.1:\d+", serve.stdout.readline())
            assert base, "serve printed no address"
            firsts, floors, parses, searches, sorts = [], [], [], [], []
            with browser(binary, WITHOUT_XSLT) as chrome:
                for _ in range(args.rounds):
                    page = chrome.page()
                    page.open(f"{base.group(0)}/sitemap.html#file={name}")
                    firsts.append(float(page.wait("document.documentElement.dataset.firstRowsMs")))
                    floor, parse = page.evaluate(FLOOR.replace("NAME", json.dumps(name)))
                    floors.append(floor)
                    parses.append(parse)
                    search, sort = page.evaluate(ACTIONS)
                    searches.append(search)
                    sorts.append(sort)
                    page.call("Page.close")
        finally:
            serve.terminate()
            serve.wait(timeout=30)
    first, floor = min(firsts), min(floors)
    print(
        f"{args.urls:,} URLs ({size / 1e6:.1f} MB gzipped), best of {args.rounds}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"  first rows drawn           {first:8.0f} ms")
    print(f"  floor: fetch+inflate+parse {floor:8.0f} ms (the XML parse {min(parses):.0f} ms)")
    print(f"  first rows / floor         {first / floor:8.2f}x")
    print(f"  search over every URL      {min(searches):8.0f} ms to its rows")
    print(f"  sort by lastmod            {min(sorts):8.0f} ms to its rows")
    raw = sum(len(body) for _, body in view_files())
    packed = sum(len(gzip.compress(body)) for _, body in view_files())
    files = ", ".join(f"{n} {len(b):,} B" for n, b in view_files())
    print(f"  the view weighs {raw:,} bytes ({packed:,} gzipped): {files}; no library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
