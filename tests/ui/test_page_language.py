"""The pages' language over HTTP: <html lang> and the script that makes Gradio's own
words follow the page (not the browser), for the student, teacher and status pages."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.ui.conftest import PASSWORD, TEACHER
from ui.page_language import localise


def html_lang(page: str) -> str:
    return re.search(r"<html\b[^>]*\blang=\"([^\"]+)\"", page).group(1)


def test_localise_sets_lang_and_puts_the_script_before_gradios():
    page = '<!doctype html>\n<html\n\tlang="en"\n\tstyle="margin: 0"\n>\n<head>\n<script type="module" src="x.js"></script>'
    zh = localise(page, "zh")
    assert html_lang(zh) == "zh-CN" and 'style="margin: 0"' in zh
    assert zh.index('const lang = "zh-CN"') < zh.index('src="x.js"')
    assert html_lang(localise(page, "en")) == "en"
    assert html_lang(localise("<html><head></head></html>", "zh")) == "zh-CN"  # no lang attribute yet
    assert localise("not a page", "zh") == "not a page"


@pytest.fixture
def http(live_server):
    with httpx.Client(base_url=live_server.url, timeout=60, headers={"Accept-Encoding": "gzip"}) as client:
        yield client


@pytest.mark.parametrize("path", ["/", "/teacher/", "/status/"])
def test_every_page_says_its_language(http, path):
    if path != "/":
        assert http.post("/teacher/login", data={"username": TEACHER, "password": PASSWORD}).status_code == 303
    default = http.get(path)
    assert default.status_code == 200 and "gradio_config" in default.text
    assert html_lang(default.text) == "zh-CN" and 'const lang = "zh-CN"' in default.text
    english = http.get(path, params={"lang": "en"})
    assert html_lang(english.text) == "en" and 'const lang = "en"' in english.text
    assert int(english.headers["content-length"]) == len(english.content)


def test_other_responses_are_left_alone(http):
    assert http.get("/healthz").json() == {"status": "alive"}
    config = http.get("/config")
    assert config.status_code == 200 and "const lang" not in config.text
