"""CSV files changed for a test, written the way upstream writes them (csv.writer, line feeds):
crowd_deliberation's and caption_contest_ratings' bad inputs and fuzzed cells."""

import csv
import io


def csv_variant(change, delimiter=","):
    """A variant of a CSV file's bytes: its rows (the header first) changed in place by `change`."""
    def variant(raw):
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        change(rows)
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
        return out.getvalue().encode("utf-8")

    return variant


def set_cell(line, column, value):
    """A variant of a CSV file with the cell at `line` (1: the header, as error lines count) and
    `column` (a name in the header, or a position) set to `value`. Numbers past the end wrap
    around, so that a fuzzer's any numbers name a cell."""
    def change(rows):
        at = rows[0].index(column) if isinstance(column, str) else column % len(rows[0])
        rows[(line - 1) % len(rows)][at] = value

    return csv_variant(change)


def read_rows(path):
    """The rows of a CSV file, the header first."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))
