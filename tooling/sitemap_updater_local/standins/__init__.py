"""Stand-ins on 127.0.0.1 for what the search-engine clients talk to: Google Search Console
(its OAuth token endpoint, the Sitemaps API with the files of a submitted index, and the URL
Inspection API with its per-minute and daily quotas), the Bing Webmaster API (submissions and
what Bing found in each feed), and a small website for the URL health check, on as many
loopback addresses as a test has hosts. Each answers with the JSON the real API documents, can
be told to fail the way the real one does (an error, a quota spent with its ``Retry-After``,
5xx, a dropped connection, an answer that drips in byte by byte), and keeps every request it
got. Google's crawls of each changed page can follow a known distribution (:mod:`.crawls`). The
tests and the demo use them; nothing here reaches beyond the loopback interface."""
