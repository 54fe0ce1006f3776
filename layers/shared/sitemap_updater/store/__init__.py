"""The DynamoDB data model shared by ingest and rebuild (docs/architecture.md)."""
