#!/usr/bin/env python3
"""What follows a slow lookup, from ORBITKV_BENCH_LOOKUP_TRACE's files (latencies in ns, in the
order sent, one phase a file). For each file: p50, p99, the slow lookups (over SLOW_US, default
5x the p50: those a collector pause or a preemption held), and the mean latency of the 1st..8th
lookup after each slow one, against the p50. A paced client sends the lookups that fell due during
a pause back to back once it returns: if those pay for work the Manager put off (the held
lookup's actor steps, its release), their latency shows it here.

  python3 spec/bench/lookup-trace.py PREFIX.lookup.10000 PREFIX.echo.10000 ...
"""
import os
import sys

slow_factor = 5.0
for path in sys.argv[1:]:
    with open(path) as f:
        lat = [int(x) / 1e3 for x in f.read().split()]
    if not lat:
        print("%s: empty" % path)
        continue
    ordered = sorted(lat)
    p50, p99 = ordered[len(lat) // 2], ordered[int(len(lat) * 0.99)]
    slow_us = float(os.environ.get("SLOW_US", slow_factor * p50))
    slow = [i for i, x in enumerate(lat) if x > slow_us]
    after = []
    for k in range(1, 9):
        xs = [lat[i + k] for i in slow if i + k < len(lat) and lat[i + k] <= slow_us]
        after.append(sum(xs) / len(xs) if xs else float("nan"))
    over_p99 = sum(1 for x in lat if x > p99)
    near = set()
    for i in slow:
        near.update(range(i, min(i + 9, len(lat))))
    in_tail = sum(1 for i, x in enumerate(lat) if x > p99 and i in near)
    print("%s: n %d, p50 %.1f us, p99 %.1f us; %d slow (> %.0f us, %.2f %%); of the %d above p99, %d are a slow one or within 8 after one" % (os.path.basename(path), len(lat), p50, p99, len(slow), slow_us, 100.0 * len(slow) / len(lat), over_p99, in_tail))
    print("  mean latency of the k-th lookup after a slow one (us): " + " ".join("%d:%.1f" % (k + 1, v) for k, v in enumerate(after)))
