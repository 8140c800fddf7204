#!/usr/bin/env python3
"""Sums the barrier's gaps per job from the lines barrier_gaps.patch prints (stdin):
the last worker's wait from the coordinator's START to seeing it, the coordinator's from the
last worker's finish to seeing it, and its own time from that to being ready for the next
superstep. Usage, with the patch applied:
  bin/carafe sssp --hops -r 276617 --algorithm pregel -g livejournal-synthetic --trials 3 2>&1 | docs/measure/barrier_gaps.py
"""
import re
import sys

jobs, current = [], []
for line in sys.stdin:
    m = re.match(r"BARRIER +([\d.]+) ms (.*)", line)
    if not m:
        continue
    t, what = float(m.group(1)), m.group(2).strip()
    if what == "c start s0" and current:
        jobs.append(current)
        current = []
    current.append((t, what))
if current:
    jobs.append(current)
for j, events in enumerate(jobs, 1):
    start, seen, done, finished = {}, {}, {}, {}
    coordinator_wake = own = 0.0
    for t, what in events:
        kind, s = what.rsplit(" s", 1)
        if kind == "c start":
            start[s] = t
        elif kind.endswith("start seen"):
            seen[s] = max(seen.get(s, 0.0), t - start[s])
        elif kind.endswith("step done"):
            done[s] = max(done.get(s, 0.0), t)
        elif kind == "c all finished":
            finished[s] = t
            coordinator_wake += t - done[s]
        elif kind == "c next ready":
            own += t - finished[s]
    span = events[-1][0] - events[0][0]
    print(f"job {j}: {len(start)} supersteps in {span:.1f} ms; last worker to see START {sum(seen.values()):.1f} ms,"
          f" coordinator to see the last finish {coordinator_wake:.1f} ms, coordinator between supersteps {own:.1f} ms")
