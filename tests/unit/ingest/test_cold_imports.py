"""The ingest function's cold start imports nothing that only the rebuild uses, and the
observer's imports no engine's client library.

Each handler is imported in a fresh interpreter, as Lambda does, and the modules it loaded are
read from ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: Modules only the rebuild uses: its service, the renderer and frames of the files, the
#: stylesheet and the view, the gzip writer, and the IndexNow client. (Its HTTP stack, the
#: standard library's ``urllib.request``, is imported by botocore for every function.)
REBUILD_ONLY = (
    "sitemap_updater.rebuild",
    "sitemap_updater.page.render",
    "sitemap_updater.protocol.urlset",
    "sitemap_updater.protocol.index",
    "sitemap_updater.protocol.gzipio",
    "sitemap_updater.protocol.stylesheet",
    "sitemap_updater.view",
    "sitemap_updater.indexnow",
)
#: Modules only the observer uses: its run and the search engines' clients.
OBSERVER_ONLY = ("sitemap_updater.observe", "sitemap_updater.engines")


#: What only the clients of the search engines need (google-auth, which signs with cryptography,
#: and the reading of Search Console's answers): the observer loads them when a run makes the
#: client of an engine turned on. (cryptography itself is not checked: here, unlike on Lambda,
#: botocore loads it through pyOpenSSL.)
ENGINE_CLIENTS_ONLY = (
    "google",
    "sitemap_updater.engines.search_console",
    "sitemap_updater.engines.console_answers",
)


def loaded_by(function: str, then: str = "pass", **env: str) -> set[str]:
    """The modules in ``sys.modules`` after ``import app`` of ``functions/<function>`` (and the
    statement ``then``)."""
    code = f"import json, sys; import app; {then}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "functions" / function,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT / "layers" / "shared"),
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_SERVICE_NAME": "sitemap-updater",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(done.stdout))


def rebuild_only(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(REBUILD_ONLY))


def test_the_ingest_handler_imports_nothing_only_the_rebuild_uses() -> None:
    loaded = loaded_by("ingest")
    assert "sitemap_updater.ingest.intake" in loaded
    assert rebuild_only(loaded) == []
    assert sorted(m for m in loaded if m.startswith(OBSERVER_ONLY)) == []


def test_the_rebuild_handler_does_import_them() -> None:
    # the same list, seen from the side that needs it: the test above is not vacuous
    loaded = loaded_by("rebuild")
    assert "sitemap_updater.rebuild.runner" in loaded
    assert "sitemap_updater.protocol.urlset" in loaded


def test_the_rebuild_loads_the_full_rebuild_s_scan_only_for_a_full_run() -> None:
    # a scheduled run is incremental: the parallel Scan, its spools and the identities are
    # imported by the run that rebuilds every shard, not by the cold start
    full_only = ("sitemap_updater.rebuild.steps.full", "sitemap_updater.rebuild.inputs.spools")
    assert not set(full_only) & loaded_by("rebuild")
    assert set(full_only) <= loaded_by("rebuild", then="import sitemap_updater.rebuild.steps.full")


def test_the_rebuild_loads_indexnow_s_sending_side_only_with_a_key() -> None:
    # IndexNow is off without a key (the default): its pending sets and their submission are
    # not imported; the rebuild makes its IndexNow step only when the settings hold a key
    sending = ("sitemap_updater.rebuild.outputs.indexnow", "sitemap_updater.rebuild.steps.indexnow")
    assert not set(sending) & loaded_by("rebuild")
    made = (
        "from sitemap_updater.rebuild import runner as s; from sitemap_updater.sections import "
        "SectionRules; site = 'https://a.example'; s._indexnow(s.RebuildConfig('t', site, 'b', "
        "site, indexnow_key='0' * 32), s.Layout.of(site, SectionRules(), site), None)"
    )
    assert set(sending) <= loaded_by("rebuild", then=made)


def engine_clients_only(modules: set[str]) -> list[str]:
    return sorted(
        m for m in modules if m.split(".")[0] in ENGINE_CLIENTS_ONLY or m in ENGINE_CLIENTS_ONLY
    )


def test_the_observer_imports_no_engine_client_library_until_a_run_makes_a_client() -> None:
    loaded = loaded_by("observe")
    assert "sitemap_updater.observe.observer" in loaded
    assert engine_clients_only(loaded) == []
    # what credentials.engine_clients imports when Search Console is on loads them: the list
    # above names what the observer does load then
    with_client = loaded_by("observe", then="import sitemap_updater.engines.search_console")
    assert {
        "google.auth",
        "sitemap_updater.engines.search_console",
        "sitemap_updater.engines.console_answers",
    } <= set(engine_clients_only(with_client))


@pytest.mark.parametrize("function", ["ingest", "rebuild", "observe"])
def test_with_tracing_off_the_xray_sdk_is_not_imported(function: str) -> None:
    assert not any(
        m.startswith("aws_xray_sdk") for m in loaded_by(function, POWERTOOLS_TRACE_DISABLED="true")
    )
