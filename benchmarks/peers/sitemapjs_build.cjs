// Peer for bench_build.py: sitemap.js (npm "sitemap") writing gzipped sitemaps and an index
// from a JSONL file of change events, the way its README shows (SitemapAndIndexStream + gzip).
// Usage: node sitemapjs_build.cjs EVENTS.jsonl OUT_DIR SITE
// It writes every upsert as it comes; it does not resolve later edits or deletes.
const { SitemapAndIndexStream, SitemapStream } = require("sitemap");
const { createGzip } = require("zlib");
const { createReadStream, createWriteStream, mkdirSync } = require("fs");
const { resolve } = require("path");
const readline = require("readline");

const [, , input, out, site] = process.argv;
mkdirSync(out, { recursive: true });
const index = new SitemapAndIndexStream({
  limit: 40000,
  getSitemapStream: (i) => {
    const sitemap = new SitemapStream({ hostname: site });
    const name = `sitemap-${i}.xml.gz`;
    const file = sitemap.pipe(createGzip()).pipe(createWriteStream(resolve(out, name)));
    return [`${site}/${name}`, sitemap, file];
  },
});
const indexFile = index.pipe(createWriteStream(resolve(out, "sitemap.xml")));

(async () => {
  let urls = 0;
  const lines = readline.createInterface({ input: createReadStream(input), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const event = JSON.parse(line);
    if (event.action !== "upsert") continue;
    const item = { url: event.url };
    if (event.lastmod) item.lastmod = event.lastmod;
    if (event.changefreq) item.changefreq = event.changefreq;
    if (event.priority !== undefined) item.priority = event.priority;
    if (event.alternates) item.links = event.alternates.map((a) => ({ lang: a.hreflang, url: a.href }));
    if (event.images) item.img = event.images.map((image) => ({ url: image.loc }));
    urls += 1;
    if (!index.write(item)) await new Promise((done) => index.once("drain", done));
  }
  index.end();
  indexFile.on("finish", () => console.log(`${urls} URLs written`));
})();
