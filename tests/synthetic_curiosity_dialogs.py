"""Synthetic curiosity_dialogs sources in the real format and at the real sizes, for the tests
that check official split sizes and for bench/curiosity_memory.py. Deterministic: the same seed
gives the same bytes."""

from __future__ import annotations

import json
import random
from pathlib import Path

# split -> (file name part, dialogs, messages), from the authors' statistics (loaders/curiosity_dialogs/FORMAT.md)
CURIOSITY_SPLITS = {
    "train": ("train", 10287, 131394),
    "validation": ("val", 1287, 17186),
    "test": ("test", 1287, 17187),
    "test_zero": ("test_zero", 1187, 15301),
}
CURIOSITY_ACTS = {
    "user": ["request_topic", "request_aspect", "request_followup", "request_other", "feedback_positive",
             "social_greeting", "social_thanking", "offer_accept", "offer_decline"],
    "assistant": ["inform_response", "inform_related", "inform_unrelated", "offer_aspect", "offer_topic",
                  "offer_other", "social_goodbye"],
}
CURIOSITY_WORDS = [
    "the", "a", "of", "in", "and", "is", "to", "its", "was", "river", "city", "capital", "region",
    "island", "coast", "mountains", "population", "people", "government", "history", "economy",
    "culture", "language", "founded", "largest", "north", "south", "east", "west", "century",
    "war", "independence", "trade", "tourism", "climate", "national", "park", "border", "state",
    "province", "known", "about", "what", "tell", "me", "more", "interesting", "really", "yes",
    "thanks", "can", "you", "any", "other", "there",
]


def write_curiosity(root: Path, seed: int = 0, dialogs: int = 10287, split: str = "train",
                    messages_each: int | None = None) -> Path:
    """dialog_data/curiosity_dialogs.<file>.json in the real format; returns the file's path.

    One JSON object on one line (json.dumps defaults: ASCII with \\u escapes), header keys in the
    real order, `fold` named after the file. With the official number of dialogs the file has the
    official number of messages (train: 10,287 dialogs, 131,394 messages, about 6.5 kB a dialog,
    about 67 MB); each dialog alternates user/assistant from the user, 12 to 16 messages, 9 facts
    per assistant message with at most one used. With `messages_each`, every dialog has that many
    messages instead (the real number of dialogs in a fraction of the bytes).
    """
    name, official_dialogs, official_messages = CURIOSITY_SPLITS[split]
    rng = random.Random(f"curiosity-{seed}-{split}")
    messages = round(dialogs * official_messages / official_dialogs)  # exact at the official count
    # 12 messages each, then the rest spread one at a time over dialogs that are below 16.
    sizes = [messages_each or 12] * dialogs
    open_slots = [index for index in range(dialogs) for _ in range(4)]
    for index in rng.sample(open_slots, 0 if messages_each else min(len(open_slots), max(0, messages - 12 * dialogs))):
        sizes[index] += 1
    document = {
        "dialogs": [_curiosity_dialog(rng, size, 1000 + position) for position, size in enumerate(sizes)],
        "fold": name,
        "source_checksum": f"{rng.getrandbits(128):032x}",
        "db_checksum": "e6bec7a95920d55a86c8524fca80fbac",
        "unfolded_checksum": f"{rng.getrandbits(128):032x}",
        "unfolded_generated_time": "2019-11-27 12:51:40.117290",
        "generated_time": "2019-11-27 12:52:15.875605",
    }
    path = root / "dialog_data" / f"curiosity_dialogs.{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(json.dumps(document))
        f.write("\n")
    return path


def _curiosity_text(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(CURIOSITY_WORDS) for _ in range(words))
    if rng.random() < 0.05:
        text += " (1918\u20131920)"
    return text[:1].upper() + text[1:] + rng.choice([".", "?", "!"])


def _curiosity_dialog(rng: random.Random, size: int, dialog_id: int) -> dict:
    known = rng.random() < 0.5
    messages = []
    for position in range(size):
        sender = "user" if position % 2 == 0 else "assistant"
        facts = []
        if sender == "assistant":
            used = rng.randrange(9) if rng.random() < 0.6 else None
            sources = ["section", "known", "random"] if known else ["section", "random"]
            facts = [
                {"fid": rng.randrange(93845), "used": k == used, "source": rng.choice(sources)}
                for k in range(9)
            ]
        words = rng.randint(3, 12) if sender == "user" else rng.randint(9, 33)
        messages.append({
            "message": "" if rng.random() < 0.006 else _curiosity_text(rng, words),
            "liked": sender == "assistant" and rng.random() < 0.45,
            "sender": sender,
            "facts": facts,
            "message_id": str(rng.randrange(10**8, 2**32)),
            "dialog_acts": rng.sample(CURIOSITY_ACTS[sender], rng.choice([0, 1, 1, 1, 2, 3])),
        })
    aspects = ["History", "Economy"] if rng.random() < 0.5 else ["Media", "Politics and government"]
    null_aspects = rng.random() < 0.2
    return {
        "messages": messages,
        "known_entities": [f"Entity {rng.randrange(2000)}" for _ in range(rng.choice([0, 0, 1, 3, 9]) if known else 0)],
        "focus_entity": f"Topic {rng.randrange(361)}",
        "dialog_id": dialog_id,
        "inferred_steps": True,
        "created_time": rng.randint(1568388175, 1571783665),
        "aspects": aspects,
        "first_aspect": None if null_aspects else aspects[0],
        "second_aspect": None if null_aspects else aspects[1],
        "shuffle_facts": True,
        "related_entities": [f"Related entity {rng.randrange(5000)}" for _ in range(rng.randint(10, 15))],
        "tag": rng.choice(["pilot", "round_1", "round_2"]),
        "user_id": str(rng.randrange(1, 2000)),
        "assistant_id": str(rng.randrange(1, 2000)),
        "is_annotated": False,
        "user_dialog_rating": rng.randint(1, 5),
        "user_other_agent_rating": rng.randint(1, 5),
        "assistant_dialog_rating": rng.randint(1, 5),
        "assistant_other_agent_rating": rng.randint(1, 5),
        "reported": False,
        "annotated": True,
    }
