"""Admission control (issue 12, F7): an ask that cannot be answered within the deadline is
refused at once with 503 + Retry-After instead of waiting without bound."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from appliance.ask.service import AskService
from appliance.config import ServingConfig
from appliance.serve.admission import AdmissionControl, NotAdmitted, RefusalsFirst, ShedOverload, shedding
from appliance.serve.api import create_app


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_refuses_when_the_predicted_wait_passes_the_deadline():
    clock = Clock()
    gate = AdmissionControl(deadline_s=2.0, max_in_flight=1000, clock=clock, always_admit=4, window_s=5.0)
    for _ in range(50):  # 10 asks a second answered over the last 5 s
        with gate.admit():
            clock.now += 0.1
    assert gate.throughput() == pytest.approx(10.0, rel=0.1)
    held = [gate.admit() for _ in range(21)]
    for h in held:
        h.__enter__()  # 21 in flight: the next would wait 2.1 s
    with pytest.raises(NotAdmitted) as refused:
        gate.admit().__enter__()
    assert refused.value.retry_after_s >= 1 and gate.refused == 1
    for h in held[:16]:
        h.__exit__(None, None, None)
    with gate.admit():  # 5 in flight + 35 answered lately: admitted again
        pass


def test_the_hard_cap_holds_even_when_the_path_is_fast():
    gate = AdmissionControl(deadline_s=10.0, max_in_flight=3, clock=Clock())
    held = [gate.admit() for _ in range(3)]
    for h in held:
        h.__enter__()
    with pytest.raises(NotAdmitted):
        gate.admit().__enter__()


def test_the_api_answers_503_with_retry_after_at_once_instead_of_queueing(config):
    serving = dataclasses.replace(ServingConfig(), max_in_flight=4)
    service = AskService.open(dataclasses.replace(config, serving=serving))
    release = threading.Event()
    real_ask = service.ask

    def slow_ask(text, client=""):  # the encoder is saturated
        release.wait(30)
        return real_ask(text, client)

    service.ask = slow_ask
    app = shedding(create_app(service))

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as client:
            waiting = [asyncio.create_task(client.post("/api/v1/ask", json={"text": f"水的沸点 {i}"}))
                       for i in range(4)]
            await asyncio.sleep(0.5)  # the four are in flight
            extra = await asyncio.wait_for(client.post("/api/v1/ask", json={"text": "光合作用"}), timeout=5)
            release.set()
            return extra, [await t for t in waiting]

    extra, first = asyncio.run(scenario())
    service.close()
    assert extra.status_code == 503 and int(extra.headers["Retry-After"]) >= 1
    assert [r.status_code for r in first] == [200] * 4


def test_a_quiet_spell_does_not_make_a_burst_look_hopeless():
    clock = Clock()
    gate = AdmissionControl(deadline_s=2.0, max_in_flight=1000, clock=clock, always_admit=4, window_s=5.0)
    for _ in range(100):  # busy: 20 a second
        with gate.admit():
            clock.now += 0.05
    clock.now += 10  # quiet: nothing answered in the window
    held = [gate.admit() for _ in range(30)]
    for h in held:
        h.__enter__()  # 30 at once: ~1.5 s at the rate seen lately, within the deadline
    assert gate.refused == 0


def test_before_anything_was_answered_only_the_hard_cap_applies():
    gate = AdmissionControl(deadline_s=1.0, max_in_flight=50, clock=Clock(), always_admit=4)
    held = [gate.admit() for _ in range(50)]
    for h in held:
        h.__enter__()
    with pytest.raises(NotAdmitted):
        gate.admit().__enter__()


class _Recorder:
    """A layer that notes every request passing through it."""

    def __init__(self, app, seen: list):
        self.app, self.seen = app, seen

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.seen.append(scope["path"])
        await self.app(scope, receive, send)


def _saturated_app_with_a_layer(seen: list) -> FastAPI:
    app = FastAPI()
    gate = AdmissionControl(deadline_s=1.0, max_in_flight=1, clock=Clock())
    gate.enter()  # the one place is taken: every JSON ask is refused
    app.state.admission, app.state.on_refused = gate, None
    app.add_middleware(_Recorder, seen=seen)  # as the API's and the pages' layers

    @app.post("/api/v1/ask")
    def ask() -> dict:
        return {}

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    return app


def test_a_refused_ask_passes_none_of_the_apps_own_layers():
    seen: list = []
    with TestClient(shedding(_saturated_app_with_a_layer(seen))) as client:
        refused = client.post("/api/v1/ask", json={"text": "x"})
        other = client.get("/healthz")
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) >= 1
    assert other.status_code == 200
    assert seen == ["/healthz"]


def _asks_at_once(gate: AdmissionControl, n: int, events: list) -> None:
    async def app(scope, receive, send):
        events.append("admitted ask's work")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    shed = ShedOverload(app, admission=gate)
    scope = {"type": "http", "method": "POST", "path": "/api/v1/ask",
             "headers": [(b"content-type", b"application/json")]}

    async def one():
        async def send(message):
            if message["type"] == "http.response.start" and message["status"] == 503:
                events.append("refusal")
        await shed(scope, None, send)

    async def burst():
        await asyncio.gather(*(one() for _ in range(n)))

    asyncio.run(burst())


def test_refusals_read_in_the_same_pass_go_before_the_admitted_asks_work():
    events: list = []
    gate = AdmissionControl(deadline_s=1.0, max_in_flight=2, clock=Clock())
    _asks_at_once(gate, 6, events)  # the first two are admitted, the other four refused
    assert events == ["refusal"] * 4 + ["admitted ask's work"] * 2
    assert gate.in_flight == 0


def test_an_admitted_ask_waits_while_refusals_keep_coming_then_goes():
    async def scenario():
        first = RefusalsFirst(quiet_s=0.05, max_hold_s=5.0)
        first.refused()
        waiter = asyncio.create_task(first.wait_turn())
        for _ in range(6):  # a refusal every 20 ms: never quiet for 50 ms
            await asyncio.sleep(0.02)
            assert not waiter.done()
            first.refused()
        await asyncio.wait_for(waiter, timeout=5)  # quiet after the last one: it goes

    asyncio.run(scenario())


def test_a_long_storm_of_refusals_holds_admitted_asks_only_at_its_start():
    async def scenario():
        first = RefusalsFirst(quiet_s=0.05, max_hold_s=0.1)
        first.refused()
        waiter = asyncio.create_task(first.wait_turn())
        released_during_storm = False
        for _ in range(100):  # refusals every 10 ms for up to a second
            await asyncio.sleep(0.01)
            first.refused()
            if waiter.done():
                released_during_storm = True
                break
        assert released_during_storm
        # the storm goes on, and a new admitted ask is not held at all
        await asyncio.wait_for(first.wait_turn(), timeout=0.04)

    asyncio.run(scenario())


def test_without_refusals_an_admitted_ask_is_not_held():
    async def scenario():
        await asyncio.wait_for(RefusalsFirst(quiet_s=10.0, max_hold_s=10.0).wait_turn(), timeout=1)

    asyncio.run(scenario())


def _collector_on() -> None:
    """Wait (bounded) for a storm of an earlier test, whose loop is gone, to give the
    collector back: its timer does so at most ``max_hold_s`` after it began."""
    import gc
    import time

    deadline = time.monotonic() + 5
    while not gc.isenabled():
        assert time.monotonic() < deadline, "the collector was not turned on again"
        time.sleep(0.01)


def test_the_collector_waits_while_a_storm_holds_admitted_asks_and_runs_again_after():
    import gc

    async def scenario():
        first = RefusalsFirst(quiet_s=0.02, max_hold_s=5.0)
        first.refused()
        assert not gc.isenabled()  # no full pass in the middle of the refusals
        await asyncio.wait_for(first.wait_turn(), timeout=5)  # quiet: the hold ends...
        assert gc.isenabled()  # ...and the collector runs as before

    _collector_on()
    asyncio.run(scenario())


def test_a_sustained_storm_pauses_the_collector_no_longer_than_the_hold():
    import gc

    async def scenario():
        first = RefusalsFirst(quiet_s=0.05, max_hold_s=0.1)
        first.refused()
        for _ in range(100):  # refusals every 10 ms for up to a second
            await asyncio.sleep(0.01)
            first.refused()
            if gc.isenabled():
                return True
        return False

    _collector_on()
    assert asyncio.run(scenario())


def test_the_collector_is_turned_on_again_even_when_the_loop_of_the_storm_is_gone():
    import gc

    async def storm():
        first = RefusalsFirst(quiet_s=10.0, max_hold_s=0.05)
        first.refused()  # the loop ends before the storm is quiet or its hold is over
        return gc.isenabled()

    _collector_on()
    assert asyncio.run(storm()) is False
    _collector_on()  # within the hold, from the timer


def test_a_collector_turned_off_elsewhere_stays_off_after_a_storm():
    import gc

    async def scenario():
        first = RefusalsFirst(quiet_s=0.02, max_hold_s=5.0)
        first.refused()
        await asyncio.wait_for(first.wait_turn(), timeout=5)

    _collector_on()
    gc.disable()
    try:
        asyncio.run(scenario())
        assert not gc.isenabled()
    finally:
        gc.enable()
