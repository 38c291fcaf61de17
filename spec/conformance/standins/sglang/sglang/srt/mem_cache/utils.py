"""Storage hashes of pages.

Fact (mem_cache/utils.py, get_storage_hash_str -> get_hash_str): HiCache storage and the Unified
linker key every full page by a hex SHA-256 string chained on the previous page's hash (the
first page of a chain seeded by the request's cache namespace, none without one); the tree
hashes only whole pages of its key (UnifiedCacheLinkerWrapper._tail_hashes), starting from the
last device-cached page's hash. The stand-in's digest is its own: sha256(prior digest, then each
token id as 4 little-endian bytes).
"""

import hashlib
import struct


def get_storage_hash_str(token_ids, prior_hash=None, page_size=1):
    """One hex hash per whole page of token_ids, chained from prior_hash (hex or None)."""
    hashes = []
    prior = bytes.fromhex(prior_hash) if prior_hash else b""
    for start in range(0, len(token_ids) - len(token_ids) % page_size, page_size):
        digest = hashlib.sha256(prior)
        digest.update(struct.pack("<%dI" % page_size, *token_ids[start:start + page_size]))
        prior = digest.digest()
        hashes.append(digest.hexdigest())
    return hashes
