"""Refusals at the HTTP protocol, before any ASGI work.

Under a burst of a thousand asks at once, most of a refusal's cost is not the decision
but the ASGI machinery around it: uvicorn builds a request cycle, starts an asyncio task
and passes two messages through the app before the 503 is written. Here, as soon as an
ask's headers are parsed, the connection's protocol asks :meth:`ShedOverload.refusal_bytes`
and, if the ask would be refused, writes the whole 503 itself: no task, no app. An ask
that would be admitted goes on exactly as before (``ShedOverload`` admits it).

The hook is uvicorn's httptools protocol, whose request-start method is not public API;
:func:`shedding_protocol` checks that it is there and otherwise serves uvicorn's own
protocol (the refusals then come from ``ShedOverload`` in the app, as correct, slower).
Figures: docs/BENCHMARKS.md, "Hostile soak (#12)".
"""

from __future__ import annotations

import logging

from appliance.serve.admission import ShedOverload

log = logging.getLogger(__name__)

#: uvicorn's methods the protocol relies on (none of them public API).
HOOKS = ("_start_asgi_task", "_unset_keepalive_if_required", "on_response_complete")


def shedding_protocol(shed: ShedOverload):
    """The value for ``uvicorn.Config(http=...)``: a protocol class that refuses through
    ``shed`` before starting the app, or ``"httptools"`` where that cannot be hooked."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools missing: uvicorn's pure-Python parser, refusals in the app
        log.info("overload refusals come from the app (uvicorn's httptools protocol is not available)")
        return "auto"
    if not all(callable(getattr(HttpToolsProtocol, name, None)) for name in HOOKS):
        log.info("overload refusals come from the app (this uvicorn has no request-start hook)")
        return "httptools"

    class SheddingProtocol(HttpToolsProtocol):
        def _start_asgi_task(self, cycle, app) -> None:
            refusal = shed.refusal_bytes(cycle.scope, keep_alive=cycle.keep_alive)
            if refusal is None:
                # A refusal earlier in the same read armed the keep-alive timer (uvicorn
                # disarms it only when data arrives): this request must not be cut by it.
                self._unset_keepalive_if_required()
                return super()._start_asgi_task(cycle, app)
            cycle.response_complete = True  # the body still to come is read and dropped
            self.transport.write(refusal)
            if not cycle.keep_alive:
                self.transport.close()
            self.on_response_complete()

    return SheddingProtocol
