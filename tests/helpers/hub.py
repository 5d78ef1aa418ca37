"""`corpora` against the stand-in Hub of tests/fake_hub.py: the environment of a process of its
own, and the same in this process."""

import signal

import pytest

from .run import corpora_here

TOKEN = "hf_fakeTokenThatMustNeverBePrinted"


def hub_environment(endpoint, home) -> dict[str, str]:
    """Hub access allowed, to the server on 127.0.0.1 only; Xet is off: the server cannot serve it
    (fake_hub.py), so huggingface_hub takes the LFS path."""
    return dict(HF_ENDPOINT=endpoint, HF_TOKEN=TOKEN, HF_HUB_OFFLINE="0", HF_HOME=str(home), HF_HUB_DISABLE_XET="1")


def corpora_at(endpoint, *args, home, **env):
    """`corpora ARGS` in this process, with the Hub at `endpoint` and the environment `env`, as a
    process of its own would run it: huggingface_hub's client made in that environment (its
    proxies), its first request (its list of AI agents) made again, and a command that never ends
    stopped after HANG_LIMIT seconds with a TimeoutError (the test fails, the leg goes on)."""
    from huggingface_hub import constants
    from huggingface_hub import file_download
    from huggingface_hub.utils import _http

    try:
        from huggingface_hub.utils import _detect_agent
    except ImportError:  # huggingface_hub 0.x asks for no list
        _detect_agent = None
    template = endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    with pytest.MonkeyPatch.context() as patch:
        for module, name, value in (
            (constants, "ENDPOINT", endpoint), (constants, "HF_HUB_OFFLINE", False),
            (constants, "HF_HUB_DISABLE_XET", True),  # none in 0.x
            (constants, "HUGGINGFACE_CO_URL_TEMPLATE", template), (file_download, "HUGGINGFACE_CO_URL_TEMPLATE", template),
            (constants, "HF_HUB_CACHE", str(home / "hub")),  # its own cache: the commits' ids recur
            (constants, "AGENT_HARNESSES_PATH", str(home / "agent_harnesses.json")), (_detect_agent, "_registry", None),
        ):
            if module is not None:
                patch.setattr(module, name, value, raising=False)  # file_download's copy: 0.x only
        for variable, value in {"HF_TOKEN": TOKEN, **env}.items():
            patch.setenv(variable, value)
        previous = signal.signal(signal.SIGALRM, _hung)
        signal.setitimer(signal.ITIMER_REAL, HANG_LIMIT)
        try:
            return corpora_here(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if hasattr(_http, "set_client_factory"):  # huggingface_hub's own client again, for the tests that use it
                _http.set_client_factory(_http.default_client_factory)
            else:
                _http.configure_http_backend()


HANG_LIMIT = 120  # seconds


def _hung(signum, frame):
    raise TimeoutError(f"the command did not end within {HANG_LIMIT} s: its time limit failed")
