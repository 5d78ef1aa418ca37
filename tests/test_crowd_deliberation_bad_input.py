"""crowd_deliberation's bad input: what `corpora build crowd_deliberation` prints for each
malformed file (helpers.BadInput rows; tests/test_bad_input.py runs them and writes
docs/bad_input.md). Its own file beside tests/test_crowd_deliberation.py, which declares it."""

from helpers import BadInput
from helpers import csv_variant
from helpers import set_cell

DATA, LABELS, DELIBERATIONS = "data.csv", "labels.csv", "deliberations.csv"
D, L, T = (DELIBERATIONS, None), (LABELS, "labels"), (DATA, "texts")  # a file and the config that reads it
EXPECTATION = "QUESTION_DO_YOU_THINK_OTHER_PEOPLE_MIGHT_CHOOSE_A_DIFFERENT_ANSWER_THAN_YOU_DID"
WHY = "QUESTION_WHY_DO_YOU_THINK_OTHER_PEOPLE_MIGHT_CHOOSE_A_DIFFERENT_ANSWER"
DOUBT = "QUESTION_DID_SOMEBODY_MAKE_YOU_DOUBT_YOUR_ORIGINAL_ANSWER_WHY_OR_WHY_NOT"
PROCESS = "QUESTION_DESCRIBE_HOW_YOU_FEEL_ABOUT_THE_DELIBERATION_PROCESS"
RESOLVED = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_BE_RESOLVED"
UNRESOLVED = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_NOT_BE_FULLY_RESOLVED"
AGREE, HALF, DISAGREE = (f"I expect {who} to {what} with me." for who, what in (
    ("most people", "agree"), ("only about half of the people", "agree"), ("most people", "disagree")))
SARCASM = "'sarcastic' or 'not_sarcastic'"
RELATION = "'relation_expressed' or 'relation_not_expressed'"
CONFIDENCE = "'0' or '0.5' or '1'"
ID = "a non-negative integer below 2**31"


def swap(rows):
    for row in rows:
        row[3], row[4] = row[4], row[3]


def bad_cell(path, config, line, column, value, expected, case=None):
    """A cell of `path` set to `value`, refused with `expected`."""
    return BadInput(path, case or f"{column} = {value!r}", set_cell(line, column, value),
                    f"{path}, line {line}: field {column!r}: invalid value {value!r} (expected {expected})", config)


def bad_json(path, config, line, column, value, problem, case):
    """A JSON cell of `path` set to `value`, refused with `problem` (after the field's name)."""
    return BadInput(path, case, set_cell(line, column, value), f"{path}, line {line}: field {column!r}{problem}", config)


CHAT = '[{"content": "hi", "user_pseudonym": "Marvelous Murdock", "user_id": 389}'
BAD_INPUT = [
    # deliberations.csv, read by the default config
    BadInput(DELIBERATIONS, "truncated file", lambda raw: raw[: len(raw) - 400],
             "deliberations.csv, line 4: 133 cells, expected 386 (the header's columns)"),
    BadInput(DELIBERATIONS, "wrong encoding (Latin-1)",
             lambda raw: raw.replace(b"Authentic Austin", "Authentic Aust\u00edn".encode("latin-1")),
             "deliberations.csv, line 2: not UTF-8 (byte 0xed at offset 1038 of the line: invalid continuation byte)"),
    BadInput(DELIBERATIONS, "wrong delimiter (semicolons)", csv_variant(lambda rows: None, delimiter=";"),
             "deliberations.csv: unexpected header (not comma-separated?): 1 columns, expected 386; missing "
             "['DELIBERATION_ID', 'DATA_ID', 'STUDY_PART', 'WAS_RESOLVED', 'NUM_DISSENTING_OPINIONS_DISCUSSED', ... "
             "(386 in all)], unexpected ['DELIBERATION_ID;DATA_ID;STUDY_PART;WAS_RESOLVED;NUM_DISSENTING_OPINIONS_DISC... (15944 characters)]"),
    BadInput(DELIBERATIONS, "missing column", csv_variant(lambda rows: [row.pop(3) for row in rows]),
             "deliberations.csv: unexpected header: 385 columns, expected 386; missing ['WAS_RESOLVED'], unexpected []"),
    BadInput(DELIBERATIONS, "extra column",
             csv_variant(lambda rows: [row.append("DATASET" if i == 0 else "x") for i, row in enumerate(rows)]),
             "deliberations.csv: unexpected header: 387 columns, expected 386; missing [], unexpected ['DATASET']"),
    BadInput(DELIBERATIONS, "empty file", lambda raw: b"", "deliberations.csv: is empty (expected a CSV header and records)"),
    bad_cell(*D, 3, "MEMBER_2_ORIGINAL_LABEL", "not_expressed", f"{SARCASM} or {RELATION}", "unknown label"),
    bad_cell(*D, 2, "MEMBER_1_RECONSIDER_ORDER", "4", "1 or 2 or 3 or empty", "out-of-range number"),
    bad_json(*D, 2, "MESSAGES", CHAT, f": invalid JSON (Expecting ',' delimiter: line 1 column 74 (char 73)): {CHAT!r}", "malformed JSON in a cell"),
    bad_cell(*D, 2, "MEMBER_1_ORIGINAL_CONFIDENCE", "0.75", CONFIDENCE, "confidence outside {0, 0.5, 1}"),
    bad_cell(*D, 4, "MEMBER_3_LABEL_ID", "9999", "a LABEL_ID of labels.csv", "member LABEL_ID not in labels.csv"),
    bad_json(*D, 2, "MESSAGES", CHAT[:-1] + ', "user_id": 390}]', "[0]['user_id']: repeated key in one JSON object (values 389 and 390)",
             "repeated key in a JSON cell"),
    bad_json(*D, 2, "MESSAGES", CHAT.replace('"hi"', '"hi \\ud83d"') + "]",
             "[0]['content']: invalid value 'hi \\ud83d' (expected text; a lone UTF-16 surrogate escape is not text)",
             "lone surrogate escape in a JSON cell"),
    bad_json(*D, 2, "MESSAGES", CHAT.replace("389", "9" * 5000) + "]",
             "[0]['user_id']: invalid value " + "9" * 77 + "... (expected an integer of at most 4300 digits; this one has 5000)",
             "5000-digit integer in a JSON cell"),
    bad_json(*D, 2, "MESSAGES", "[" * 100_000 + "]" * 100_000,
             ": invalid JSON (nested too deeply for Python's JSON reader): '" + "[" * 76 + "... (200000 characters)",
             "JSON cell nested 100,000 deep"),
    BadInput(DELIBERATIONS, "invalid UTF-8 in a JSON cell",
             lambda raw: raw.replace(b'""Marvelous Murdock""', b'""Marvelous Murd\xf6ck""', 1),
             "deliberations.csv, line 2: not UTF-8 (byte 0xf6 at offset 1228 of the line: invalid start byte)"),
    BadInput(DELIBERATIONS, "extra column without a name", csv_variant(lambda rows: [row.append("x") for row in rows]),
             "deliberations.csv: unexpected header: 387 columns, expected 386; missing [], unexpected ['x']"),
    BadInput(DELIBERATIONS, "renamed column", set_cell(1, "MEMBER_2_NAME", "MEMBER_2_PSEUDONYM"),
             "deliberations.csv: unexpected header: 386 columns, expected 386; missing ['MEMBER_2_NAME'], "
             "unexpected ['MEMBER_2_PSEUDONYM']"),
    bad_cell(*D, 2, "MEMBER_1_RECONSIDERED_LABEL", "unsure", f"{SARCASM} or {RELATION} or 'irresolvable' or empty"),
    bad_cell(*D, 3, "WAS_RESOLVED", "true", "'True' or 'False'"),
    bad_cell(*D, 2, "MEMBER_2_" + DOUBT, "Maybe, I am not sure", "a text starting with 'Yes' or 'No' or empty"),
    bad_cell(*D, 3, "MEMBER_3_RECONSIDERED_CONFIDENCE", "0.25", CONFIDENCE + " or empty"),
    bad_cell(*D, 2, "NUM_DISSENTING_OPINIONS_DISCUSSED", "1", "0 or 2 or 3"),
    bad_cell(*D, 3, "MEMBER_1_DISCUSS_ORDER", "4", "1 or 2 or 3 or empty"),
    bad_cell(*D, 2, "MEMBER_1_MESSAGES_CHAR_COUNT", "73.5", "an int32 integer"),
    bad_cell(*D, 2, "MESSAGES_FLESCH_READING_EASE_MEAN", "1e3", "a decimal number"),
    bad_cell(*D, 2, "MESSAGES_GUNNING_FOG", "nan", "a decimal number"),
    bad_json(*D, 2, "MESSAGES", '[{"content": "a", "content": "b"}]',
             "[0]['content']: repeated key in one JSON object (values 'a' and 'b')", "repeated key in a chat message"),
    bad_json(*D, 2, "MESSAGES_DISCUSS", "", ": invalid JSON (Expecting value: line 1 column 1 (char 0)): ''", "empty chat cell"),
    bad_cell(*D, 3, "MEMBER_2_LABEL_ID", "7004", "a LABEL_ID of labels.csv"),
    bad_json(*D, 2, "MESSAGES", '[{"content": "hi", "user_pseudonym": "Marvelous Murdock", "user_id": 390}]',
             "[0]['user_id']: invalid value 390 (expected the USER_ID of a member: [389, 8451, 8455])",
             "chat author who is not a member"),
    bad_json(*D, 2, "MESSAGES", '[{"content": "hi", "user_pseudonym": "Marvellous Murdock", "user_id": 389}]',
             "[0]['user_pseudonym']: invalid value 'Marvellous Murdock' (expected 'Marvelous Murdock', the NAME of member 389)",
             "chat author under another name"),
    bad_json(*D, 2, "MESSAGES", '[{"content": "hi", "user_id": 389}]',
             "[0]: field(s) missing ['user_pseudonym'], unknown []", "chat message without a pseudonym"),
    bad_cell(*D, 2, "MEMBER_3_DISCUSS_ORDER", "3", "empty: MEMBER_3_DID_DISCUSS is False"),
    bad_cell(*D, 2, "MEMBER_1_RECONSIDER_ORDER", "", "filled: MEMBER_1_DID_RECONSIDER is True"),
    bad_cell(*D, 2, "MEMBER_3_" + PROCESS, " Nice.", "empty: MEMBER_3_DID_CONCLUDE is False"),
    bad_cell(*D, 2, "MEMBER_1_" + RESOLVED, " Both.",
             f"exactly one of {RESOLVED} and {UNRESOLVED} filled: MEMBER_1_DID_CONCLUDE is True", "both resolution answers"),
    bad_cell(*D, 2, "MEMBER_1_MESSAGES_SMOG_INDEX", "", "a number: the other statistics of this group are filled", "statistics partly empty"),
    BadInput(DELIBERATIONS, "group statistics of an empty chat",
             set_cell(4, "MESSAGES", '[{"content": "hi", "user_pseudonym": "Lucky Lucia", "user_id": 1200}]'),
             "deliberations.csv, line 4: field 'MESSAGES_CHAR_COUNT': invalid value '' (expected filled: MESSAGES has 1 messages)"),
    bad_cell(*D, 4, "DELIBERATION_ID", "438", "a unique DELIBERATION_ID; already on line 2", "repeated id"),
    # labels.csv, by the labels config
    BadInput(LABELS, "cut inside a quoted JSON cell", lambda raw: raw[: raw.index(b'""quote""')],
             "labels.csv, line 2: malformed CSV (unexpected end of data)", "labels"),
    BadInput(LABELS, "labels.csv without a column", csv_variant(lambda rows: [row.pop(4) for row in rows]),
             "labels.csv: unexpected header: 13 columns, expected 14; missing ['ORDER'], unexpected []", "labels"),
    bad_cell(*L, 8, "ORIGINAL_LABEL", "not_expressed", RELATION),
    bad_cell(*L, 3, "ORIGINAL_LABEL", "relation_expressed", SARCASM, "a relation label on a sarcasm text"),
    bad_cell(*L, 4, EXPECTATION, "I expect everybody to agree with me.", f"'{AGREE}' or '{HALF}' or '{DISAGREE}' or empty"),
    *[bad_cell(*L, 5, "ORIGINAL_CONFIDENCE", value, CONFIDENCE) for value in ["0.75", "1.0", "2", "", "-0.5"]],
    bad_cell(*L, 2, "LABEL_ID", "3857.0", ID),
    bad_json(*L, 2, "EVIDENCE", '[{"comment": "x", "start": 1, "end": 2, "quote": "y"}',
             ": invalid JSON (Expecting ',' delimiter: line 1 column 54 (char 53)): "
             "'[{\"comment\": \"x\", \"start\": 1, \"end\": 2, \"quote\": \"y\"}'", "malformed JSON in the evidence"),
    bad_json(*L, 5, WHY, '["MISTAKE", NaN]',
             "[1]: invalid value NaN (expected a number JSON has; NaN and Infinity are not JSON)", "NaN in a JSON cell"),
    bad_json(*L, 4, "EVIDENCE", '{"start": 1}', ": invalid value '{\"start\": 1}' (expected a JSON list of objects)", "evidence not a list"),
    bad_json(*L, 4, "EVIDENCE", '[{"start": 1, "end": 2, "quote": "x"}]',
             "[0]: field(s) missing ['comment'], unknown []", "evidence without a comment"),
    bad_json(*L, 4, "EVIDENCE", '[{"comment": "", "start": "87", "end": 125, "quote": "x"}]',
             "[0]['start']: invalid value '87' (expected a non-negative integer below 2**31)", "evidence offset a string"),
    bad_json(*L, 4, "EVIDENCE", '[{"comment": "", "start": 125, "end": 87, "quote": "x"}]',
             "[0]: end 87 is before start 125", "evidence ending before its start"),
    bad_json(*L, 4, "EVIDENCE", '[{"comment": null, "start": 87, "end": 88, "quote": "I"}]',
             "[0]['comment']: invalid value None (expected a string or empty)", "evidence comment null"),
    bad_json(*L, 4, "EVIDENCE", '[{"comment": "", "start": 88, "end": 92, "quote": "gave"}]',
             "[0]: quote 'gave' is not the text of DATA_ID 19179 from 88 to 92 (' gav')", "evidence quote not the text"),
    bad_cell(*L, 3, "DATASET", "deliberation-relation-person-place",
             "'deliberation-sarcasm', the DATASET of DATA_ID 19179 in data.csv", "a label's DATASET not its text's"),
    BadInput(LABELS, "follow-up answers to no disagreement", set_cell(5, EXPECTATION, AGREE),
             f"labels.csv, line 5: field '{WHY}': invalid value '[\"The text contains some features that indicate target "
             f"category A and some f... (118 characters) (expected empty: {EXPECTATION} is '{AGREE}')", "labels"),
    # data.csv, by the texts config
    BadInput(DATA, "data.csv cut after a complete cell", lambda raw: raw[: raw.rindex(b",")],
             "data.csv, line 6: 4 cells, expected 5 (the header's columns)", "texts"),
    BadInput(DATA, "data.csv in cp1252", lambda raw: raw.decode("utf-8").encode("cp1252"),
             "data.csv, line 2: not UTF-8 (byte 0x92 at offset 148 of the line: invalid start byte)", "texts"),
    BadInput(DATA, "data.csv with semicolons", csv_variant(lambda rows: None, delimiter=";"),
             "data.csv: unexpected header (not comma-separated?): 1 columns, expected 5; missing ['DATASET', 'DATA_ID', "
             "'STUDY_PART', 'TEXT', 'GROUND_TRUTH_LABEL'], unexpected ['DATASET;DATA_ID;STUDY_PART;TEXT;GROUND_TRUTH_LABEL']",
             "texts"),
    BadInput(DATA, "columns out of order", csv_variant(swap),
             "data.csv: unexpected header: column 4 is 'GROUND_TRUTH_LABEL', expected 'TEXT' (columns out of order or "
             "repeated)", "texts"),
    BadInput(DATA, "columns out of order and one repeated", csv_variant(lambda rows: [swap(rows), [r.append(r[3]) for r in rows]]),
             "data.csv: unexpected header: column 4 is 'GROUND_TRUTH_LABEL', expected 'TEXT' (columns out of order or "
             "repeated)", "texts"),
    BadInput(DATA, "a column repeated", csv_variant(lambda rows: [swap(rows), [r.append(r[3]) for r in rows], swap(rows)]),
             "data.csv: unexpected header: column 6 is 'GROUND_TRUTH_LABEL', expected no further column (columns out of "
             "order or repeated)", "texts"),
    BadInput(DATA, "empty data.csv", lambda raw: b"", "data.csv: is empty (expected a CSV header and records)", "texts"),
    BadInput(DATA, "data.csv with only its header", lambda raw: raw.split(b"\n", 1)[0] + b"\n", "data.csv: has no records after the header", "texts"),
    bad_cell(*T, 2, "DATASET", "deliberation-relation", "'deliberation-sarcasm' or 'deliberation-relation-person-place'"),
    bad_cell(*T, 4, "GROUND_TRUTH_LABEL", "sarcastic", RELATION + " or empty"),
    bad_cell(*T, 3, "STUDY_PART", "depth", "'breadth' or 'breadth and depth'"),
    bad_cell(*T, 4, "DATA_ID", "019295", ID),
]
