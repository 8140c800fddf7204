#!/usr/bin/env python3
"""Where an 8-byte RDMA read's time goes on SoftRoCE, from the ftrace windows that
docs/measure/rdma_guest_trace.patch keeps (trace-TAG-N.txt in a boot's rdma-bench-TIME).

A read is the time from one post (the 32-byte write(2) on the uverbs descriptor that
rdma-core's rxe provider makes for every ibv_post_send) to the next, in intervals that raise
a tasklet (rxe's read responder; writes raise none). Per tag it prints the median of the
whole interval, of the post's system call, and of what follows it (polling, the caller's
own code, the clock), and per read: whether the responder ran inline in the poster's
system call, how often ksoftirqd was switched in, other tasks switched in, system calls.

    python3 docs/measure/rxe_trace.py rstore-server/target/rdma-bench-TIME
"""
import collections
import glob
import re
import statistics
import sys

EVENT = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s*(.*)$')


def load(path):
    events = []
    with open(path) as f:
        for line in f:
            m = EVENT.match(line)
            if m:
                comm, pid, cpu, ts, name, rest = m.groups()
                events.append((float(ts) * 1e6, int(cpu), comm.strip(), int(pid), name, rest))
    return events


def is_post(e, pid=None):
    return (e[4] == 'sys_enter' and e[5].startswith('NR 1 ') and e[5].split(', ')[2] == '20'
            and (pid is None or e[3] == pid))


def reads(path):
    events = load(path)
    posters = collections.Counter(e[3] for e in events if is_post(e))
    if not posters or posters.most_common(1)[0][1] < 50:
        return []
    poster = posters.most_common(1)[0][0]
    posts = [i for i, e in enumerate(events) if is_post(e, poster)]
    out = []
    for a, b in zip(posts, posts[1:]):
        span = events[a:b]
        if not any(e[4] == 'softirq_raise' and 'TASKLET' in e[5] for e in span):
            continue  # a write: rxe answers it without a tasklet
        start = events[a][0]
        exits = [e for e in span if e[3] == poster and e[4] == 'sys_exit' and e[5].startswith('NR 1 ')]
        entries = [e for e in span if e[4] == 'softirq_entry' and 'TASKLET' in e[5]]
        out.append({
            'total': events[b][0] - start,
            'syscall': exits[0][0] - start if exits else None,
            'after': events[b][0] - exits[0][0] if exits else None,
            'inline': bool(entries) and entries[0][3] == poster,
            'ksoftirqd': sum(1 for e in span if e[4] == 'sched_switch' and 'next_comm=ksoftirqd' in e[5]),
            'others': sum(1 for e in span if e[4] == 'sched_switch' and 'ksoftirqd' not in e[5] and 'idle' not in e[5]),
            'syscalls': sum(1 for e in span if e[3] == poster and e[4] == 'sys_enter'),
        })
    return out


def median(rows, key):
    values = [r[key] for r in rows if r[key] is not None]
    return round(statistics.median(values), 1) if values else float('nan')


def main(directory):
    tags = sorted({re.sub(r'-\d+\.txt$', '', p.split('trace-', 1)[1]) for p in glob.glob(f'{directory}/trace-*.txt')})
    print('tag  reads  total_us  syscall_us  after_us  inline  ksoftirqd/read  others/read  syscalls/read')
    for tag in tags:
        rows = [r for p in sorted(glob.glob(f'{directory}/trace-{tag}-*.txt')) for r in reads(p)]
        if not rows:
            print(tag, 'no reads in its windows')
            continue
        n = len(rows)
        print(f"{tag}  {n}  {median(rows, 'total')}  {median(rows, 'syscall')}  {median(rows, 'after')}  "
              f"{sum(r['inline'] for r in rows) / n:.2f}  {sum(r['ksoftirqd'] for r in rows) / n:.2f}  "
              f"{sum(r['others'] for r in rows) / n:.3f}  {sum(r['syscalls'] for r in rows) / n:.2f}")


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '.')
