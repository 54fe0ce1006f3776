"""Stand-ins on 127.0.0.1 for what the search-engine clients talk to: Google Search Console
(its OAuth token endpoint, the Sitemaps API and the URL Inspection API), the Bing Webmaster API,
and a small website for the URL health check. Each answers with the JSON the real API documents,
can be told to fail the way the real one does (an error, quota spent, 5xx, a dropped connection,
an answer that drips in byte by byte), and keeps every request it got. The tests and the demo
use them; nothing here reaches beyond the loopback interface."""
