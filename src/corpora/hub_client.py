"""huggingface_hub's client for push and `diff hf://`, with a time limit (CORPORA_HUB_TIMEOUT): its
own waits forever on a Hub that accepts the connection and never answers."""

from __future__ import annotations

import time
import weakref

from corpora import user_numbers

HUB_TIMEOUT = 60.0  # seconds without a byte, read or written; connecting: at most CONNECT_TIMEOUT of it
CONNECT_TIMEOUT = 10.0
_SILENCES = weakref.WeakSet()  # of the clients made


def hub_timeout() -> float:
    return user_numbers.from_environment("CORPORA_HUB_TIMEOUT", HUB_TIMEOUT, float, 0, above=True)


def use_time_limit() -> None:
    """Make huggingface_hub's shared client give up after `hub_timeout()` seconds of silence: a client
    made now, in this environment (its proxies), for each command, as a process of its own has."""
    connect, seconds = limits()
    from huggingface_hub.utils import _http

    limit = {"connect": connect, "read": seconds, "write": seconds, "pool": seconds}
    if hasattr(_http, "set_client_factory"):  # huggingface_hub >= 1.0: httpx

        def client():
            made = _http.default_client_factory()
            # Its calls pass `timeout=None` (no limit) explicitly, which overrides a client's
            # default: the limits are set on each request, by the transport it goes through.
            # That is `_transport`, or with a proxy from the environment (HTTPS_PROXY, ...) the
            # one mounted for the URL's pattern: all of them, sharing one count of silence.
            silence = _Silence()
            _SILENCES.add(silence)
            made._transport = _TimedTransport(made._transport, limit, silence)
            made._mounts = {pattern: None if mounted is None else _TimedTransport(mounted, limit, silence)
                            for pattern, mounted in made._mounts.items()}
            return made

        _http.set_client_factory(client)
    else:  # huggingface_hub 0.x: requests, which has no default timeout: the adapter sets one

        class TimedAdapter(_http.UniqueRequestIdAdapter):
            def send(self, request, **kwargs):
                if kwargs.get("timeout") is None:
                    kwargs["timeout"] = (limit["connect"], limit["read"])
                return super().send(request, **kwargs)

        def session():
            made = _http._default_backend_factory()
            if not _http.constants.HF_HUB_OFFLINE:
                made.mount("http://", TimedAdapter())
                made.mount("https://", TimedAdapter())
            return made

        _http.configure_http_backend(backend_factory=session)


def new_wait() -> None:
    """Count the silence from nothing again: for a question of its own after a request that timed out."""
    for silence in list(_SILENCES):
        silence.seconds = 0.0


def limits() -> tuple[float, float]:
    """The seconds a Hub request may wait to connect and for an answer."""
    seconds = hub_timeout()
    return min(CONNECT_TIMEOUT, seconds), seconds


class _Silence:
    """The seconds the requests of one client met without an answer since the last one."""

    seconds = 0.0


class _TimedTransport:
    """An httpx transport whose requests share one limit of silence: the limit is the whole wait,
    huggingface_hub's own first requests (1.x: its list of AI agents) included."""

    def __init__(self, transport, limits, silence):
        self._transport, self._limits, self._silence = transport, limits, silence

    def handle_request(self, request):
        given = request.extensions.get("timeout") or {}
        spent = self._silence.seconds
        request.extensions["timeout"] = {
            key: max(min(given.get(key) or value, value) - spent, 0.001) for key, value in self._limits.items()
        }
        started = time.monotonic()
        try:
            response = self._transport.handle_request(request)
        except BaseException:
            self._silence.seconds += time.monotonic() - started
            raise
        self._silence.seconds = 0.0
        return response

    def close(self):
        self._transport.close()

    def __enter__(self):
        self._transport.__enter__()
        return self

    def __exit__(self, *exc):
        self._transport.__exit__(*exc)
