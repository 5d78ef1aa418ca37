"""Synthetic diplomacy_detection sources in the real format and at the real sizes (the official
split sizes), for the tests that check them and for bench/diplomacy_build.py. Deterministic: the
same seed gives the same bytes."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

DIPLOMACY_TEXTS = ["Yes", "Ok", "Hey Italy,\nwhat\u2019s the plan?", "Deal \U0001F91D"]
DIPLOMACY_COUNTRIES = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
# split -> (games, messages, empty dialogs), as measured on the real files
DIPLOMACY_SPLITS = {
    "train": ([1, 2, 3, 5, 6, 7, 8, 9, 10], 13132, 5),
    "validation": ([11], 1416, 1),
    "test": ([4, 12], 2741, 0),
}


def write_diplomacy(root: Path, seed: int = 0) -> Path:
    """data/{train,validation,test}.jsonl with the official dialog and message counts."""
    rng = random.Random(seed)
    (root / "data").mkdir(parents=True, exist_ok=True)
    for split, (games, total, empty) in DIPLOMACY_SPLITS.items():
        pairs = [(game, pair) for game in games for pair in itertools.combinations(DIPLOMACY_COUNTRIES, 2)]
        sizes = _spread(total, len(pairs) - empty, rng) + [0] * empty
        rng.shuffle(sizes)
        with open(root / "data" / f"{split}.jsonl", "w", encoding="utf-8", newline="\n") as f:
            absolute = {}
            for (game, players), size in zip(pairs, sizes, strict=True):
                f.write(json.dumps(_dialog(game, list(players), size, absolute, rng)) + "\n")
    return root


def _spread(total: int, parts: int, rng: random.Random) -> list[int]:
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total], strict=True)]


def _dialog(game: int, players: list[str], size: int, absolute: dict, rng: random.Random) -> dict:
    speakers = [rng.choice(players) for _ in range(size)]
    start = absolute.get(game, 0)
    absolute[game] = start + size
    score = [rng.choice([str(rng.randint(1, 17)), 0]) for _ in range(size)]
    return {
        "messages": [rng.choice(DIPLOMACY_TEXTS) for _ in range(size)],
        "sender_labels": [rng.random() > 0.05 for _ in range(size)],
        "receiver_labels": [rng.choice([True, True, False, "NOANNOTATION"]) for _ in range(size)],
        "speakers": speakers,
        "receivers": [players[1] if s == players[0] else players[0] for s in speakers],
        "absolute_message_index": list(range(start, start + size)),
        "relative_message_index": list(range(size)),
        "seasons": [rng.choice(["Spring", "Fall", "Winter"]) for _ in range(size)],
        "years": [str(rng.randint(1901, 1910)) for _ in range(size)],
        "game_score": score,
        "game_score_delta": [rng.choice([str(rng.randint(-14, 15)), 0]) for _ in range(size)],
        "players": players,
        "game_id": game,
    }
