"""Photo retention while the daemon runs (issue 12): pruning repeats at least daily, driven
by an injected wait and clock (nothing sleeps)."""

from __future__ import annotations

import os

from appliance.asklog.photo_archive import DAY_S, PhotoArchive
from appliance.common.periodic import PeriodicTask


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_photos_past_retention_go_while_running(tmp_path):
    clock = Clock(1_000_000.0)
    archive = PhotoArchive(tmp_path / "photos", retention_days=2, clock=clock)
    sha = archive.save(b"\x89PNG fake photo")
    os.utime(archive.find(sha), (clock.now, clock.now))
    waits = []

    def wait(seconds):  # stands in for the stop event's wait: time passes, no sleep
        waits.append(seconds)
        clock.now += seconds
        return len(waits) > 12

    task = PeriodicTask("photo-retention", 6 * 3600, archive.prune, wait=wait)
    task.start()
    task._thread.join(10)
    assert archive.find(sha) is None
    assert task.runs == 12 and max(waits) <= DAY_S


def test_a_failing_run_does_not_stop_the_timer():
    calls = []

    def job():
        calls.append(1)
        raise OSError("disk gone")

    waits = iter([False, False, False, True])
    task = PeriodicTask("t", 60, job, wait=lambda s: next(waits))
    task.start()
    task._thread.join(10)
    assert len(calls) == 3 and task.runs == 3


def test_the_api_app_prunes_while_it_runs(config):
    from fastapi.testclient import TestClient

    from appliance.ask.service import AskService
    from appliance.serve.api import create_app

    app = create_app(AskService.open(config), close_service_on_shutdown=True)
    with TestClient(app):
        pruner = app.state.pruner
        assert pruner.interval_s <= DAY_S and pruner._thread.is_alive()
    assert not pruner._thread.is_alive()
