"""Send page changes through the producer client: checked at once, packed, retried."""

import os

from sitemap_updater.producer.checks import ChangeRejected, SendFailed
from sitemap_updater.producer.client import ChangeSender

QUEUE_URL = os.environ["QUEUE_URL"]  # the stack output QueueUrl
SITE_URL = "https://www.example.com"  # the stack's SiteUrl parameter

try:
    with ChangeSender(QUEUE_URL, site=SITE_URL, background_flush=True) as changes:
        changes.upsert("https://www.example.com/shoes/42", lastmod="2026-11-20", priority=0.8)
        changes.delete("https://www.example.com/shoes/41")
        for i in range(1000):
            changes.add({"action": "upsert", "url": f"https://www.example.com/p/{i}"})
        try:
            changes.upsert("https://www.example.com/shoes/43", priority="high")
        except ChangeRejected as rejected:  # never buffered: the rest is unaffected
            print(f"not sent: {rejected}")
except SendFailed as failed:  # SQS did not take these, even after the retries
    print(f"{failed}; keep them and send them again: {failed.changes[:3]} ...")
    raise
