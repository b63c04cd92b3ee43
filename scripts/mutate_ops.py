# SPDX-License-Identifier: GPL-2.0
"""The mutation operators of scripts/mutate.py: a C lexer and the mutants of
one file.  Lexical on purpose (no C parser in Debian's python3 stdlib): what a
token heuristic gets wrong the compiler refuses, and such a mutant is counted
"invalid", not run.  Documentation/testing.md lists the operators."""
import hashlib
import re

TOKEN_RE = re.compile(r'''
 (?P<nl>\n)
|(?P<ws>[ \t\r\f\v]+|\\\n)
|(?P<comment>//[^\n]*|/\*.*?\*/)
|(?P<string>"(?:\\.|[^"\\\n])*")
|(?P<char>'(?:\\.|[^'\\\n])*')
|(?P<number>(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?
   |\.[0-9]+(?:[eE][+-]?[0-9]+)?)[uUlLfF]*)
|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
|(?P<punct>>>=|<<=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=
   |[][(){}.;,?:~!<>=+\-*/%&|^#])
''', re.S | re.X)

TYPE_WORDS = {'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed',
              'unsigned', 'bool', '_Bool', 'const', 'volatile', 'static', 'register',
              'extern', 'inline', 'struct', 'union', 'enum', 'FILE', 'restrict'}
KEYWORDS = TYPE_WORDS | {'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'default',
                         'return', 'break', 'continue', 'goto', 'sizeof', 'typedef',
                         '_Alignof', 'alignof', 'typeof', '__typeof__', '_Static_assert'}
# Calls whose removal only leaks: the memcheck suites' business (--leaks).
RELEASE_RE = re.compile(r'^(free|fclose|close|closedir|munmap|json_decref|\w+_(free|destroy|close|unref))$')


class Tok:
    __slots__ = ('kind', 'text', 'start', 'end', 'line', 'col', 'ctx', 'func')

    def __init__(self, kind, text, start, end, line, col):
        self.kind, self.text, self.start, self.end = kind, text, start, end
        self.line, self.col, self.ctx, self.func = line, col, None, None


def lex(src):
    """Tokens without comments, whitespace and preprocessor lines (their
    continuation lines included)."""
    toks, pos, line, bol, line_start = [], 0, 1, 0, True
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:			# a stray byte: skip it
            pos += 1
            continue
        kind, text = m.lastgroup, m.group()
        if kind == 'punct' and text == '#' and line_start:
            end = pos
            while True:			# to the end of the line, continuations too
                nl = src.find('\n', end)
                if nl < 0:
                    nl = len(src)
                if nl > 0 and src[nl - 1] == '\\':
                    end = nl + 1
                    continue
                # a /* comment */ opened on the line runs on to its end
                c = src.rfind('/*', pos, nl)
                if c >= 0 and src.find('*/', c, nl) < 0:
                    end = src.find('*/', c)
                    end = len(src) if end < 0 else end + 2
                    continue
                break
            line += src.count('\n', pos, nl)
            pos = nl
            continue
        if kind not in ('ws', 'nl', 'comment'):
            toks.append(Tok(kind, text, pos, m.end(), line, pos - bol + 1))
            line_start = False
        n = text.count('\n')
        if n:
            line += n
            bol = pos + text.rfind('\n') + 1
            line_start = True
        pos = m.end()
    return toks


def match_close(toks, i):
    """Index of the bracket closing toks[i]."""
    pair = {'(': ')', '[': ']', '{': '}'}[toks[i].text]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == toks[i].text:
            depth += 1
        elif toks[j].text == pair:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def typedef_names(srcs):
    """The typedef names declared in srcs (their last identifier before ';',
    or the (*name) of a function pointer type)."""
    names = set()
    for src in srcs:
        toks = lex(src)
        for i, t in enumerate(toks):
            if t.text != 'typedef':
                continue
            depth, last, j = 0, None, i + 1
            while j < len(toks):
                x = toks[j].text
                if x in '({[':
                    if x == '(' and j + 2 < len(toks) and toks[j + 1].text == '*' \
                       and toks[j + 2].kind == 'ident' and depth == 0:
                        last = toks[j + 2].text
                        break
                    depth += 1
                elif x in ')}]':
                    depth -= 1
                elif x == ';' and depth == 0:
                    break
                elif toks[j].kind == 'ident' and depth == 0:
                    last = x
                j += 1
            if last:
                names.add(last)
    return names


class Analysis:
    """Marks each token's context: 'code' inside a function body, 'table'
    inside a file-scope initializer, None elsewhere; and its function."""

    def __init__(self, toks, types):
        self.toks, self.types = toks, types
        stack, func = [], None
        for i, t in enumerate(toks):
            if t.text == '{':
                prev = toks[i - 1].text if i else ''
                if stack:
                    kind = 'code' if stack[-1] == 'code' else stack[-1]
                elif prev == ')':
                    kind, func = 'code', self.func_name(i)
                else:
                    kind = 'table' if prev == '=' else 'other'
                stack.append(kind)
            t.ctx = stack[-1] if stack and stack[-1] != 'other' else None
            t.func = func if stack else None
            if t.text == '}' and stack:
                stack.pop()

    def func_name(self, brace):
        j = brace - 1
        depth = 0
        while j >= 0:
            if self.toks[j].text == ')':
                depth += 1
            elif self.toks[j].text == '(':
                depth -= 1
                if depth == 0:
                    return self.toks[j - 1].text if j else '?'
            j -= 1
        return '?'

    def is_type_tok(self, i):
        t = self.toks[i]
        if t.kind != 'ident':
            return False
        if t.text in TYPE_WORDS or t.text in self.types or t.text.endswith('_t'):
            return True
        return i > 0 and self.toks[i - 1].text in ('struct', 'union', 'enum')

    def is_cast_close(self, i):
        """toks[i] is ')': does its '(' open a type name (a cast, sizeof(type))?"""
        depth, j = 0, i
        while j >= 0:
            x = self.toks[j].text
            if x == ')':
                depth += 1
            elif x == '(':
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        return j + 1 < len(self.toks) and self.is_type_tok(j + 1)

    def is_binary(self, i):
        """Is the operator toks[i] binary (after an operand) rather than unary?"""
        if i == 0:
            return False
        p = self.toks[i - 1]
        if p.kind in ('number', 'string', 'char') or p.text == ']':
            return True
        if p.text == ')':
            return not self.is_cast_close(i - 1)
        if p.kind == 'ident':
            return p.text not in KEYWORDS and not self.is_type_tok(i - 1)
        return False


class Mutant:
    __slots__ = ('path', 'start', 'end', 'repl', 'op', 'short', 'line', 'col', 'func',
                 'key', 'hash', 'tags')

    def __init__(self, path, tok, start, end, repl, op, short, tags=()):
        self.path, self.start, self.end, self.repl = path, start, end, repl
        self.op, self.short, self.line, self.col = op, short, tok.line, tok.col
        self.func, self.tags, self.key, self.hash = tok.func, tuple(tags), None, None

    @property
    def id(self):
        return '%s:%d:%d:%s:%s#%s' % (self.path, self.line, self.col, self.op, self.short, self.hash)

    def apply(self, src):
        return src[:self.start] + self.repl + src[self.end:]


def number_variants(text):
    m = re.match(r'^(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)$', text)
    if not m or (text.startswith('0') and len(m.group(1)) > 1 and m.group(1)[1] not in 'xX'):
        return []			# floats and octal: left alone
    body, suffix = m.groups()
    hexa = body[:2].lower() == '0x'
    v = int(body, 16 if hexa else 10)
    fmt = (lambda n: '0x%x' % n) if hexa else str
    outs = [1] if v == 0 else [2, 0] if v == 1 else [v + 1, v - 1]
    return [fmt(n) + suffix for n in outs]


REL = {'<': ['<=', '>'], '<=': ['<', '>='], '>': ['>=', '<'], '>=': ['>', '<='],
       '==': ['!='], '!=': ['==']}
ARITH = {'+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['/'], '+=': ['-='],
         '-=': ['+='], '*=': ['/='], '/=': ['*='], '++': ['--'], '--': ['++']}


def stmt_starts(a):
    """Indexes of the tokens that begin a statement inside a function body."""
    toks, out = a.toks, []
    for i in range(1, len(toks)):
        if toks[i].ctx != 'code':
            continue
        p = toks[i - 1].text
        if p in (';', '{', '}', 'else'):
            out.append(i)
        elif p == ')':
            # the header of if/while/for: its '(' follows the keyword
            depth, j = 0, i - 1
            while j >= 0:
                if toks[j].text == ')':
                    depth += 1
                elif toks[j].text == '(':
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            if j > 0 and toks[j - 1].text in ('if', 'while', 'for'):
                out.append(i)
    return out


def stmt_end(toks, i):
    """The ';' ending the simple statement that begins at i, or None when a
    brace comes first (a block, a compound literal, a nested statement)."""
    depth = 0
    for j in range(i, len(toks)):
        x = toks[j].text
        if x in '([':
            depth += 1
        elif x in ')]':
            depth -= 1
            if depth < 0:
                return None
        elif x in '{}':
            return None
        elif x == ';' and depth == 0:
            return j
    return None


def split_args(toks, lo, hi):
    """The comma-separated token ranges between toks[lo] '(' and toks[hi] ')'."""
    args, depth, s = [], 0, lo + 1
    for j in range(lo + 1, hi):
        x = toks[j].text
        if x in '([{':
            depth += 1
        elif x in ')]}':
            depth -= 1
        elif x == ',' and depth == 0:
            args.append((s, j - 1))
            s = j + 1
    if s <= hi - 1:
        args.append((s, hi - 1))
    return args


def declared_types(a):
    """name -> type text, per function: its parameters and its locals."""
    toks, out = a.toks, {}

    def declare(func, lo, hi):	# one declaration, tokens lo..hi, no ';'
        j = lo
        while j <= hi and (a.is_type_tok(j) or toks[j].text in ('struct', 'union', 'enum')):
            j += 1
        if j == lo:
            return
        base = ' '.join(t.text for t in toks[lo:j])
        for s, e in split_args(toks, lo - 1, hi + 1) if j <= hi else []:
            s = max(s, j)
            stars = 0
            while s <= e and toks[s].text == '*':
                stars, s = stars + 1, s + 1
            if s <= e and toks[s].kind == 'ident' and (s == e or toks[s + 1].text in ('=', '[')):
                out.setdefault(func, {})[toks[s].text] = base + '*' * stars
    for i, t in enumerate(toks):
        if t.text == '{' and t.ctx == 'code' and i and toks[i - 1].text == ')' and \
           (i < 2 or toks[i - 2].ctx != 'code'):
            close = i - 1
            depth, j = 0, close
            while j >= 0:
                if toks[j].text == ')':
                    depth += 1
                elif toks[j].text == '(':
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            for s, e in split_args(toks, j, close):
                declare(toks[i + 1].func if i + 1 < len(toks) else None, s, e)
    for i in stmt_starts(a):
        if a.is_type_tok(i):
            end = stmt_end(toks, i)
            if end:
                declare(toks[i].func, i, end - 1)
    return out


def mutants_of(path, src, types, tables=False, leaks=False):
    toks = lex(src)
    a = Analysis(toks, types)
    ctxs = ('code', 'table') if tables else ('code',)
    out = []

    def add(tok, start, end, repl, op, short, tags=()):
        out.append(Mutant(path, tok, start, end, repl, op, short, tags))

    for i, t in enumerate(toks):
        if t.ctx not in ctxs:
            continue
        if t.kind == 'punct' and t.text in REL and t.ctx == 'code':
            for r in REL[t.text]:
                add(t, t.start, t.end, r, 'rel', r)
        elif t.kind == 'punct' and t.text in ARITH and t.ctx == 'code':
            if t.text in ('+', '-', '*', '/', '%') and not a.is_binary(i):
                continue
            for r in ARITH[t.text]:
                add(t, t.start, t.end, r, 'arith', r)
        elif t.kind == 'punct' and t.text in ('&&', '||') and t.ctx == 'code':
            r = '||' if t.text == '&&' else '&&'
            add(t, t.start, t.end, r, 'cond', r)
        elif t.kind == 'number':
            if in_array_declarator(a, i):
                continue
            vs = number_variants(t.text)
            if i and toks[i - 1].text == '-' and not a.is_binary(i - 1):
                vs = vs[-1:]		# -1 -> -2 is an error code like -1: only towards 0
            for r in vs:
                add(t, t.start, t.end, r, 'const', r)
        elif t.text == 'if' and t.ctx == 'code' and i + 1 < len(toks) and toks[i + 1].text == '(':
            c = match_close(toks, i + 1)
            s, e = toks[i + 1].end, toks[c].start
            inner = src[s:e]
            for r, short in (('0', '0'), ('1', '1'), ('!(%s)' % inner, '!')):
                add(t, s, e, r, 'cond', short)
    for i in stmt_starts(a):
        t = toks[i]
        end = stmt_end(toks, i)
        if end is None or end == i:
            continue
        first = t.text
        if first == 'return':
            pass
        elif first in KEYWORDS or a.is_type_tok(i):
            continue
        elif t.kind == 'ident' and i + 1 < len(toks) and toks[i + 1].kind == 'ident':
            continue			# a declaration with a type we do not know
        elif t.kind != 'ident' and first not in ('*', '(', '++', '--'):
            continue
        tags = ()
        if t.kind == 'ident' and toks[i + 1].text == '(' and RELEASE_RE.match(first):
            if not leaks:
                continue
            tags = ('leak',)
        text = src[t.start:toks[end].end]
        add(t, t.start, toks[end].end, '{}' + '\n' * text.count('\n'), 'stmt',
            'return' if first == 'return' else 'drop', tags)
    out += swap_mutants(path, src, a)
    assign_keys(out, src)
    return out


def in_array_declarator(a, i):
    """A constant in 'type name[N]': a buffer size, left alone."""
    toks = a.toks
    if i < 2 or toks[i - 1].text != '[' or toks[i - 2].kind != 'ident':
        return False
    j = i - 3
    while j >= 0 and toks[j].text == '*':
        j -= 1
    return j >= 0 and (a.is_type_tok(j) or toks[j].text == ',')


def swap_mutants(path, src, a):
    toks, out, types = a.toks, [], declared_types(a)

    def swap(tok, x, y, op):	# x, y: token ranges (lo, hi)
        s, e = toks[x[0]].start, toks[y[1]].end
        tx, ty = src[s:toks[x[1]].end], src[toks[y[0]].start:e]
        mid = src[toks[x[1]].end:toks[y[0]].start]
        if tx != ty:
            out.append(Mutant(path, tok, s, e, ty + mid + tx, 'swap', op))
    # two arguments of one call, both variables of one declared type
    for i, t in enumerate(toks):
        if t.ctx != 'code' or t.kind != 'ident' or t.text in KEYWORDS or \
           i + 1 >= len(toks) or toks[i + 1].text != '(':
            continue
        args = split_args(toks, i + 1, match_close(toks, i + 1))
        known = types.get(t.func, {})
        for x, y in zip(args, args[1:]):
            if x[0] == x[1] and y[0] == y[1]:
                nx, ny = toks[x[0]].text, toks[y[0]].text
                if nx in known and known.get(ny) == known[nx]:
                    swap(toks[x[0]], x, y, 'args')
    # two member assignments in a row: b.f = x; b.g = y;  or  .f = x, .g = y
    starts = [i for i in stmt_starts(a)]
    for i, j in zip(starts, starts[1:]):
        ei, ej = stmt_end(toks, i), stmt_end(toks, j)
        if ei is None or ej is None or ei + 1 != j:
            continue
        mi, mj = member_assign(toks, i, ei), member_assign(toks, j, ej)
        if mi and mj and mi[0] == mj[0] and mi[1] != mj[1]:
            swap(toks[i], (mi[2], ei - 1), (mj[2], ej - 1), 'fields')
    for i, t in enumerate(toks):
        if t.text == '{' and t.ctx in ('code', 'table'):
            close = match_close(toks, i)
            items = [(s, e) for s, e in split_args(toks, i, close)
                     if e - s >= 3 and toks[s].text == '.' and toks[s + 2].text == '=']
            for x, y in zip(items, items[1:]):
                if x[1] + 2 == y[0]:
                    swap(toks[x[0]], (x[0] + 3, x[1]), (y[0] + 3, y[1]), 'fields')
    return out


def member_assign(toks, i, end):
    """(base text, field, index of the value) of 'base.field = value;'."""
    for j in range(i, end):
        if toks[j].text == '=':
            if j - i < 3 or toks[j - 2].text not in ('.', '->') or toks[j - 1].kind != 'ident':
                return None
            if any(t.text in ('(', '[') for t in toks[i:j]) or j + 1 >= end:
                return None
            return ' '.join(t.text for t in toks[i:j - 1]), toks[j - 1].text, j + 1
    return None


def assign_keys(muts, src):
    """A hash of what the mutant is, not where: the file, its function, the
    line's text (spaces squeezed), the operator and the replacement, with
    an ordinal among mutants alike in all of these.  Line moves, edits to
    other functions and reflows elsewhere keep the hash."""
    lines = src.split('\n')
    seen = {}
    for m in sorted(muts, key=lambda m: (m.start, m.op, m.repl)):
        text = ' '.join(lines[m.line - 1].split())
        col_in = src.rfind('\n', 0, m.start) + 1
        prefix = ' '.join(src[col_in:m.start].split())
        key = '\0'.join((m.path, m.func or '', text, prefix, m.op, m.short, m.repl))
        n = seen.get(key, 0)
        seen[key] = n + 1
        m.key = key + '\0%d' % n
        m.hash = hashlib.sha1(m.key.encode()).hexdigest()[:8]


def diff_lines(m, src):
    """The changed lines, before and after: '- ...' and '+ ...'."""
    lo = src.rfind('\n', 0, m.start) + 1
    hi = src.find('\n', m.end)
    hi = len(src) if hi < 0 else hi
    after = src[lo:m.start] + m.repl + src[m.end:hi]
    squeeze = lambda s: ' '.join(s.split())
    return '- ' + squeeze(src[lo:hi]), '+ ' + squeeze(after)


SELFTEST_SRC = r'''#include <stdio.h>
#define LESS(a, b) ((a) < (b))
/* a < b in a comment */
static const char *s = "x < y";
static int f(int a, int b)
{
	char c = '<';
#define LOCAL(a) ((a) < 2 && \
		  (a) > 7)

	if (a < b)	// a > b here too
		return -1;
	g(a, b, 0x10, 1u);
	return c;
}
'''


def selftest():
    """Checks of the operators that make test runs (tier 2b): (name, ok)."""
    out = []
    ms = mutants_of('t.c', SELFTEST_SRC, set())
    rel = [m for m in ms if m.op == 'rel']
    out.append(('only code is mutated: the one `<` of f, not those of the comments, '
                'the string, the char, the macro or the #include',
                sorted(m.repl for m in rel) == ['<=', '>'] and all(m.line == 11 for m in rel)))
    consts = sorted(m.repl for m in ms if m.op == 'const')
    out.append(('constants: 0x10 -> 0x11, 0xf; 1u -> 2u, 0u; -1 only towards 0',
                consts == ['0', '0u', '0x11', '0xf', '2u']))
    stmts = sorted(m.short for m in ms if m.op == 'stmt')
    out.append(('statements: the call and both returns dropped, the declaration kept',
                stmts == ['drop', 'return', 'return']))
    moved = SELFTEST_SRC.replace('{\n', '{\n\n\n', 1)
    edited = SELFTEST_SRC + 'static int h(int x)\n{\n\treturn x + 1;\n}\n'
    same = {m.hash for m in ms}
    out.append(('mutant hashes survive moved lines and an edit elsewhere',
                {m.hash for m in mutants_of('t.c', moved, set())} == same and
                same <= {m.hash for m in mutants_of('t.c', edited, set())}))
    out.append(('mutant hashes are unique', len(same) == len(ms)))
    return out
