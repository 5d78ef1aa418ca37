"""What the test files share: the collection and the example corpus (collection.py), the two
ways to run a command (run.py: `corpora_here` in this process, `run_process` as a process), CSV
files changed for a test (csv_files.py), and what each corpus's own tests declare for the generic
ones (declared.py). Fixtures are in tests/conftest.py; a test file imports no other test file."""

from .collection import *  # noqa: F403
from .csv_files import *  # noqa: F403
from .declared import *  # noqa: F403
from .run import *  # noqa: F403
