# SPDX-License-Identifier: GPL-2.0
"""The reviewed lists of scripts/mutate.py, one mutant a line, 'ID  text':
  mutate-equivalent.txt  equivalent mutants, each with why (by hand)
  mutate-survivors.txt   known survivors: untested behaviour, the debt (by hand,
                         or 'not reviewed yet' from --record)
  mutate-killed.txt      mutants a measured run killed, with the suite that did
                         (written by --record): the population the CI tier samples
A mutant matches an entry by the hash after '#' in its ID; the rest of the ID
(file:line:col:operator:replacement) is for the reader."""
import json
import os

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
