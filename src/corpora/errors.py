class CorporaError(Exception):
    """An error the CLI reports as one line, without a traceback."""


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup in `finally` blocks runs."""
