"""Writes cases.json: the inputs on which the recommender libraries' golden values were computed.

Made by rankwise (not taken from any data set), seeded, so it can be regenerated bit for bit:
    python tests/golden/recsys/make_cases.py > tests/golden/recsys/cases.json

Each user has a score for every one of the N_ITEMS catalogue items (so tools that take a score
matrix, like torchmetrics and scikit-learn, see the same input as tools that take top-k lists), a
recommendation list (the user's items in an explicit order: by score descending, ties by item id
ascending, cut at ``list_len``) and graded ground truth. Built to exercise the quirks: exact score
ties across relevance, scores <= 0, users with no ground truth, users whose list is empty or
shorter than k, graded labels (1-3).
"""
import json
import random

N_USERS, N_ITEMS, SEED = 40, 15, 20261124


def make() -> dict:
    rng = random.Random(SEED)
    users = []
    for u in range(N_USERS):
        # coarse scores give many exact ties; some users are all <= 0 or have zeros
        shift = rng.choice([0.0, 0.0, 0.0, -1.0, 0.5])
        scores = [round(rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, rng.random()]) + shift, 6) for _ in range(N_ITEMS)]
        n_true = rng.choice([0, 1, 1, 2, 3, 4, 6, 9])
        true_items = sorted(rng.sample(range(N_ITEMS), n_true))
        graded = rng.random() < 0.4
        truth = {str(i): (rng.choice([1, 2, 3]) if graded else 1) for i in true_items}
        order = sorted(range(N_ITEMS), key=lambda i: (-scores[i], i))
        list_len = rng.choice([0, 3, 5, 10, 15, 15])
        users.append({"user": u, "scores": scores, "ranked": order[:list_len], "truth": truth})
    return {"n_items": N_ITEMS, "seed": SEED, "ks": [1, 3, 5, 10], "users": users}


if __name__ == "__main__":
    print(json.dumps(make(), indent=None, separators=(",", ":")))
