"""Rate limiting for outbound carrier API calls.

Larkspur Logistics - Carrier Integrations team.
Module owner: Priya Ramanathan. Reviewed by: Jonas Eklund, 2024-02-06.

This module decides whether the tendering service may send one more request to
a carrier's API right now. Carriers publish quotas in very different shapes:
Bluefjord Freight allows 20 requests per second with bursts of 50, Nordhavn
Haulage allows 1,000 requests per rolling minute, and a few of the small
regional carriers simply tell us "please be gentle". Exceeding a quota is
expensive for us. Most carriers answer with HTTP 429 and a Retry-After header,
which we can live with, but two of them (Nordhavn and Castellan Transportes)
suspend the API key for 15 minutes after a burst of 429s, and a suspended key
means tenders to that carrier queue up until a human notices.

The primary algorithm is a token bucket, and the fallback is a sliding-window
counter. The reasoning behind that pairing is the most important thing in this
file, so it is written down here rather than scattered across comments.

Why a token bucket first
------------------------
A token bucket has two parameters, a refill rate and a capacity, and those map
directly onto the way most carriers describe their limits ("N per second,
bursts up to M"). It allows short bursts, which matter to us: the tender batch
wakes up every five minutes and has a queue of work ready, and forcing that
queue out at a perfectly even rate would add latency for no benefit. It is also
cheap. The state is two numbers, the current token count and the time of the
last refill, and a decision is a subtraction and a comparison. Nothing needs to
be stored per request.

Why a token bucket is not enough
--------------------------------
The bucket's state lives in Redis so that every tendering worker shares one
view of each carrier's quota. That is the right design when Redis is healthy,
and it is a liability when Redis is not. In the incident of 2023-10-12
(INC-3107) the Redis primary failed over and for about 40 seconds every call to
the bucket script timed out. The old code treated a timeout as "allow", on the
theory that it is better to send a request than to block tendering. Each of
the 24 workers then sent at its full local speed, the combined rate to
Nordhavn reached about nine times the quota, and the key was suspended for
15 minutes during the Monday peak.

Treating a timeout as "deny" would have been no better: tendering would have
stopped entirely for 40 seconds, and the retry storm afterwards would have
caused its own burst. What we needed was a decision that each worker could make
on its own, without Redis, that was still conservative enough to keep the sum
of all workers under the quota.

Two other designs were considered and set aside. The first was token leasing:
each worker takes a block of, say, ten tokens from Redis at a time and spends
them locally, so that a short Redis outage is covered by tokens already in
hand. It reduces Redis traffic nicely, but it does not survive an outage longer
than one block, and choosing the block size turns into a trade between wasted
quota (tokens leased by a worker that then goes idle) and outage cover. The
second was a second Redis, in another zone, holding a copy of every bucket.
It would have covered INC-3107, but the replica lags the primary, so a worker
reading it after a failover sees tokens that other workers have already spent;
in effect it reproduces the "allow" behaviour with extra steps.

Why the fallback is a sliding window, and why it is divided
-----------------------------------------------------------
When the shared bucket cannot be reached, each worker switches to a local
sliding-window counter whose limit is the carrier's quota divided by the number
of live workers, with a safety margin. A sliding window rather than a second
local token bucket, for two reasons. First, it cannot burst: a local bucket
that starts full would let every worker spend its whole burst allowance at the
same moment, which is exactly the synchronized spike we are trying to avoid.
Second, carriers that publish rolling-window quotas (Nordhavn among them)
enforce them with something very like a sliding window, so matching their
algorithm makes our local estimate of "are we over?" agree with theirs.

The division by worker count is an estimate, since the worker count itself
comes from the last successful heartbeat read and may be stale. We take the
pessimistic view: the divisor is the largest worker count seen in the last
five minutes, never the smallest, and the result is multiplied by
FALLBACK_SAFETY_FACTOR (0.8). Being a little slow for a few minutes is cheap;
a suspended key is not.

Using the module
----------------
    limiter = CarrierRateLimiter.from_policy(policy, redis_client, worker_registry)
    decision = limiter.acquire("nordhavn", cost=1)
    if decision.allowed:
        send_tender(...)
    else:
        requeue(after=decision.retry_after_s)

All durations are seconds as floats.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Deque, Dict, Optional, Protocol

log = logging.getLogger(__name__)

# Multiplier applied to each worker's share of the quota while running on the
# local fallback. 0.8 was chosen after replaying the INC-3107 traffic: at 0.9
# the combined rate still briefly exceeded Nordhavn's quota when two workers
# restarted during the fallback window, and at 0.7 the tender backlog grew
# faster than it drained during the Monday peak.
FALLBACK_SAFETY_FACTOR = 0.8

# How long a Redis call may take before we give up and use the fallback. Set
# well below the tendering request timeout (2 s) so that a slow Redis does not
# turn every tender into a slow tender.
REDIS_TIMEOUT_S = 0.05

# After the shared bucket fails, stay on the fallback for at least this long
# before trying Redis again. Without this, a flapping Redis makes each worker
# alternate between the shared and local views many times a second, and the
# local windows never accumulate enough history to be accurate.
FALLBACK_MIN_DURATION_S = 10.0

# Window over which the largest observed worker count is remembered.
WORKER_COUNT_MEMORY_S = 300.0


@dataclass(frozen=True)
class CarrierPolicy:
    """A carrier's quota, as we have agreed to respect it.

    rate_per_s and burst describe the token bucket. window_s and window_limit
    describe the carrier's own rolling-window quota when it publishes one; for
    carriers that only publish a per-second rate, window_s is 1.0 and
    window_limit equals rate_per_s. The fallback uses the window values, so they
    must be filled in for every carrier, even those whose quota is naturally
    expressed as a bucket.
    """

    carrier: str
    rate_per_s: float
    burst: int
    window_s: float
    window_limit: int

    def __post_init__(self) -> None:
        if min(self.rate_per_s, self.burst, self.window_s, self.window_limit) <= 0:
            raise ValueError(f"{self.carrier}: all quota values must be positive")


@dataclass(frozen=True)
class Decision:
    """The answer to one acquire() call.

    retry_after_s is a hint, not a promise: another worker may take the
    tokens first. source ("bucket" or "window") is exported as a metric label
    so dashboards show how much traffic runs on the fallback.
    """

    allowed: bool
    retry_after_s: float
    source: str


class RedisLike(Protocol):
    def evalsha(self, sha: str, numkeys: int, *args: object) -> object: ...
    def script_load(self, script: str) -> str: ...


class WorkerRegistry(Protocol):
    def live_worker_count(self) -> int: ...


# The bucket update must be atomic across workers, so it runs as a Lua script
# inside Redis. Reading the state, refilling and writing it back from Python
# would race: two workers could both read 1 token, both decide to spend it,
# and both succeed.
#
# The script takes the current time from Redis (redis.call("TIME")) rather than
# from the caller. Worker clocks drift by tens of milliseconds between hosts,
# and a worker whose clock runs ahead would refill the bucket early every time
# it touched it. Using the server's clock means there is exactly one clock for
# each bucket.
_BUCKET_LUA = """
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call("TIME")
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call("HMGET", key, "tokens", "ts")
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - ts) * rate)
local allowed = 0
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  wait = (cost - tokens) / rate
end
redis.call("HSET", key, "tokens", tokens, "ts", now)
redis.call("PEXPIRE", key, math.ceil(burst / rate * 1000) + 60000)
return {allowed, tostring(wait)}
"""


class SlidingWindowCounter:
    """Local, per-process sliding-window limiter used as the fallback.

    This is the "sliding log" variant: it remembers the timestamp of every
    admitted request inside the window and counts them. The cheaper
    "two-bucket" approximation (weighting the previous fixed window by how much
    of it still overlaps) was considered and rejected. It overestimates the
    count right after a burst at the end of the previous window and
    underestimates it right after a quiet one, and the underestimate is the
    dangerous direction here. Memory is not a concern: the largest per-worker
    window limit we run with is about 40 entries, so the deque never grows
    beyond that.

    set_limit() may lower the limit below the current count; history is kept,
    and requests are denied until enough old entries have aged out.
    """

    def __init__(self, window_s: float, limit: int, clock: Callable[[], float] = time.monotonic):
        self._window_s = window_s
        self._limit = max(1, limit)
        self._clock = clock
        self._stamps: Deque[float] = deque()
        self._lock = threading.Lock()

    def set_limit(self, limit: int) -> None:
        with self._lock:
            self._limit = max(1, limit)

    def try_acquire(self, cost: int = 1) -> Decision:
        with self._lock:
            now = self._clock()
            horizon = now - self._window_s
            while self._stamps and self._stamps[0] <= horizon:
                self._stamps.popleft()
            if len(self._stamps) + cost <= self._limit:
                self._stamps.extend([now] * cost)
                return Decision(True, 0.0, "window")
            # The earliest time a slot frees up is when the oldest entry that
            # must leave for `cost` slots to open ages out of the window.
            need = len(self._stamps) + cost - self._limit
            idx = min(need, len(self._stamps)) - 1
            retry = self._stamps[idx] + self._window_s - now if idx >= 0 else self._window_s
            return Decision(False, max(0.0, retry), "window")


@dataclass
class _FallbackState:
    active_since: Optional[float] = None
    counters: Dict[str, SlidingWindowCounter] = field(default_factory=dict)
    worker_counts: Deque[tuple] = field(default_factory=deque)


class CarrierRateLimiter:
    """Token bucket in Redis, with a divided sliding window as the fallback.

    One instance per worker process. The instance is thread-safe; the tendering
    worker runs a small thread pool and all threads share it.

    The switch between the two algorithms is deliberately sticky. When a Redis
    call fails or takes longer than REDIS_TIMEOUT_S, the limiter enters
    fallback mode and stays there for at least FALLBACK_MIN_DURATION_S, even if
    the next Redis call would have succeeded. When that period ends, the next
    acquire() tries Redis again; success ends fallback mode, and failure
    restarts the period.

    Switching back to the shared bucket is safe without any reconciliation. The
    bucket in Redis has been refilling while we were away, so it will be full
    or nearly full, and the first few calls after recovery may be allowed a
    burst. That burst is bounded by the carrier's own burst figure and is
    shared by all workers, so it is within the quota by construction. We looked
    at draining the bucket on recovery and decided it was not worth the extra
    code path: in the replay of INC-3107 the post-recovery burst to Nordhavn was 46
    requests, inside the burst of 50 configured for its bucket.
    """

    def __init__(
        self,
        policies: Dict[str, CarrierPolicy],
        redis: RedisLike,
        workers: WorkerRegistry,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._policies = dict(policies)
        self._redis = redis
        self._workers = workers
        self._clock = clock
        self._fallback = _FallbackState()
        self._lock = threading.Lock()
        self._sha: Optional[str] = None

    @classmethod
    def from_policy(cls, policy: Dict[str, CarrierPolicy], redis: RedisLike,
                    workers: WorkerRegistry) -> "CarrierRateLimiter":
        return cls(policy, redis, workers)

    # -- public API ---------------------------------------------------------

    def acquire(self, carrier: str, cost: int = 1) -> Decision:
        """Ask to spend `cost` units of `carrier`'s quota now.

        Never blocks for longer than REDIS_TIMEOUT_S, and never raises for a
        Redis problem; the only exception it raises is KeyError for a carrier
        with no policy, which is a configuration bug that should fail loudly.
        """
        policy = self._policies[carrier]
        if not self._in_fallback():
            try:
                return self._acquire_shared(policy, cost)
            except Exception as exc:  # noqa: BLE001 - any Redis failure means fallback
                log.warning("rate limiter: shared bucket unavailable for %s (%s); "
                            "switching to local fallback", carrier, exc)
                self._enter_fallback()
        return self._acquire_local(policy, cost)

    # -- shared path --------------------------------------------------------

    def _acquire_shared(self, policy: CarrierPolicy, cost: int) -> Decision:
        if self._sha is None:
            self._sha = self._redis.script_load(_BUCKET_LUA)
        started = self._clock()
        allowed, wait = self._redis.evalsha(
            self._sha, 1, f"ratelimit:carrier:{policy.carrier}",
            policy.rate_per_s, policy.burst, cost,
        )
        if self._clock() - started > REDIS_TIMEOUT_S:
            # The answer arrived, but too late to trust the next one to be
            # quick. Use this answer and move to the fallback for the next.
            self._enter_fallback()
        self._leave_fallback_if_due()
        return Decision(bool(int(allowed)), float(wait), "bucket")

    # -- fallback path ------------------------------------------------------

    def _in_fallback(self) -> bool:
        with self._lock:
            since = self._fallback.active_since
            if since is None:
                return False
            if self._clock() - since >= FALLBACK_MIN_DURATION_S:
                # Period over: let the next call probe Redis. If it fails,
                # acquire() will call _enter_fallback() and restart the period.
                return False
            return True

    def _enter_fallback(self) -> None:
        with self._lock:
            if self._fallback.active_since is None:
                log.warning("rate limiter: entering local fallback mode")
            self._fallback.active_since = self._clock()

    def _leave_fallback_if_due(self) -> None:
        with self._lock:
            since = self._fallback.active_since
            if since is not None and self._clock() - since >= FALLBACK_MIN_DURATION_S:
                log.info("rate limiter: shared bucket healthy again; leaving fallback")
                self._fallback.active_since = None

    def _acquire_local(self, policy: CarrierPolicy, cost: int) -> Decision:
        share = self._local_share(policy)
        with self._lock:
            counter = self._fallback.counters.get(policy.carrier)
            if counter is None:
                counter = SlidingWindowCounter(policy.window_s, share, self._clock)
                self._fallback.counters[policy.carrier] = counter
            else:
                counter.set_limit(share)
        return counter.try_acquire(cost)

    def _local_share(self, policy: CarrierPolicy) -> int:
        """This worker's share of the carrier's window limit while on fallback.

        The share is floor(window_limit * FALLBACK_SAFETY_FACTOR / workers),
        with a floor of 1 so that no worker is ever starved completely. The
        worker count is the largest value seen in the last
        WORKER_COUNT_MEMORY_S seconds. During a rolling deploy, old and new
        workers overlap for a minute or two and the count briefly rises; taking
        the maximum means each worker's share shrinks during that overlap,
        which is the safe direction, and it does not grow back until the
        larger count has been out of memory for five minutes.

        If the registry itself cannot be read (it also lives in Redis), we use
        the largest count we remember. If we remember nothing, which happens
        only when a worker starts while Redis is already down, we assume 32
        workers, the configured maximum of the autoscaler, so that the share
        is as small as it could ever legitimately need to be.
        """
        now = self._clock()
        counts = self._fallback.worker_counts
        try:
            counts.append((now, max(1, int(self._workers.live_worker_count()))))
        except Exception:  # noqa: BLE001 - the registry is best effort
            pass
        while counts and now - counts[0][0] > WORKER_COUNT_MEMORY_S:
            counts.popleft()
        workers = max((c for _, c in counts), default=32)
        return max(1, math.floor(policy.window_limit * FALLBACK_SAFETY_FACTOR / workers))

