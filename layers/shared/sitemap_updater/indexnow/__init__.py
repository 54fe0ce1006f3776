"""IndexNow, in one place: the protocol (``protocol``: the key rule, the request, one POST and
what its answer means), the durable set of URLs waiting for it (``pending``) and the rebuild's step
that feeds and sends that set after a publish (``step``).

``protocol`` needs only the standard library, so that ``config`` (which both functions import)
checks the key without loading the rest; ``pending`` and ``step`` sit above the rebuild's
outputs and run state, and only the rebuild (and ``status``, which reads the pending set) imports
them. This package imports none of its modules eagerly.
"""
