"""Exponential back-off with jitter: how long a retry loop waits before its next attempt
(the bus's resubscription, the links between nodes, the journal's uncertain writes; the
browser's reconnects use web/src/backoff.ts, the same rule)."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays between attempts: exponential up to a cap, with jitter.

    Attempt *n* waits a random time in [d/2, d], d = min(cap, base × 2ⁿ), so the
    instances that lost the same service at the same instant do not all come back in the
    same instant.

    >>> b = Backoff(base=0.1, cap=5.0)
    >>> 0.05 <= b.delay(0) <= 0.1, 2.5 <= b.delay(50) <= 5.0
    (True, True)
    """

    base: float = 0.1
    cap: float = 5.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt`` (0 for the first retry)."""
        whole = self.cap if attempt >= 64 else min(self.cap, self.base * 2**attempt)
        return random.uniform(whole / 2, whole)
