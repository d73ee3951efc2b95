"""tau_AP and its tie-aware forms written straight from the papers, one system at a time (test oracle).

Yilmaz, Aslam & Robertson (SIGIR 2008), eq. 1: with the estimated ordering read top-down,
tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1, C(i) the items above rank i in the estimate that
the true ordering also puts above the item at rank i.

Urbano & Marrero (ICTIR 2017): tau_AP-a is the expected tau_AP when the estimate's tied items are put in a
uniformly random order (the truth has no ties) -- written here as exactly that expectation, by enumerating
every order of every tie group; tau_AP-b is the mean of two asymmetric halves, each reading the tie groups
of one ordering: every item below the top group of y counts the items of groups above it that x puts strictly
above it, divided by how many items those groups hold; the half is 2 / (items below the top group) * sum - 1.
"""
from __future__ import annotations

import itertools
import math
from typing import Sequence


def _order(scores: Sequence[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def tau_ap(truth: Sequence[float], estimate: Sequence[float]) -> float:
    """Yilmaz et al.'s tau_AP of an estimate without ties (items at equal truth count as not correct)."""
    order = _order(estimate)
    n = len(order)
    total = 0.0
    for i in range(1, n):
        item = order[i]
        correct = sum(1 for above in order[:i] if truth[above] > truth[item])
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def tau_ap_a(truth: Sequence[float], estimate: Sequence[float]) -> float:
    """The mean of tau_AP over every order of the estimate's tie groups (each order equally likely)."""
    n = len(estimate)
    groups: dict[float, list[int]] = {}
    for i in range(n):
        groups.setdefault(estimate[i], []).append(i)
    levels = sorted(groups, reverse=True)
    orders = [list(itertools.permutations(groups[v])) for v in levels]
    values = []
    for choice in itertools.product(*orders):
        flat = [i for group in choice for i in group]
        broken = [0.0] * n
        for place, i in enumerate(flat):
            broken[i] = float(n - place)  # a strict ordering in the chosen order
        values.append(tau_ap(truth, broken))
    return math.fsum(values) / len(values)


def _tau_ap_b_half(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(y)
    total, below_top = 0.0, 0
    top = max(y)
    for i in range(n):
        if y[i] == top:
            continue
        below_top += 1
        above = [j for j in range(n) if y[j] > y[i]]
        correct = sum(1 for j in above if x[j] > x[i])
        total += correct / len(above)
    return 2.0 / below_top * total - 1.0 if below_top else math.nan


def tau_ap_b(x: Sequence[float], y: Sequence[float]) -> float:
    return (_tau_ap_b_half(x, y) + _tau_ap_b_half(y, x)) / 2.0
