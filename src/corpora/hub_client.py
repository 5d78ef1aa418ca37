"""The Hub client of `push` and `diff hf://`: huggingface_hub's own, with a time limit.

huggingface_hub's HTTP client waits without limit by default (httpx with `timeout=None` from 1.0
on; requests without a timeout in 0.x): a Hub that accepts the connection and never answers
would hold a push or a diff forever. Here a command gives up after `HUB_TIMEOUT` seconds
without an answer from the Hub (`CORPORA_HUB_TIMEOUT` sets it), counted across its requests,
and says so in one line.
"""

from __future__ import annotations

import math
import os
import time

from corpora.errors import CorporaError

HUB_TIMEOUT = 60.0  # seconds without a byte, read or written; connecting: at most 10 s of it
_SET = []


def hub_timeout() -> float:
    text = os.environ.get("CORPORA_HUB_TIMEOUT", "")
    if not text:
        return HUB_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise CorporaError(f"CORPORA_HUB_TIMEOUT={text!r}: expected a positive number")
    return value


def use_time_limit() -> None:
    """Make huggingface_hub's shared client give up after `hub_timeout()` seconds of silence."""
    seconds = hub_timeout()
    if _SET == [seconds]:
        return
    from huggingface_hub.utils import _http

    limits = {"connect": min(10.0, seconds), "read": seconds, "write": seconds, "pool": seconds}
    if hasattr(_http, "set_client_factory"):  # huggingface_hub >= 1.0: httpx

        def client():
            made = _http.default_client_factory()
            # Its calls pass `timeout=None` (no limit) explicitly, which overrides a client's
            # default: the limits are set on each request, by the transport it goes through.
            made._transport = _TimedTransport(made._transport, limits)
            return made

        _http.set_client_factory(client)
    else:  # huggingface_hub 0.x: requests, which has no default timeout: the adapter sets one

        class TimedAdapter(_http.UniqueRequestIdAdapter):
            def send(self, request, **kwargs):
                if kwargs.get("timeout") is None:
                    kwargs["timeout"] = (limits["connect"], limits["read"])
                return super().send(request, **kwargs)

        def session():
            made = _http._default_backend_factory()
            if not _http.constants.HF_HUB_OFFLINE:
                made.mount("http://", TimedAdapter())
                made.mount("https://", TimedAdapter())
            return made

        _http.configure_http_backend(backend_factory=session)
    _SET[:] = [seconds]


class _TimedTransport:
    """An httpx transport that holds every request to the `limits` (or to the request's own, if
    shorter), less the silence the requests before it met: a request that fails spends its wait
    from the limit of the next ones until the Hub answers. So the limit is the whole wait, also
    when huggingface_hub first asks the Hub for something of its own (1.x and later, once a day:
    its list of AI agents, with a timeout of 3 s), which would otherwise add to it."""

    def __init__(self, transport, limits):
        self._transport, self._limits, self._silent = transport, limits, 0.0

    def handle_request(self, request):
        given = request.extensions.get("timeout") or {}
        request.extensions["timeout"] = {
            key: max(min(given.get(key) or value, value) - self._silent, 0.001) for key, value in self._limits.items()
        }
        started = time.monotonic()
        try:
            response = self._transport.handle_request(request)
        except BaseException:
            self._silent += time.monotonic() - started
            raise
        self._silent = 0.0
        return response

    def close(self):
        self._transport.close()

    def __enter__(self):
        self._transport.__enter__()
        return self

    def __exit__(self, *exc):
        self._transport.__exit__(*exc)
