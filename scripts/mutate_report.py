# SPDX-License-Identifier: GPL-2.0
"""The report of scripts/mutate.py: counts per folder, the kill rate with its
95 % Wilson interval, the survivors with their diff, the JSON file, and in
--ci mode one line per run mutant and 'N passed, N failed, N skipped'."""
import json

import mutate_ops as ops

STATES = ('killed', 'timeout', 'survived', 'equivalent', 'invalid')


def report(args, prof, results, srcs, seed, npop, suites, equiv, known, secs, folder, wilson):
    rows, out = {}, []
    for m, r in results:
        d = rows.setdefault(folder(m.path, prof), dict.fromkeys(STATES + ('known',), 0))
        d[r['status']] += 1
        d['known'] += bool(r.get('known'))
        out.append({'id': m.id, 'hash': m.hash, 'file': m.path, 'line': m.line, 'col': m.col,
                    'function': m.func, 'op': m.op, 'status': r['status'],
                    'known_survivor': r.get('known'), 'suite': r.get('suite', ''),
                    'detail': r.get('detail', ''), 'seconds': r.get('seconds', 0),
                    'diff': list(ops.diff_lines(m, srcs[m.path]))})
    survivors = [(m, r) for m, r in results if r['status'] == 'survived']
    new = [(m, r) for m, r in survivors if not r.get('known')]
    if args.ci:
        ci_lines(results, srcs)
    print('\nmutate: seed %d, %d of %d mutants (%s), %.0f s, suites: %s' % (
        seed, len(results), npop, args.mutants, secs, ' '.join(s['name'] for s in suites)))
    print('%-18s %7s %7s %8s %6s %10s %7s  %s' % ('folder', 'killed', 'timeout', 'survived',
                                                 '(known)', 'equivalent', 'invalid',
                                                 'kill rate [95% Wilson]'))
    tot = dict.fromkeys(STATES + ('known',), 0)
    for d in sorted(rows) + ['all']:
        c = rows[d] if d != 'all' else tot
        if d != 'all':
            for k in tot:
                tot[k] += c[k]
        k, n = c['killed'] + c['timeout'], c['killed'] + c['timeout'] + c['survived']
        lo, hi = wilson(k, n)
        rate = '%5.1f %% [%.1f, %.1f] of %d' % (100.0 * k / n, 100 * lo, 100 * hi, n) if n else '-'
        print('%-18s %7d %7d %8d %6s %10d %7d  %s' % (d, c['killed'], c['timeout'], c['survived'],
                                                     '(%d)' % c['known'], c['equivalent'],
                                                     c['invalid'], rate))
    if survivors:
        print('\nsurvivors (%d, %d not in %s):' % (len(survivors), len(new), args.survivors))
        for m, r in sorted(survivors, key=lambda x: x[0].id):
            a, b = ops.diff_lines(m, srcs[m.path])
            print('%s%s\n    %s\n    %s' % ('' if r.get('known') else 'NEW ', m.id, a[:160], b[:160]))
            if r.get('detail'):
                print('    (%s)' % r['detail'])
    killed_known = [(m, r) for m, r in results if r['status'] in ('killed', 'timeout')
                    and m.hash in known]
    for m, r in killed_known:
        print('now killed, remove from %s: %s' % (args.survivors, m.id))
    pop = getattr(args, 'pop_hashes', None)
    for name, lst in (('equivalent', equiv), ('survivors', known)):
        stale = [v[0] for h, v in lst.items() if pop is not None and h not in pop]
        for s in stale:
            print('stale entry of the %s list (no such mutant now): %s' % (name, s))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'seed': seed, 'profile': args.profile, 'mutants': args.mutants,
                       'population': npop, 'seconds': round(secs),
                       'suites': [{'name': s['name'], 'secs': s['secs']} for s in suites],
                       'folders': rows, 'results': out}, f, indent=1)
        print('mutate: JSON report in %s' % args.json)
    if args.ci:
        p = sum(1 for _, r in results if r['status'] in ('killed', 'timeout'))
        print('%d passed, %d failed, %d skipped' % (p, len(new), len(survivors) - len(new)))
    return 1 if args.ci and new else 0


def ci_lines(results, srcs):
    for m, r in results:
        st = r['status']
        if st in ('killed', 'timeout'):
            print('ok - mutant %s %s by %s' % (m.id, st, r['suite']))
        elif st == 'survived' and r.get('known'):
            print('ok - mutant %s # SKIP known survivor: %s' % (m.id, r['known']))
        elif st == 'survived':
            a, b = ops.diff_lines(m, srcs[m.path])
            print('not ok - mutant %s survived (a new survivor)\n#   %s\n#   %s' % (m.id, a, b))
            print('#   kill it with a test, or list it in scripts/mutate-equivalent.txt '
                  '(with why) or scripts/mutate-survivors.txt')
        else:
            print('# mutant %s %s: %s' % (m.id, st, r.get('detail', '')))
