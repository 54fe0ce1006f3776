"""Ingest: change events from SQS into the URL table, exactly once in effect.

Modules: ``contract`` (message body models), ``events`` (body -> normalized events or
rejections), ``ordering`` (ordering key and content digest), ``item_size`` (DynamoDB item
size rules), ``apply`` (conditional writes, shard marks), ``dlq`` (dead-lettering with
reasons), ``service`` (the batch flow).
Import from the modules; this package does not import them eagerly, so that the pure parts
load without the Powertools instances.
"""
