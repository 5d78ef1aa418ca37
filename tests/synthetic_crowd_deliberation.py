"""A copy of the crowd_deliberation release at its official sizes, from the dummy data
(tests/test_crowd_deliberation.py declares it as FULL_SIZE)."""

import csv

from corpora import registry
from helpers import read_rows

DATA, LABELS, DELIBERATIONS = "data.csv", "labels.csv", "deliberations.csv"


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
