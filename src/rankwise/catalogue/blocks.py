"""How many users one block of scores holds: sized for a CPU's cache, or for an accelerator's free memory."""
from __future__ import annotations

from typing import Any

from rankwise.errors import InvalidParameterError

# About 64 MiB of float32 scores per block: large enough for full-speed matrix products, small
# enough that the comparison passes run while the block is still warm in cache levels that matter
DEFAULT_BLOCK_ELEMENTS = 1 << 24
# On an accelerator a block is limited by memory, not cache: a quarter of the free memory, at most
# 4 GiB, so that 10^6 x 10^6 needs a few GB beyond the factors (issue #27) and the products run on
# thousands of users at once instead of hundreds of cache-sized blocks each paying a launch
DEVICE_BLOCK_BYTES = 4 << 30


def default_block_size(n_items: int) -> int:
    return int(max(1, min(65536, DEFAULT_BLOCK_ELEMENTS // max(1, n_items))))


def device_block_size(torch: Any, device: Any, n_items: int, bytes_per_score: int) -> int:
    """Users per block on ``device``: from its free memory on CUDA, the cache-sized default elsewhere.

    ``bytes_per_score``: what a block holds per score (ranks: the score and one boolean comparison mask).
    """
    if getattr(device, "type", None) != "cuda":
        return default_block_size(n_items)
    free, _total = torch.cuda.mem_get_info(device)
    budget = min(int(free) // 4, DEVICE_BLOCK_BYTES)
    return int(max(1, min(1 << 20, budget // (max(1, n_items) * bytes_per_score))))


def check_block_size(block_size: Any, n_items: int) -> int | None:
    """``block_size`` checked (users per block), or None for the backend's own default."""
    if block_size is None:
        return None
    if isinstance(block_size, bool) or int(block_size) != block_size or block_size < 1:
        raise InvalidParameterError(f"block_size must be a positive integer (users per block), got {block_size!r}")
    return int(block_size)
