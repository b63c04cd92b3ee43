#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of gpuprobe's C code: small faults put in one at a time
(scripts/mutate_ops.py), each built and run against the host tests
(scripts/mutate_run.py) in scratch copies under build/mutate/.  A mutant the
tests fail on is killed; one they pass survived.  Documentation/testing.md.

  scripts/mutate.py --count               the population, per folder and operator
  scripts/mutate.py --mutants 300         a seeded sample of 300 run mutants
  scripts/mutate.py --mutants all         every mutant
  scripts/mutate.py --ci --mutants 40     make test's tier: fails on a new survivor
  scripts/mutate.py --show ID             one mutant's diff (ID or its #hash)
"""
import argparse
import glob
import json
import math
import os
import random
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate_ops as ops		# noqa: E402
import mutate_run as runner		# noqa: E402
import mutate_report as report		# noqa: E402
from mutate_report import read_list, record	# noqa: E402

TOP = os.path.dirname(HERE)
# what the shell suites run: the tool and the trace generators; inject.sh
# also the application tracing libraries (grep of user/tests/*.sh)
SHELL_BINS = ['user/gpuprobe-trace', 'user/tests/gentrace', 'user/tests/benchrun']
INJECT_BINS = SHELL_BINS + ['inject/libgpuprobe_opencl.so', 'inject/libgpuprobe_cupti.so',
                            'inject/tests/ocl_app']


def suite(name, argv, secs, binaries=SHELL_BINS, cwd='user/tests', flaky=None):
    """flaky: a suite that records, serves or waits on real time; on the
    loaded 2-core machine it failed now and then on mutants it cannot see
    (seed 2026's kills that did not repeat in the CI tier), so a kill by it
    counts only when a second run fails too."""
    return {'name': name, 'argv': argv, 'secs': secs, 'binaries': binaries, 'cwd': cwd,
            'flaky': flaky if flaky is not None else argv[0].endswith('.sh')}


# user/tests/run.sh's suites without its memcheck duplicates; secs: their
# time alone on the 2-core dev machine (2026-12-01), the order and the time
# bound when --no-baseline skips measuring them.
USER_SUITES = [
    suite('unit', ['./test_unit'], 5.6, ['user/tests/test_unit']),
    suite('tracefs-decode', ['./test_tracefs', 'formats'], 0.4, ['user/tests/test_tracefs']),
    suite('netlink-request', ['./test_netlink'], 0.3, ['user/tests/test_netlink']),
    suite('cli', ['./cli.sh'], 2.9),
    suite('native-tracefs', ['./native_tracefs.sh'], 7.0),
    suite('serve-prometheus', ['./serve_prometheus.sh'], 15.6),
    suite('perfetto-proto', ['./perfetto_proto.sh'], 0.7),
    suite('perfetto-parts', ['./perfetto_parts.sh'], 1.0),
    suite('never-lose', ['./never_lose.sh'], 6.5),
    suite('agent', ['./agent.sh'], 14.0),
    suite('json-inputs', ['./json_inputs.sh'], 4.3),
    suite('probe', ['./probe.sh'], 4.9),
    suite('probe-edu', ['./probe_edu.sh'], 1.1),
    suite('inject', ['./inject.sh'], 3.9, INJECT_BINS),
    suite('explain', ['./test_explain'], 0.1, ['user/tests/test_explain']),
    suite('explain-h200', ['./explain.sh'], 1.0),
    suite('perfetto-export', ['./export_check.sh'], 2.0),
    suite('outputs', ['./outputs.sh'], 2.0),
    suite('refuse', ['./refuse.sh'], 3.0),
    suite('damage', ['./damage.sh'], 2.0),
    suite('verdict', ['./verdict.sh'], 1.0),
    suite('cmdline', ['./cmdline.sh'], 3.0),
    suite('delivery', ['./delivery.sh'], 1.0),
    suite('committed-traces', ['./traces.sh'], 2.0),
    suite('layers', ['./layers.sh'], 0.2),
    suite('names', ['./names.sh'], 2.0),
    suite('iommu-parts', ['./iommu_parts.sh'], 1.0),
    suite('cgroup-args', ['./cgroup_args.sh'], 1.0),
    suite('cgroup-tracefs', ['./cgroup_tracefs.sh'], 2.0),
    suite('tracefs-container', ['./tracefs_container.sh'], 9.9),
    suite('container-opencl', ['./container_opencl.sh'], 3.0),
    suite('xentrace', ['./xentrace.sh'], 3.2),
]
MEMCHECK = ['valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
            '--errors-for-leak-kinds=definite']
MEMCHECK_SUITES = [
    suite('memcheck-unit', MEMCHECK + ['./test_unit'], 60, ['user/tests/test_unit']),
    suite('memcheck-tracefs-decode', MEMCHECK + ['./test_tracefs', 'formats'], 10,
          ['user/tests/test_tracefs']),
    suite('memcheck-explain', MEMCHECK + ['./test_explain'], 5, ['user/tests/test_explain']),
]

# What a target is: the folders mutated, what is copied into the scratch
# tree (read-only folders are linked), how it is rebuilt, and the tests.
PROFILES = {
    'user': {
        'dirs': ['user/lib', 'user/analysis', 'user/output', 'user/source', 'inject'],
        # kernels/: user/'s make regenerates its fatbin array each time
        'copy': ['user', 'inject', 'include', 'kernels'],
        # kmod/gpuprobe.h: the one version (user/version.h is made from it)
        'link': ['Documentation', 'kmod/gpuprobe.h', 'completion'],
        'watch': ['user', 'inject', 'kernels'],
        # the tool and the test programs: a goal of our own after the Makefile
        'makefile': ('.mutate.mk', 'mutate-build: $(PROG) $(TEST_PROGS)\n'),
        'build': [['make', '-s', '-C', 'user', '-f', 'Makefile', '-f', '../.mutate.mk',
                   'mutate-build'],
                  ['make', '-s', '-C', 'inject']],
        'suites': USER_SUITES,
    },
    # The module against the VM tier (make mutate-kmod, not in CI): one VM
    # boot per surviving suite run, minutes per mutant.
    'kmod': {
        'dirs': ['kmod'],
        'copy': ['kmod', 'include', 'selftests', 'scripts', 'user', 'Kbuild', 'Makefile',
                 'install.mk'],
        'link': ['Documentation', 'kernels', 'build/ksrc', 'build/vm'],
        'watch': ['kmod'],
        'build': [['make', '-s', 'modules']],
        'suites': [suite('vm', ['scripts/vmtest.sh', '-q'], 600, ['kmod/gpuprobe.ko'], cwd='.')],
        'build_timeout': 900,
    },
}


def population(prof, tables=True, leaks=False):
    files = sorted(f for d in prof['dirs'] for f in glob.glob(os.path.join(TOP, d, '**', '*.c'),
                                                              recursive=True)
                   if '/tests/' not in f)
    heads = glob.glob(os.path.join(TOP, 'user', '**', '*.h'), recursive=True) + \
        glob.glob(os.path.join(TOP, 'inject', '*.h')) + \
        glob.glob(os.path.join(TOP, 'include', '**', '*.h'), recursive=True) + \
        glob.glob(os.path.join(TOP, 'kmod', '*.h'))
    srcs = {os.path.relpath(f, TOP): open(f).read() for f in files}
    types = ops.typedef_names([open(h).read() for h in heads] + list(srcs.values()))
    muts = []
    for rel, src in srcs.items():
        muts += ops.mutants_of(rel, src, types, tables=tables, leaks=leaks)
    return muts, srcs


def folder(path, prof):
    return max((d for d in prof['dirs'] if path.startswith(d + '/')), key=len, default='?')


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 0.0
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def setup(prof, work, baseline, log):
    """The pristine tree, built; its manifest; the suites in time order."""
    pristine = os.path.join(work, 'pristine')
    os.makedirs(pristine, exist_ok=True)
    for d in prof['copy']:
        src = os.path.join(TOP, d)
        if os.path.isdir(src):
            runner.subprocess.run(['rsync', '-a', '--delete', '--exclude=*.nodebug',
                                   src + '/', os.path.join(pristine, d) + '/'], check=True)
        elif os.path.exists(src):
            runner.subprocess.run(['rsync', '-a', src, os.path.join(pristine, d)], check=True)
    for d in prof['link']:
        dst = os.path.join(pristine, d)
        if os.path.exists(os.path.join(TOP, d)) and not os.path.lexists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(os.path.join(TOP, d), dst)
    if prof.get('makefile'):
        with open(os.path.join(pristine, prof['makefile'][0]), 'w') as f:
            f.write(prof['makefile'][1])
    for argv in prof['build']:
        rc, out = runner.sh(argv, pristine, timeout=1800)
        if rc != 0:
            sys.exit('mutate: the pristine tree does not build:\n' + out[-2000:])
    suites = [dict(s) for s in prof['suites']]
    if baseline:
        tree = runner.Tree(prof, pristine, os.path.join(work, 'baseline'),
                           runner.manifest(pristine, prof['watch']))
        for s in suites:
            st, detail, secs = runner.run_suite(tree, s, timeout=max(60, 10 * s['secs']))
            if st != 'pass':
                sys.exit('mutate: suite %s fails on the pristine tree: %s' % (s['name'], detail))
            s['secs'] = round(secs, 1)
            tree.restore()
        log('mutate: baseline %s' % ', '.join('%s %.1f s' % (s['name'], s['secs'])
                                              for s in suites))
    suites.sort(key=lambda s: s['secs'])
    return pristine, runner.manifest(pristine, prof['watch']), suites


class Sample:
    """Hands the shuffled mutants to the workers until the shortest prefix of
    the order holding `want` run mutants (killed, timeout, survived) is done:
    the same seed gives the same set however the workers interleave."""

    def __init__(self, order, want, deadline=None):
        self.order, self.want, self.deadline = order, want, deadline
        self.next, self.results, self.cv = 0, {}, threading.Condition()
        self.inflight = 0

    def counted(self, r):
        return r['status'] in ('killed', 'timeout', 'survived')

    def prefix(self):
        n, out = 0, []
        for i in range(len(self.order)):
            if i not in self.results:
                return out, False
            out.append(i)
            n += self.counted(self.results[i])
            if self.want is not None and n >= self.want:
                return out, True
        return out, True

    def take(self):
        with self.cv:
            while True:
                done = self.prefix()[1]
                if done or self.next >= len(self.order) or \
                   (self.deadline and time.monotonic() > self.deadline):
                    return None
                counted = sum(self.counted(r) for r in self.results.values())
                if self.want is None or counted + self.inflight < self.want:
                    self.next, self.inflight = self.next + 1, self.inflight + 1
                    return self.next - 1
                self.cv.wait()

    def put(self, i, r):
        with self.cv:
            self.results[i] = r
            self.inflight -= 1
            self.cv.notify_all()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--profile', default='user', choices=sorted(PROFILES))
    ap.add_argument('--mutants', default='300', help="run mutants to sample, or 'all'")
    ap.add_argument('--seed', type=int, help='the sample (default: a random one, printed)')
    ap.add_argument('--jobs', type=int, default=os.cpu_count(), help='parallel workers (nproc)')
    ap.add_argument('--files', nargs='*', help='only these files (paths from the top)')
    ap.add_argument('--ops', help='only these operators, comma-separated')
    ap.add_argument('--no-tables', dest='tables', action='store_false',
                    help='leave out the constants of file-scope tables')
    ap.add_argument('--leaks', action='store_true',
                    help='also drop release calls (free, fclose, ...), with the memcheck suites')
    ap.add_argument('--memcheck', action='store_true', help='add the valgrind suites')
    ap.add_argument('--no-baseline', action='store_true',
                    help='do not run the suites on the pristine tree first (the times of the table)')
    ap.add_argument('--max-minutes', type=float,
                    help='start no mutant after this; the report covers the mutants done in order')
    ap.add_argument('--timeout-factor', type=float, default=5.0)
    ap.add_argument('--work', default=os.path.join(TOP, 'build', 'mutate'))
    ap.add_argument('--json', help='the machine-readable report')
    ap.add_argument('--equivalent', default=os.path.join(HERE, 'mutate-equivalent.txt'))
    ap.add_argument('--survivors', default=os.path.join(HERE, 'mutate-survivors.txt'))
    ap.add_argument('--killed', default=os.path.join(HERE, 'mutate-killed.txt'))
    ap.add_argument('--record', metavar='JSON',
                    help="merge a run's report into the killed and known-survivor lists")
    ap.add_argument('--ci', action='store_true',
                    help="sample the recorded kills only; TAP-like lines and "
                    "'N passed, N failed, N skipped'; fail on a new survivor")
    ap.add_argument('--count', action='store_true', help='count the population and stop')
    ap.add_argument('--list', action='store_true', help='list the sample and stop')
    ap.add_argument('--show', nargs='*', help='print these mutants (IDs or hashes) and stop')
    ap.add_argument('--run', nargs='*', help='run just these mutants (IDs or hashes)')
    args = ap.parse_args()
    prof = dict(PROFILES[args.profile])
    muts, srcs = population(prof, args.tables, args.leaks)
    if args.files:
        muts = [m for m in muts if m.path in args.files]
    if args.ops:
        muts = [m for m in muts if m.op in args.ops.split(',')]
    by_hash = {m.hash: m for m in muts}
    if not (args.files or args.ops):
        args.pop_hashes = set(by_hash)
    if args.count:
        return count(muts, prof)
    if args.record:
        return record(args.record, args.killed, args.survivors, args.equivalent, set(by_hash))
    killed = read_list(args.killed)
    args.self_pass = args.self_fail = 0
    if args.ci:
        for name, ok in ops.selftest():
            print('%s - mutate operators: %s' % ('ok' if ok else 'not ok', name))
            args.self_pass += ok
            args.self_fail += not ok
        # The gate: what measured runs killed must stay killed.  Mutants no
        # run has classified are make mutate's: at the kill rates of
        # Documentation/testing.md a sample of them would fail at random.
        muts = [m for m in muts if m.hash in killed]
        if not muts:
            print('not ok - no recorded kill in %s (make mutate, then --record)\n'
                  '%d passed, %d failed, 0 skipped' % (args.killed, args.self_pass, args.self_fail + 1))
            return 1
        for m in muts:
            m.tags = m.tags + ('suite=' + killed[m.hash][1],)
    if args.show is not None:
        for h in args.show:
            m = by_hash.get(h.rpartition('#')[2])
            if not m:
                print('%s: no such mutant' % h)
                continue
            print(m.id)
            print('\n'.join(ops.diff_lines(m, srcs[m.path])))
        return 0
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), 'little') % 1000000
    order = sorted(muts, key=lambda m: m.key)
    random.Random(seed).shuffle(order)
    want = None if args.mutants == 'all' else int(args.mutants)
    if args.run is not None:
        hs = [h.rpartition('#')[2] for h in args.run]
        order, want = [by_hash[h] for h in hs if h in by_hash], None
    flags = ''.join(f for f, on in ((' --ci', args.ci), (' --no-tables', not args.tables),
                                     (' --leaks', args.leaks)) if on)
    flags += ''.join(' --%s %s' % (k, v) for k, v in (('ops', args.ops), ('files', ' '.join(args.files or [])))
                     if v)
    print('mutate: seed %d (rerun: scripts/mutate.py%s --seed %d --mutants %s); population %d'
          % (seed, flags, seed, args.mutants, len(muts)), flush=True)
    if args.list:
        for m in order[:want]:
            print(m.id)
        return 0
    return run(args, prof, order, want, srcs, seed, len(muts))


def count(muts, prof):
    per = {}
    for m in muts:
        d = per.setdefault(folder(m.path, prof), {})
        d[m.op] = d.get(m.op, 0) + 1
    opnames = sorted({m.op for m in muts})
    print('%-16s %s %7s' % ('folder', ' '.join('%6s' % o for o in opnames), 'total'))
    for d in sorted(per):
        print('%-16s %s %7d' % (d, ' '.join('%6d' % per[d].get(o, 0) for o in opnames),
                                sum(per[d].values())))
    print('%-16s %s %7d' % ('all', ' '.join('%6d' % sum(p.get(o, 0) for p in per.values())
                                               for o in opnames), len(muts)))
    return 0


def run(args, prof, order, want, srcs, seed, npop):
    equiv, known = read_list(args.equivalent), read_list(args.survivors)
    log = lambda s: print(s, flush=True)
    if args.memcheck or args.leaks:
        prof['suites'] = prof['suites'] + MEMCHECK_SUITES
    t0 = time.monotonic()
    pristine, pman, suites = setup(prof, args.work, not args.no_baseline, log)
    objs = {os.path.basename(p) for p in pman if p.endswith('.o')}
    unbuilt = sorted({m.path for m in order
                      if os.path.basename(m.path)[:-2] + '.o' not in objs})
    if unbuilt:
        log('mutate: not built here, left out: %s' % ' '.join(unbuilt))
        order = [m for m in order if m.path not in unbuilt]
    timeouts = {s['name']: args.timeout_factor * s['secs'] + 20 for s in suites}
    log('mutate: suites in order: %s' % ' '.join(s['name'] for s in suites))
    sample = Sample(order, want, args.max_minutes and t0 + 60 * args.max_minutes)
    total = want or len(order)

    verified, vlock, broken = {}, threading.Lock(), []

    def pristine_fails(tree, name):
        """Without a baseline, a suite's first kill is checked on the
        pristine tree: a suite failing there would kill every mutant."""
        with vlock:
            if name not in verified:
                s = next(x for x in suites if x['name'] == name)
                verified[name] = runner.run_suite(tree, s, timeouts[name])
                tree.restore()
        return verified[name][0] != 'pass'

    def first(m):			# the suite that killed it last time, first
        want = [t[6:] for t in m.tags if t.startswith('suite=')]
        return sorted(suites, key=lambda s: s['name'] not in want)

    def worker(n):
        tree = None
        while True:
            i = sample.take()
            if i is None:
                return
            m = order[i]
            if m.hash in equiv:
                r = {'status': 'equivalent', 'detail': 'reviewed: ' + equiv[m.hash][1],
                     'seconds': 0, 'suite': ''}
            else:
                tree = tree or runner.Tree(prof, pristine, os.path.join(args.work, 'w%d' % n), pman)
                r = runner.run_mutant(tree, m, srcs[m.path], first(m), timeouts)
                if r['status'] == 'killed' and args.no_baseline and pristine_fails(tree, r['suite']):
                    log('mutate: suite %s fails on the pristine tree (%s): no verdict is sound'
                        % (r['suite'], verified[r['suite']][1]))
                    r['status'], sample.deadline = 'invalid', time.monotonic()
                    broken.append(r['suite'])
                if r['status'] == 'survived' and m.hash in known:
                    r['known'] = known[m.hash][1]
            sample.put(i, r)
            done = sum(sample.counted(x) for x in sample.results.values())
            log('[%d/%d %.0fs] %-10s %s%s' % (done, total, time.monotonic() - t0, r['status'], m.id,
                                             ' (%s)' % r['suite'] if r.get('suite') else ''))
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if broken:
        print('%d passed, %d failed, 0 skipped' % (args.self_pass, args.self_fail + len(broken))
              if args.ci else '')
        return 2
    idx = sample.prefix()[0]
    results = [(order[i], sample.results[i]) for i in idx]
    return report.report(args, prof, results, srcs, seed, npop, suites, equiv, known,
                         time.monotonic() - t0, folder, wilson)


if __name__ == '__main__':
    sys.exit(main())
