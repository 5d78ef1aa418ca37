"""The helper module of relative.py."""


def parse_line(line):
    number, _, text = line.rstrip("\n").partition(" ")
    return int(number), text
