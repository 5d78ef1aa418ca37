"""A copy of the crowd_deliberation release at its official sizes, from the dummy data
(tests/test_crowd_deliberation.py declares it as FULL_SIZE)."""

import csv
import io

from corpora import registry

DATA, LABELS, DELIBERATIONS = "data.csv", "labels.csv", "deliberations.csv"


def csv_variant(change, delimiter=","):
    """A variant of a CSV file: its rows changed by `change`, written the way upstream writes."""
    def variant(raw):
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        change(rows)
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
        return out.getvalue().encode("utf-8")

    return variant


def cell(line, column, value):
    def change(rows):
        rows[line - 1][rows[0].index(column)] = value

    return change


def set_cell(line, column, value):
    """A variant of a CSV file with one cell (line, column name) set to `value`."""
    return csv_variant(cell(line, column, value))


def read_rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def write_full_size(folder):
    """The dummy records repeated, with fresh ids, to the official 80 / 4,165 / 418 records."""
    dummy = registry.get("crowd_deliberation").dummy_dir
    texts, labels, deliberations = (read_rows(dummy / path) for path in (DATA, LABELS, DELIBERATIONS))
    # 80 texts: copies of the dummy texts, so the evidence offsets still hold
    text_rows, copies = [texts[0]], {}
    for index in range(80):
        row = list(texts[1 + index % 5])
        copies.setdefault(row[1], []).append(str(20000 + index))
        row[1] = str(20000 + index)
        text_rows.append(row)
    label_header = labels[0]
    column = {name: i for i, name in enumerate(label_header)}
    template = {row[column["LABEL_ID"]]: row for row in labels[1:]}
    label_rows, deliberation_rows, next_label = [label_header], [deliberations[0]], 100000
    member_label = [deliberations[0].index(f"MEMBER_{n}_LABEL_ID") for n in (1, 2, 3)]
    for index in range(418):
        row = list(deliberations[1 + index % 3])
        row[0] = str(1000 + index)
        row[1] = copies[row[1]][index % len(copies[row[1]])]
        for position in member_label:
            label = list(template[row[position]])
            label[column["LABEL_ID"]] = row[position] = str(next_label)
            label[column["DATA_ID"]], label[column["DELIBERATION_ID"]] = row[1], row[0]
            label_rows.append(label)
            next_label += 1
        deliberation_rows.append(row)
    undiscussed = [row for row in labels[1:] if row[column["DELIBERATION_ID"]] == ""]
    while len(label_rows) < 4166:
        label = list(undiscussed[len(label_rows) % len(undiscussed)])
        label[column["LABEL_ID"]] = str(next_label)
        if label[column["DATA_ID"]] in copies:
            label[column["DATA_ID"]] = copies[label[column["DATA_ID"]]][0]
        label_rows.append(label)
        next_label += 1
    for path, rows in ((DATA, text_rows), (LABELS, label_rows), (DELIBERATIONS, deliberation_rows)):
        with open(folder / path, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    return folder
