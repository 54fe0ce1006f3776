"""The system on an embedded AWS (moto), provisioned from template.yaml, run in-process.

```python
with LocalDeployment(template="template.yaml", site_url="https://www.example.com",
                     parameters={"MaxUrlsPerSitemap": "40000"}, faults=None) as dep:
    dep.send(bodies)                  # raw SQS bodies, as is, in batches of 10
    dep.drain()                       # the SQS event source mapping, until the queue is empty
    dep.rebuild()                     # one scheduled rebuild invocation -> its report
    dep.rebuild_until_clean()         # until a run reports complete
    dep.download("sitemap-out")       # the bucket's objects under their keys
```

``LocalDeployment(..., clock=SimulatedClock(start))`` gives both functions that clock instead of the
system's: the handlers' module-level ``clock`` is the hook (``clock.advance(300)`` between waves).

Not shipped to Lambda: this is development and demonstration tooling. ``local`` is the
deployment, ``stack`` makes template.yaml's resources, ``runtime`` loads and invokes the
functions, ``event_source`` is the SQS event source mapping, ``messages`` the queues' messages,
``clock`` the simulated time, ``faults`` the injected faults (``simulate --faults``),
``indexnow_endpoint`` a local IndexNow endpoint, ``observed`` a deployment observed on the
loopback stand-ins, ``schedules`` the template's schedules and ``served`` the deployment kept
running on moto's server (``sitemap-updater local``). moto runs as shipped: nothing here changes
its code.

moto's table stream differs from AWS: a table has one open stream shard, which moto never closes,
splits or trims, and an UpdateItem that creates an item gives two stream records (AWS gives one).
"""

from sitemap_updater_local.deployment.clock import SimulatedClock
from sitemap_updater_local.deployment.event_source import DrainReport, EventSourceMapping
from sitemap_updater_local.deployment.local import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.messages import DeadLetter, RefusedBody
from sitemap_updater_local.deployment.runtime import LambdaContext, emf_metrics

__all__ = [
    "DEFAULT_TEMPLATE",
    "DeadLetter",
    "DrainReport",
    "EventSourceMapping",
    "LambdaContext",
    "LocalDeployment",
    "RefusedBody",
    "SimulatedClock",
    "emf_metrics",
]
