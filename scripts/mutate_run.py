# SPDX-License-Identifier: GPL-2.0
"""The scratch trees of scripts/mutate.py and one mutant's run in one of
them: write the mutant, rebuild incrementally, compare the objects with the
pristine ones, run the suites fastest first, put the tree back."""
import errno
import filecmp
import os
import re
import shutil
import signal
import subprocess
import time

SUMMARY_RE = re.compile(r'^([0-9]+) passed, ([0-9]+) failed', re.M)


def sh(argv, cwd, timeout=None, env=None):
    """(rc, output); rc None on timeout.  Each command in a session of its
    own, so that a timeout kills what it started (servers, agents) too."""
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors='replace')
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode(errors='replace')
    finally:
        try:			# what the suite left running in its session
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def manifest(root, dirs):
    """relpath -> (size, mtime_ns) of every file under root/dirs."""
    out = {}
    for d in dirs:
        for base, subdirs, files in os.walk(os.path.join(root, d)):
            for f in files:
                p = os.path.join(base, f)
                st = os.lstat(p)
                out[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return out


class Tree:
    """A worker's copy of the pristine tree."""

    def __init__(self, profile, pristine, root, pman):
        self.profile, self.pristine, self.root, self.pman = profile, pristine, root, pman
        self.stripped = {}		# pristine object -> its bytes without debug info
        os.makedirs(root, exist_ok=True)
        subprocess.run(['rsync', '-a', '--delete', pristine + '/', root + '/'], check=True)

    def changed(self):
        """Paths that differ from the pristine tree, and paths it lacks."""
        now = manifest(self.root, self.profile['watch'])
        diff = [p for p, v in now.items() if self.pman.get(p) != v]
        return diff, [p for p in self.pman if p not in now]

    def restore(self):
        diff, missing = self.changed()
        for p in diff + missing:
            dst = os.path.join(self.root, p)
            if p in self.pman:
                try:
                    shutil.copy2(os.path.join(self.pristine, p), dst)
                except OSError as e:	# a binary a dying suite still runs: a new inode
                    if e.errno != errno.ETXTBSY:
                        raise
                    os.unlink(dst)
                    shutil.copy2(os.path.join(self.pristine, p), dst)
            else:
                os.unlink(dst)

    def strip(self, path):
        out = path + '.nodebug'
        r = subprocess.run(['objcopy', '--strip-debug', path, out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode:
            return None
        with open(out, 'rb') as f:
            data = f.read()
        os.unlink(out)
        return data

    def same_code(self, objs):
        """Do the rebuilt objects hold the pristine ones' code and data?"""
        for o in objs:
            p = os.path.join(self.pristine, o)
            if o not in self.stripped:
                tmp = os.path.join(self.root, o + '.pristine')
                shutil.copy2(p, tmp)
                self.stripped[o] = self.strip(tmp)
                os.unlink(tmp)
            new = self.strip(os.path.join(self.root, o))
            if new is None or new != self.stripped[o]:
                return False
        return True

    def binaries_changed(self, paths):
        for b in paths:
            p, q = os.path.join(self.root, b), os.path.join(self.pristine, b)
            if os.path.exists(p) != os.path.exists(q):
                return True
            if os.path.exists(p) and not filecmp.cmp(p, q, shallow=False):
                return True
        return False


def run_suite(tree, suite, timeout):
    """'pass', 'fail' or 'timeout', with the first failing line and the time."""
    t0 = time.monotonic()
    rc, out = sh(suite['argv'], os.path.join(tree.root, suite['cwd']), timeout=timeout)
    secs = time.monotonic() - t0
    if rc is None:
        return 'timeout', 'no end after %.0f s' % timeout, secs
    m = SUMMARY_RE.findall(out)
    first = next((l for l in out.splitlines() if l.startswith(('FAIL', 'not ok'))), '')
    if rc != 0 or not m or int(m[-1][1]) > 0:
        last = (out.strip().splitlines()[-1:] or ['exit %s' % rc])[0]
        return 'fail', (first or last)[:200], secs
    return 'pass', '', secs


def tracefs_leftovers():
    """gpuprobe tracefs instances and kprobe groups whose process is gone."""
    inst, groups = [], set()
    root = '/sys/kernel/tracing'
    try:
        names = os.listdir(os.path.join(root, 'instances'))
    except OSError:
        names = []
    for n in names:
        m = re.match(r'^gpuprobe-([0-9]+)', n)
        if m and not os.path.exists('/proc/' + m.group(1)):
            inst.append(n)
    try:
        with open(os.path.join(root, 'kprobe_events')) as f:
            for line in f:
                m = re.match(r'^[pr]:(gpuprobe_([0-9]+))/(\S+)', line)
                if m and not os.path.exists('/proc/' + m.group(2)):
                    groups.add('%s/%s' % (m.group(1), m.group(3)))
    except OSError:
        pass
    return set(inst), groups


def clean_tracefs(before):
    """Removes what a mutant's run left in tracefs (a mutated tool killed by
    a timeout, or one that forgets to clean up), so that the next mutant's
    "no instance left behind" checks see only their own run.  Only what
    appeared during the run: other runs beside us keep theirs."""
    inst, groups = tracefs_leftovers()
    root = '/sys/kernel/tracing'
    for n in sorted(inst - before[0]):
        try:
            os.rmdir(os.path.join(root, 'instances', n))
        except OSError:
            pass
    for g in sorted(groups - before[1]):
        try:
            with open(os.path.join(root, 'kprobe_events'), 'a') as f:
                f.write('-:%s\n' % g)
        except OSError:
            pass


def run_mutant(tree, m, src, suites, timeouts):
    """Builds and tests mutant m in tree; returns a result dict."""
    prof = tree.profile
    t0 = time.monotonic()
    res = {'status': None, 'suite': '', 'detail': '', 'suites_run': 0}
    path = os.path.join(tree.root, m.path)
    with open(path, 'w') as f:
        f.write(m.apply(src))
    try:
        for argv in prof['build']:
            rc, out = sh(argv, tree.root, timeout=prof.get('build_timeout', 300))
            if rc != 0:
                err = next((l for l in out.splitlines() if 'error' in l), out.strip()[-200:])
                res.update(status='invalid', detail=err.strip()[:200])
                return res
        diff, _ = tree.changed()
        objs = [p for p in diff if p.endswith('.o')]
        if not objs:
            res.update(status='invalid', detail='no object was rebuilt: not built here')
            return res
        if tree.same_code(objs):
            res.update(status='equivalent', detail='tce: the same object code')
            return res
        before = tracefs_leftovers()
        try:
            for s in suites:
                if not tree.binaries_changed(s['binaries']):
                    continue
                res['suites_run'] += 1
                st, detail, _ = run_suite(tree, s, timeouts[s['name']])
                if st == 'fail' and s.get('flaky'):
                    # timing-sensitive under load: a kill must repeat
                    again = run_suite(tree, s, timeouts[s['name']])
                    if again[0] == 'pass':
                        res['flaky'] = res.get('flaky', []) + [s['name']]
                        continue
                if st != 'pass':
                    res.update(status='killed' if st == 'fail' else 'timeout',
                               suite=s['name'], detail=detail)
                    return res
        finally:
            clean_tracefs(before)
        res.update(status='survived', detail='' if res['suites_run'] else
                   'no test binary changed: no test runs this code')
        return res
    finally:
        res['seconds'] = round(time.monotonic() - t0, 1)
        tree.restore()
