# SPDX-License-Identifier: GPL-2.0
"""The report of scripts/mutate.py: counts per folder, the kill rate with its
95 % Wilson interval, the survivors with their diff, the JSON file, and in
--ci mode one line per run mutant and 'N passed, N failed, N skipped'.

And its reviewed lists, one mutant a line, 'ID  text':
  mutate-equivalent.txt  equivalent mutants, each with why (by hand)
  mutate-survivors.txt   known survivors: untested behaviour, the debt (by hand,
                         or 'not reviewed yet' from --record)
  mutate-killed.txt      mutants a measured run killed, with the suite that did
                         (written by --record): the population the CI tier samples
A mutant matches an entry by the hash after '#' in its ID; the rest of the ID
(file:line:col:operator:replacement) is for the reader."""
import json
import os

import mutate_ops as ops

UNREVIEWED = 'not reviewed yet'


def read_list(path):
    """hash -> (id, text)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            mid, _, text = line.partition(' ')
            out[mid.rpartition('#')[2]] = (mid, text.strip())
    return out


def header(path):
    if not os.path.exists(path):
        return ''
    with open(path) as f:
        return ''.join(l for l in f if l.startswith('#'))


def write_list(path, entries, head):
    """entries: hash -> (id, text), written sorted by ID."""
    with open(path, 'w') as f:
        f.write(head)
        for mid, text in sorted(entries.values()):
            f.write('%s  %s\n' % (mid, text))


def record(report_json, killed_path, survivors_path, equivalent_path, pop_hashes):
    """Merges a measured run into the lists: its kills into the killed list
    (dropping entries no mutant has now), its new survivors into the known
    survivors as not reviewed yet, and a known survivor now killed out of
    it.  The equivalent list is only checked: it is written by hand."""
    with open(report_json) as f:
        rep = json.load(f)
    killed, known = read_list(killed_path), read_list(survivors_path)
    equiv = read_list(equivalent_path)
    added = dropped = 0
    for h in [h for h in killed if h not in pop_hashes]:
        del killed[h]
        dropped += 1
    for r in rep['results']:
        h = r['hash']
        if r['status'] in ('killed', 'timeout'):
            killed[h] = (r['id'], r['suite'] or '-')
            if h in known:
                print('now killed, out of the known survivors: %s (%s)' % (r['id'], known[h][1]))
                del known[h]
        elif r['status'] == 'survived' and h not in known and h not in equiv:
            known[h] = (r['id'], '%s (seed %s)' % (UNREVIEWED, rep['seed']))
            added += 1
        elif r['status'] == 'survived' and h in killed:
            del killed[h]
    for name, lst in (('survivors', known), ('equivalent', equiv)):
        for h, (mid, _) in lst.items():
            if h not in pop_hashes:
                print('stale entry of the %s list (no such mutant now): %s' % (name, mid))
    write_list(killed_path, killed, header(killed_path) or
               '# Mutants killed by a measured run (scripts/mutate.py --record): ID, suite.\n')
    write_list(survivors_path, known, header(survivors_path))
    print('mutate: %d killed recorded (%d stale dropped), %d new survivors listed as "%s"'
          % (len(killed), dropped, added, UNREVIEWED))
    return 0


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
                    'flaky_suites': r.get('flaky', []),
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
    byop = {}
    for m, r in results:
        c = byop.setdefault(m.op, [0, 0])
        c[0] += r['status'] in ('killed', 'timeout')
        c[1] += r['status'] in ('killed', 'timeout', 'survived')
    print('by operator: ' + ', '.join('%s %d/%d' % (o, k, n) for o, (k, n) in sorted(byop.items())))
    secs_run = [r.get('seconds', 0) for _, r in results]
    if secs_run:
        print('mean time of a mutant (one worker): %.1f s; all %d of the population: about %.1f h '
              'on %d workers' % (sum(secs_run) / len(secs_run), npop, npop * sum(secs_run) /
                                 len(secs_run) / max(1, args.jobs) / 3600, max(1, args.jobs)))
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
        print('%d passed, %d failed, %d skipped' % (p + args.self_pass, len(new) + args.self_fail,
                                                    len(survivors) - len(new)))
    return 1 if args.ci and (new or args.self_fail) else 0


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
