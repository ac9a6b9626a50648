"""The daemon prepares the photo reader at start (a fresh install builds and gates its INT8
detector then, not while the first class waits); a failure there is logged, not fatal."""

from __future__ import annotations

import logging

import pytest

from appliance.ask.service import AskService


@pytest.fixture
def service(config):
    svc = AskService.open(config)
    yield svc
    svc.close()


def test_the_reader_is_opened_once_at_start_and_reused(service):
    class Reader:
        def close(self) -> None:
            pass

    opened = []
    reader = Reader()
    service.open_ocr = lambda: opened.append(1) or reader
    service.prepare_photos()
    service.prepare_photos()
    assert opened == [1] and service.ocr is reader


def test_a_reader_that_cannot_open_is_logged_and_tried_again_at_the_first_photo(service, caplog):
    def broken():
        raise RuntimeError("models missing")

    service.open_ocr = broken
    with caplog.at_level(logging.WARNING):
        service.prepare_photos()
    assert "could not be prepared" in caplog.text and "models missing" in caplog.text
    assert service.ocr is None
