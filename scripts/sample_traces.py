"""Write traces/sample.jsonl: a week of invented production traces for the sample set's shop.

The log is what a team would export from its tracing for ``goldcase triage``: one JSON object a
line with the question, production's answer, the time, and three flags (a failed automatic
check, a cap hit, a user's thumbs-down). It is invented, seeded and written once; the file in
the repository is this script's output:

    .venv/bin/python scripts/sample_traces.py            # rewrites traces/sample.jsonl

What it holds, so that a triage of it shows every path:

- questions about the shop's policies, written from templates with varied products, amounts
  and wording, so that some traces ask nearly what another asks (near-repeats);
- customers asking a question the sample set already holds, in other capitals and punctuation
  (duplicates) or with a word changed (near-duplicates);
- the same question asked several times in the week (repeats);
- personal data pasted into questions and echoed in answers (emails, phone numbers, street
  addresses, a card number), which triage replaces with tokens;
- about a third of the traces flagged;
- two broken lines at the end, as a crashed exporter leaves them.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "traces" / "sample.jsonl"
SEED = 2026_03_02
START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)

PRODUCTS = [
    "kettle", "toaster", "stand mixer", "blender", "air fryer", "slow cooker", "duvet cover",
    "garden bench", "cordless drill", "fridge freezer", "coffee machine", "lawn mower",
    "steam iron", "table lamp", "saucepan set", "digital scale",
]  # fmt: skip
TEMPLATES = [
    ("my {p} arrived broken, how long do i have to report it", "You have 14 days from delivery."),
    ("the {p} i got is damaged, what do i do", "Report it within 30 days for a refund."),
    ("can i return a {p} i bought {d} days ago", "Yes, within 30 days from delivery."),
    ("i want to send back the {p}, do i pay for the return", "Returns are free by post."),
    ("how long is the warranty on the {p}", "Brightwater products carry a 2-year guarantee."),
    ("my {p} stopped working after {m} months, is it covered", "Yes, under the guarantee."),
    ("how much is express delivery for a {p}", "Express delivery costs £9.95."),
    ("when will my {p} arrive if i order today", "Standard delivery takes 3-5 business days."),
    ("is delivery free on a £{a} order", "Standard delivery is free on orders over £50."),
    ("how many points do i get for a £{a} {p}", "You earn 1 point for every £1 spent."),
    ("can i pay for the {p} in instalments", "Yes, in three interest-free monthly instalments."),
    ("do you price match on the {p}", "We do not price match."),
    ("the {p} is cheaper now than when i bought it {d} days ago, can i get the difference",
     "We refund the difference within 14 days of purchase."),
    ("can i collect the {p} from a store", "Click and collect is free."),
    ("whats the return window on a sale {p}", "Sale items can be returned within 14 days."),
    ("i ordered the wrong {p}, can i swap it", "Yes, return it within 30 days and reorder."),
    ("how do i change the delivery address for my {p} order", "Call us before dispatch."),
    ("my refund for the {p} hasnt arrived after {d} days", "Refunds take 5 business days."),
    ("can brightwater care cover a {p} i bought last year", "Care must be bought within 30 days."),
    ("is there a restocking fee if i return an opened {p}", "Up to 10% may be deducted."),
]  # fmt: skip
PERSONAL = [
    " my email is {name}@example.co.uk if you need it",
    " call me on 07700 900{n3}",
    " it was sent to {house} Acacia Avenue",
    " paid with card 4111 1111 1111 1111",
    " you can reach me at +44 20 7946 0{n3}",
]
NAMES = ["jo.bloggs", "sam.taylor", "priya.k", "ahmed.r", "lena.m", "tom.h"]
SET_COPIES = 10  # questions of the sample set asked again, in other capitals and punctuation
SET_EDITS = 8  # questions of the sample set with one word changed


def main() -> None:
    rng = random.Random(SEED)
    rows = [*_templated(rng, 200), *_from_the_set(rng)]
    rng.shuffle(rows)
    times = sorted(START + timedelta(minutes=rng.randrange(7 * 24 * 60)) for _ in rows)
    lines = []
    for number, ((question, answer), when) in enumerate(zip(rows, times, strict=True), 1):
        lines.append(json.dumps(_trace(rng, number, question, answer, when), ensure_ascii=False))
    lines.append('{"id": "t-0999", "question": "is the kettle in stock at leice')  # cut short
    lines.append('{"id": "t-1000", "answer": "Yes.", "time": "2026-03-08T23:59:00Z"}')
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(lines)} lines")


def _templated(rng: random.Random, count: int) -> list[tuple[str, str]]:
    rows = []
    for _ in range(count):
        template, answer = rng.choice(TEMPLATES)
        question = template.format(
            p=rng.choice(PRODUCTS),
            d=rng.choice([3, 5, 10, 12, 20, 40]),
            m=rng.choice([6, 13, 18, 25]),
            a=rng.choice([20, 45, 75, 120, 300]),
        )
        if rng.random() < 0.12:
            question += rng.choice(PERSONAL).format(
                name=rng.choice(NAMES),
                n3=rng.randrange(100, 999),
                house=rng.randrange(2, 90),
            )
        rows.append((question, answer))
    repeated = rng.sample(rows, 6)
    return rows + [row for row in repeated for _ in range(rng.randrange(1, 4))]


def _from_the_set(rng: random.Random) -> list[tuple[str, str]]:
    questions = sorted(_set_questions())
    rows = []
    for question in rng.sample(questions, SET_COPIES):
        rows.append((question.upper() if rng.random() < 0.5 else question + "??", "See policy."))
    for question in rng.sample(questions, SET_EDITS):
        words = question.split()
        if len(words) > 6:
            words[rng.randrange(len(words))] = rng.choice(["please", "really", "actually"])
        rows.append((" ".join(words), "See policy."))
    return rows


def _set_questions() -> list[str]:
    out = []
    for path in sorted((ROOT / "cases").glob("*/*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("question"), str):
            out.append(data["question"])
    return out


def _trace(rng: random.Random, number: int, question: str, answer: str, when: datetime) -> dict:
    failed = rng.random() < 0.2
    cap = rng.random() < 0.06
    thumbs = rng.random() < (0.5 if failed else 0.08)
    if "@" in question and rng.random() < 0.5:
        answer += " We have emailed the details to you."
    return {
        "id": f"t-{number:04d}",
        "time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "question": question,
        "answer": None if cap else answer,
        "failed_check": failed,
        "cap_hit": cap,
        "thumbs_down": thumbs,
        "model": "shop-answers-2026-02",
        "latency_ms": rng.randrange(400, 9000),
    }


if __name__ == "__main__":
    main()
