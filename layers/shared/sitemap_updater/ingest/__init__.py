"""Ingest: change events from SQS into the URL table, exactly once in effect.

Modules: ``shapes`` (the three shapes of a body), ``contract`` (the body models, the careful
path and the JSON Schema), ``events`` (the judge: body -> normalized events or rejections),
``fast`` (its fast path for values already in normalized form), ``judged`` (what judging
gives), ``ordering`` (ordering key and content digest), ``item_size`` (DynamoDB item size
rules), ``apply`` (the conditional write), ``dlq`` (dead-lettering with reasons), ``service``
(the batch flow).
Import from the modules; this package does not import them eagerly, so that the pure parts
load without the Powertools instances.
"""
