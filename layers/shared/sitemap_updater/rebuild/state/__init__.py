"""The rebuild's own items in the state table, one store a module: the shard map and node states
(``nodes``), the publish record (``published``), the retire ledger (``retire``), the lease
(``lease``) and the change feed's checkpoint (``checkpoint``)."""
