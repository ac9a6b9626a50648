"""The daemon's HTTP stack: uvicorn with httptools and uvloop (installed with the product,
picked by uvicorn's "auto"); the pure-Python parser took 4-5 times longer to refuse a
burst of 1,000 connections (docs/BENCHMARKS.md)."""

from __future__ import annotations

import uvicorn


async def _app(scope, receive, send):  # pragma: no cover - never called
    raise AssertionError


def test_uvicorn_picks_the_c_parser_and_uvloop():
    config = uvicorn.Config(_app)
    config.load()
    assert config.http_protocol_class.__name__ == "HttpToolsProtocol"
    import uvloop

    loop = config.get_loop_factory()()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
