"""Ingest: change events from SQS into the URL table, exactly once in effect."""

from sitemap_updater.ingest.apply import Outcome
from sitemap_updater.ingest.events import ChangeEvent, DecodedBody, Rejection, decode_body
from sitemap_updater.ingest.service import IngestService, process_batch

__all__ = [
    "ChangeEvent",
    "DecodedBody",
    "IngestService",
    "Outcome",
    "Rejection",
    "decode_body",
    "process_batch",
]
