"""A helper module beside the script, as some scripts have: the label names."""


def label_names():
    return ["negative", "positive"]
