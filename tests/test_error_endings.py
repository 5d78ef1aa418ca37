"""The one map from an exception to the command's line and exit status (errors.ENDINGS), and the
words a failed call to the Hub or a failed download is said in: each kind of error, raised as
the command sees it (from a cause, while handling another, inside datasets' errors)."""

import socket

import pytest

from corpora import errors
from corpora import hub_client  # noqa: F401  (makes every Hub request; errors reads its time limit from it)
from corpora import signals


def raised(error, during=None, cause=None):
    """`error` as raised: while handling `during` (its __context__), from `cause` (its __cause__)."""
    try:
        try:
            raise during or cause or ValueError("unused")
        except BaseException as first:
            raise error from (first if cause is not None else None)
    except BaseException as caught:
        if during is None:
            caught.__context__ = None
        return caught


@pytest.mark.parametrize("error, line, status", [
    (KeyboardInterrupt(), "interrupted", 130),
    (signals.Terminated(), "terminated", 143),
    # a stop some code turned into an error of its own while the stack unwound is still the stop
    (raised(TimeoutError("pool closed"), during=KeyboardInterrupt()), "interrupted", 130),
    (raised(signals.Terminated(), during=KeyboardInterrupt()), "terminated", 143),  # the latest stop
    (BrokenPipeError(32, "Broken pipe"), None, 141),
    (FileNotFoundError(2, "No such file or directory", "data/x.jsonl"), "error: data/x.jsonl: No such file or directory", 1),
    (OSError("Not enough disk space"), "error: Not enough disk space", 1),
    (errors.CorporaError("give at least one corpus name,\n  or --all"), "error: give at least one corpus name, or --all", 1),
    (ValueError("data/x.jsonl, line 1: bad"), "error: data/x.jsonl, line 1: bad", 1),
    # the message of the error raised, not of its cause
    (raised(errors.CorporaError("the line"), cause=FileNotFoundError(2, "gone", "f")), "error: the line", 1),
    (KeyError("x"), "error: KeyError: 'x' (--debug shows the traceback)", 1),
    # fsspec's time-out of a stalled download says nothing: the kind is said
    (TimeoutError(), "error: no answer within the HTTP client's time limit: a server stalled; try again later", 1),
])
def test_each_kind_of_ending_has_its_line_and_status(error, line, status):
    assert errors.ending(error) == errors.Ending(line, status)
    if status == 1:
        assert errors.ending(error, error_status=2) == errors.Ending(line, 2)  # corpora diff's
        assert errors.one_line(error) == line.removeprefix("error: ")


def test_what_is_not_the_commands_to_say_goes_on():
    assert errors.ending(SystemExit(2)) is None
    assert errors.ending(GeneratorExit()) is None


def test_the_loader_error_inside_a_datasets_generation_error_is_the_one_said():
    from datasets.exceptions import DatasetGenerationError

    wrapped = raised(DatasetGenerationError("An error occurred while generating the dataset"),
                     cause=ValueError("data/x.jsonl, line 3: field 'score': bad"))
    assert errors.ending(wrapped) == errors.Ending("error: data/x.jsonl, line 3: field 'score': bad", 1)
    alone = DatasetGenerationError("An error occurred while generating the dataset")  # no loader error in it
    assert errors.ending(alone) == errors.Ending(
        "error: DatasetGenerationError: An error occurred while generating the dataset (--debug shows the traceback)", 1)


def test_the_loader_error_is_found_along_the_chain_through_nested_generation_errors():
    from datasets.exceptions import DatasetGenerationError

    loader = ValueError("data/x.jsonl, line 3: bad")
    inner = raised(DatasetGenerationError("inner"), cause=loader)
    assert errors.loader_error(raised(DatasetGenerationError("outer"), cause=inner)) is loader
    sent = DatasetGenerationError("from a worker")  # as a worker's arrives: its cause in `loader_error`
    sent.loader_error = loader
    sent.__cause__ = RuntimeError("RemoteTraceback stand-in")
    assert errors.loader_error(sent) is loader
    plain = ValueError("not datasets'")
    assert errors.loader_error(plain) is plain


def test_an_unexpected_error_is_typed_on_one_line_for_the_command_and_the_checks():
    assert errors.typed(RuntimeError("a\n  b")) == "RuntimeError: a b"
    assert errors.ending(RuntimeError("a\n  b")).line == "error: RuntimeError: a b (--debug shows the traceback)"


def test_a_library_class_is_matched_once_its_module_is_imported():
    kind = errors.Kind(("corpora_no_such_module.Error",), lambda error: "never")
    assert errors.find(ValueError(), [kind]) is None


@pytest.mark.parametrize("error, said", [
    (raised(RuntimeError("wrapped"), cause=TimeoutError("timed out")), "no answer within 60 s (CORPORA_HUB_TIMEOUT)"),
    (ConnectionRefusedError(111, "Connection refused"), "no connection ([Errno 111] Connection refused): no network, "
                                                        "or the host cannot be reached"),
    (socket.gaierror(-2, "Name or service not known"), "no connection ([Errno -2] Name or service not known): no "
                                                       "network, or the host cannot be reached"),
    # An unforeseen failure keeps its type: a bare "'url'" (KeyError) said nothing.
    (RuntimeError("something\n else"), "RuntimeError: something else"), (KeyError("url"), "KeyError: 'url'"),
])
def test_describe_failure_says_why_a_call_to_the_hub_failed(error, said):
    assert errors.describe_failure(error) == said


def download_failure(error):
    import requests

    wrapped = raised(requests.exceptions.ConnectionError("wrapped"), during=error)
    return errors.describe_failure(wrapped, errors.DOWNLOAD_FAILURES), errors.find(wrapped, errors.DOWNLOAD_FAILURES)[1].heals


def test_a_failed_download_is_said_by_the_exceptions_of_its_chain_not_their_text():
    import http.client

    assert download_failure(ConnectionRefusedError(111, "x")) == (
        "no connection (connection refused): no network, or the host cannot be reached", False)
    assert download_failure(socket.gaierror(-2, "x")) == (
        "no connection (the host name does not resolve): no network, or the host cannot be reached", False)
    assert download_failure(OSError("x")) == ("no connection: no network, or the host cannot be reached", False)
    assert download_failure(ConnectionResetError(104, "x")) == ("the connection was reset", True)
    # older aiohttp's ClientOSError: an OSError of ECONNRESET, not a ConnectionResetError
    assert download_failure(OSError(104, "x")) == ("the connection was reset", True)
    assert download_failure(http.client.RemoteDisconnected("x")) == (
        "the server closed the connection without an answer", True)


def test_the_phrases_of_a_failed_call_are_shared_by_the_hub_and_downloads():
    assert errors.server_answered(404, "Not Found") == "the server answered HTTP 404 Not Found"
    assert errors.server_answered(500, None, " a\n b ") == "the server answered HTTP 500 (a b)"
    assert errors.no_connection_within(2.5) == "no connection within 2.5 s"
    assert errors.no_answer_within(30.0) == "no answer within 30 s"


def test_describe_failure_knows_offline_mode_before_its_class_s_connection_error():
    from huggingface_hub.errors import OfflineModeIsEnabled

    assert errors.describe_failure(OfflineModeIsEnabled("offline")) == (
        "offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1)")


@pytest.mark.parametrize("error, named", [
    (raised(ValueError("I/O operation on closed file"), during=OSError(28, "No space left on device")),
     OSError(28, "No space left on device", "OUT/NAME")),
    (OSError(122, "Disk quota exceeded", "OUT/NAME/x.parquet"), OSError(122, "Disk quota exceeded", "OUT/NAME/x.parquet")),
    (OSError("Not enough disk space. Needed: 1 GB"), OSError(28, "No space left on device", "OUT/NAME")),
])
def test_a_full_disk_anywhere_in_the_chain_is_named(error, named):
    full = errors.full_disk(error, "OUT/NAME")
    assert (full.errno, full.strerror, full.filename) == (named.errno, named.strerror, named.filename)
    assert errors.full_disk(ValueError("bad"), "OUT/NAME") is None
