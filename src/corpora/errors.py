class CorporaError(Exception):
    """An error the CLI reports as one line, without a traceback."""
