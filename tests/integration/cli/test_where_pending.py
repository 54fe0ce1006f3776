"""``sitemap-updater where`` on a stack whose full rebuild ran out of time: a URL its pending
leaf holds back is not yet rebuilt, and one published before is still listed. (A deployment of
its own: the one of ``test_where.py`` lives for its whole module.)"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment, SimulatedClock
from tests.integration.cli.test_where import SITE, Stack, _now, _upsert


def test_a_url_in_a_pending_leaf_is_not_yet_rebuilt(capsys: pytest.CaptureFixture[str]) -> None:
    clock = SimulatedClock(datetime.fromtimestamp(time.time() - 3600, UTC))
    with LocalDeployment(DEFAULT_TEMPLATE, SITE, clock=clock) as dep:
        dep.send([json.dumps(_upsert(f"{SITE}/page/{i}", _now(clock))) for i in range(3)])
        dep.drain()
        dep.rebuild_until_clean()
        clock.advance(600)
        dep.send([json.dumps(_upsert(f"{SITE}/page/late", _now(clock)))])
        dep.drain()
        # a full rebuild that runs out of time at once leaves every leaf pending
        assert dep.rebuild(full=True, remaining_ms=30_000)["complete"] is False
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            stack = Stack(dep, clock, f"http://{host}:{port}", dep.register_stack())
            late = stack.found(capsys, f"{SITE}/page/late")
            early = stack.found(capsys, f"{SITE}/page/0")
        finally:
            server.stop()
    assert late["rebuild"]["leaf_pending"] and not late["listed"]
    assert late["reasons"][0]["code"] == "not-yet-rebuilt"
    assert "pending leaf" in late["reasons"][0]["text"]
    assert early["listed"] and early["file"] == late["file"]
