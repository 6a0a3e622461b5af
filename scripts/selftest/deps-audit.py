#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""deps-audit.py: every program the tests run is installed by
scripts/install-deps.sh, so that a test needing a package nobody listed
fails on every machine, not only on those where the package is missing.

The programs:
 - the guest tests' "# XRDMA_PROGRAMS:" lines (tools/testing/**/*.sh but
   the harness's, tools/testing/harness/demo/*.sh), resolved as tools/testing/harness/host/mkinitramfs.sh
   does; repo-relative paths are our build products; and the host files
   and directories their "# XRDMA_FILES:" lines ship;
 - the commands of the shell scripts make check runs on the host
   (HOST_SCRIPTS, and the guest tests' XRDMA_PREPARE steps), found by a
   small shell tokenizer: the words in command position, through wrappers
   (env, timeout, xargs, find -exec, sh -c '...', the project's
   "stage NAME CMD..." and the like, HELPERS) and "command -v" probes,
   less shell builtins, the functions the script defines or sources, our
   own scripts (relative paths) and words only known at run time ($...).
Each is looked up in Debian's system directories only (one found only in
/usr/local or a pyenv was installed by hand) and passes when the package
dpkg says ships it is in "scripts/install-deps.sh --list" or Essential.
Nothing else counts, not what a listed package happens to pull in (that
may change under us) nor Priority: required: a failure names the package
to add to the list.

  scripts/selftest/deps-audit.py [-v] [--without PKG]... [--selftest]

-v: every use of every program, and the commands only known at run time.
--without PKG: audit as if PKG were not in the list (--without iproute2
fails on ip and rdma).  --selftest: the tokenizer on a fixture, and that
--without iproute2 fails.  Prints a line per program, then "N passed, N
failed"; exits 1 on a failure, 2 when the audit itself cannot run.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), '..', '..'))
SYSDIRS = ('/usr/sbin', '/usr/bin', '/sbin', '/bin')
DEPS = 'scripts/install-deps.sh'

GUEST_TESTS = ('tools/testing/**/*.sh', 'tools/testing/harness/demo/*.sh')
# the harness's own scripts are no tests (the demo's excepted, above)
NOT_TESTS = 'tools/testing/harness/'
# What make check runs on the host.  The guest tests, bench-guest.sh
# & co run in the guest: their programs are the XRDMA_PROGRAMS shipped.
HOST_SCRIPTS = ('scripts/*.sh', 'tools/testing/harness/host/*.sh',
                'scripts/selftest/*.sh', 'tools/testing/bench/bench-host.sh',
                'scripts/xrdma-run', '.ci/run',
                'tools/testing/uverbs/header-test.sh',
                'tools/lib/xverbs/symcheck.sh',
                'tools/lib/xverbs/ref/gen-refcheck.sh')
GUEST_SIDE = ('tools/testing/harness/guest/init.sh',)

# The project's functions that run their later arguments as a command:
# name -> how many arguments come before the command.
HELPERS = {
    'stage': 1,             # scripts/check.sh: stage NAME CMD...
    'check': 1,             # scripts/selftest/*.sh: check DESC CMD...
    't': 1,                 # uverbs/header-test.sh: t NAME CMD...
    'xrdma_tee_stderr': 1,  # tools/testing/harness/host/lib.sh: xrdma_tee_stderr LOG CMD...
    'progress_start': 1,    # scripts/progress.sh: progress_start LABEL FN...
    'progress_tick': 0,     # scripts/progress.sh: progress_tick FN...
}

KEYWORDS = {'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while',
            'until', 'for', 'select', 'case', 'esac', 'in', '!', 'time',
            'function', '{', '}', '[[', ']]', 'coproc'}
SEPARATORS = {';', '&', '&&', '||', '|', '|&', '(', ')', '\n',
              ';;', ';&', ';;&'}
REDIRS = {'<', '>', '>>', '<<', '<<-', '<<<', '<&', '>&', '<>', '>|',
          '&>', '&>>'}
OPS = sorted(SEPARATORS | REDIRS, key=len, reverse=True)
ASSIGN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=')
FUNC_DEF = re.compile(r'^\s*(?:function\s+([\w.:-]+)|([\w.:-]+)\s*\(\s*\))',
                      re.M)


class Tok:
    """A word ('w') or an operator ('op').  val: the word without its
    quotes, expansions as written; dyn: it holds an expansion; array: the
    tokens of NAME=(...)'s elements."""
    __slots__ = ('kind', 'text', 'line', 'val', 'dyn', 'array')

    def __init__(self, kind, text, line, val=None, dyn=False, array=None):
        self.kind, self.text, self.line = kind, text, line
        self.val = text if val is None else val
        self.dyn, self.array = dyn, array


class Lexer:
    """Shell text to tokens.  The contents of $(...), `...`, <(...) and
    >(...) go to subs, a token list each, wherever they are (inside
    double quotes and ${...} too); comments and heredoc bodies go."""

    def __init__(self, src, subs, line=1):
        self.s, self.n, self.i, self.line = src, len(src), 0, line
        self.subs = subs
        self.heredocs = []      # (delimiter, strip tabs): at the next newline

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < self.n else ''

    def tokens(self, stop=False):
        """Tokens to the end, or (stop) to the ')' closing a $( or <(;
        a case pattern's ')' does not close it."""
        toks, depth, cases = [], 0, 0
        while self.i < self.n:
            c = self.peek()
            if c in ' \t':
                self.i += 1
            elif c == '\\' and self.peek(1) == '\n':
                self.i += 2
                self.line += 1
            elif c == '\n':
                toks.append(Tok('op', '\n', self.line))
                self.i += 1
                self.line += 1
                self.read_heredocs()
            elif c == '#':
                while self.i < self.n and self.s[self.i] != '\n':
                    self.i += 1
            elif c == ')' and stop and depth == 0 and cases == 0:
                self.i += 1
                return toks
            elif c == '(' and self.peek(1) == '(':
                toks.append(Tok('op', '((', self.line))  # arithmetic
                self.skip_parens()
            elif c in '<>' and self.peek(1) == '(':
                # process substitution: a word whose commands run
                toks.append(Tok('w', c + '(', self.line, dyn=True))
                self.i += 2
                self.subs.append(self.tokens(True))
            else:
                op = next((o for o in OPS if self.s.startswith(o, self.i)),
                          None)
                if op:
                    toks.append(Tok('op', op, self.line))
                    self.i += len(op)
                    if op == '(':
                        depth += 1
                    elif op == ')' and depth:
                        depth -= 1
                    elif op in ('<<', '<<-'):
                        while self.peek() in (' ', '\t'):
                            self.i += 1
                        w = self.word()
                        toks.append(w)
                        self.heredocs.append((w.val, op == '<<-'))
                    continue
                w = self.word()
                # the fd of "2>" and "{fd}>" belongs to the redirection
                if self.peek() in ('<', '>') and re.fullmatch(
                        r'[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}', w.text):
                    continue
                prev = toks[-1] if toks else None
                if not w.dyn and (prev is None or prev.kind == 'op' or
                                  prev.val in KEYWORDS):
                    if w.val == 'case':
                        cases += 1
                    elif w.val == 'esac' and cases:
                        cases -= 1
                toks.append(w)
        return toks

    def read_heredocs(self):
        for delim, strip in self.heredocs:
            while self.i < self.n:
                end = self.s.find('\n', self.i)
                end = self.n if end < 0 else end
                line = self.s[self.i:end]
                self.i = end + 1
                self.line += 1
                if (line.lstrip('\t') if strip else line) == delim:
                    break
        self.heredocs = []

    def skip_parens(self):
        """From a '(' to past the ')' matching it."""
        depth = 0
        while self.i < self.n:
            c = self.s[self.i]
            self.i += 1
            self.line += c == '\n'
            depth += {'(': 1, ')': -1}.get(c, 0)
            if depth == 0:
                return

    def word(self):
        start, line = self.i, self.line
        val, dyn, array = [], False, None
        while self.i < self.n:
            c = self.s[self.i]
            if c in ' \t\n;&|<>':
                break
            if c in '()':
                if c == '(' and ASSIGN.fullmatch(''.join(val)):
                    self.i += 1             # NAME=( elements )
                    array = self.tokens(True)
                elif c == '(' and val and val[-1] in '@!?*+':
                    self.skip_parens()      # extglob
                else:
                    break
            elif c == '\\':
                if self.peek(1) == '\n':
                    self.line += 1
                else:
                    val.append(self.peek(1))
                self.i += 2
            elif c == "'":
                j = self.s.find("'", self.i + 1)
                j = self.n if j < 0 else j
                val.append(self.s[self.i + 1:j])
                self.line += self.s.count('\n', self.i, j)
                self.i = j + 1
            elif c == '$' and self.peek(1) == "'":
                j = self.i + 2
                while j < self.n and self.s[j] != "'":
                    j += 2 if self.s[j] == '\\' else 1
                val.append(self.s[self.i + 2:j])
                self.i = j + 1
            elif c == '"':
                self.i += 1
                dyn |= self.dquote(val)
            elif c == '`':
                self.backtick(val)
                dyn = True
            elif c == '$':
                dyn |= self.dollar(val)
            else:
                val.append(c)
                self.i += 1
        return Tok('w', self.s[start:self.i], line, ''.join(val), dyn, array)

    def dquote(self, val):
        """From past the opening '"' to past the closing one; whether
        there was an expansion."""
        dyn = False
        while self.i < self.n:
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == '\\' and self.peek(1) in '$`"\\\n':
                if self.peek(1) == '\n':
                    self.line += 1
                else:
                    val.append(self.peek(1))
                self.i += 2
            elif c == '$':
                dyn |= self.dollar(val)
            elif c == '`':
                self.backtick(val)
                dyn = True
            else:
                self.line += c == '\n'
                val.append(c)
                self.i += 1
        return dyn

    def dollar(self, val):
        """At a '$': an expansion (True), or a plain '$' (False)."""
        s, i = self.s, self.i
        if s.startswith('$((', i):
            self.i += 1
            self.skip_parens()
            val.append('$((...))')
        elif s.startswith('$(', i):
            self.i += 2
            self.subs.append(self.tokens(True))
            val.append('$(...)')
        elif s.startswith('${', i):
            # to the matching '}', through quotes and nested expansions
            self.i += 2
            depth, inner = 1, []
            while self.i < self.n and depth:
                c = self.s[self.i]
                if c == '\\':
                    self.i += 2
                elif c == '"':
                    self.i += 1
                    self.dquote(inner)
                elif c == '$':
                    self.dollar(inner)
                elif c == '`':
                    self.backtick(inner)
                else:
                    depth += {'{': 1, '}': -1}.get(c, 0)
                    self.line += c == '\n'
                    self.i += 1
            val.append(s[i:self.i])
        else:
            m = re.match(r'[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]',
                         s[i + 1:i + 65])
            if not m:
                val.append('$')
                self.i += 1
                return False
            val.append('$' + m.group(0))
            self.i += 1 + len(m.group(0))
        return True

    def backtick(self, val):
        j, body = self.i + 1, []
        while j < self.n and self.s[j] != '`':
            if self.s[j] == '\\' and self.s[j + 1:j + 2] in ('`', '$', '\\'):
                j += 1
            body.append(self.s[j])
            j += 1
        sub = Lexer(''.join(body), self.subs, self.line)
        self.subs.append(sub.tokens())
        self.line = sub.line
        self.i = j + 1
        val.append('$(...)')


def lex(src, line=1):
    """The token lists of src: the top level's, then each substitution's."""
    subs = []
    top = Lexer(src, subs, line).tokens()
    return [top] + subs


def simple_commands(toks):
    """The simple commands of a token list (their words, less keywords and
    redirections), and the NAME=(...) assignments in it."""
    cmds, cur, arrays = [], [], []
    case = []               # per open case: in its 'pat'terns or a 'cmd'
    i = 0

    def skip_to(word):
        nonlocal i
        while i < len(toks) and toks[i].val != word:
            i += 1
        i += 1

    while i < len(toks):
        t = toks[i]
        i += 1
        if t.array is not None:
            arrays.append(t)
        if case and case[-1] == 'pat':
            if t.kind == 'op' and t.text == ')':
                case[-1] = 'cmd'
            elif t.kind == 'w' and t.val == 'esac':
                case.pop()
        elif t.kind == 'op':
            if t.text in REDIRS:
                i += i < len(toks) and toks[i].kind == 'w'  # the target
                continue
            if cur:
                cmds.append(cur)
                cur = []
            if case and t.text in (';;', ';&', ';;&'):
                case[-1] = 'pat'
        elif cur or t.dyn:
            cur.append(t)
        elif t.val in ('for', 'select'):
            skip_to('do')
        elif t.val == 'case':
            skip_to('in')
            case.append('pat')
        elif t.val == 'esac' and case:
            case.pop()
        elif t.val == '[[':
            skip_to(']]')
        elif t.val == 'function':
            i += 1
        elif t.val in KEYWORDS:
            pass
        elif toks[i:i + 2] and [x.text for x in toks[i:i + 2]] == ['(', ')']:
            i += 2                  # NAME() ...: a function definition
        else:
            cur.append(t)
    if cur:
        cmds.append(cur)
    return cmds, arrays


def operands(ws, with_arg='', long_with_arg=(), flags=None):
    """The index of the first operand in ws after the options: the short
    options in with_arg and the long ones in long_with_arg take an
    argument (in the next word unless attached); the short options seen
    go to flags."""
    i = 0
    while i < len(ws):
        w = ws[i].val
        if ws[i].dyn or not w.startswith(('-', '+')) or w in ('-', '+'):
            break
        i += 1
        if w == '--':
            break
        if w.startswith('--'):
            i += w in long_with_arg
            continue
        for k, ch in enumerate(w[1:]):
            if flags is not None:
                flags.add(ch)
            if ch in with_arg:
                i += k == len(w) - 2
                break
    return i


class Scanner:
    """The commands the scripts run: uses[word] = [(file, line, in a
    script)], for each word found in command position."""

    def __init__(self):
        self.uses = {}
        self.dynamic = []       # (file, line, word): known at run time only
        self.arrays = {}        # (file, NAME) -> [[element word]...]
        self.sources = {}       # file -> the words after its "." / "source"
        self.files = {}         # host file a guest test ships -> uses

    def use(self, word, path, line, script=True):
        self.uses.setdefault(word, []).append((path, line, script))

    def script(self, src, path, line=1):
        cmds = []
        for toks in lex(src, line):
            c, arrays = simple_commands(toks)
            cmds += c
            for t in arrays:
                name = re.match(r'[A-Za-z0-9_]*', t.val).group(0)
                self.arrays.setdefault((path, name), []).append(
                    [w for w in t.array if w.kind == 'w'])
        for ws in cmds:
            self.command(ws, path)

    def command(self, ws, path):
        """A simple command: its program, and what that runs."""
        while ws and ASSIGN.match(ws[0].val):
            ws = ws[1:]
        while ws:
            w, rest = ws[0], ws[1:]
            if w.dyn:
                m = re.fullmatch(r'\$\{?([A-Za-z_]\w*)(\[[@*]\])?\}?', w.val)
                if m and m.group(1) == 'SUDO':  # install-deps.sh: $SUDO CMD
                    ws = rest
                    continue
                if m and m.group(2) and (path, m.group(1)) in self.arrays:
                    # "${QEMU[@]}": the command lines it is assigned
                    for elems in self.arrays[(path, m.group(1))]:
                        self.command(elems + rest, path)
                    return
                self.dynamic.append((path, w.line, w.text))
                return
            self.use(w.val, path, w.line)
            if w.val in ('.', 'source') and rest:
                self.sources.setdefault(path, []).append(rest[0].val)
            if w.val in HELPERS:
                ws = rest[HELPERS[w.val]:]
            else:
                ws = self.wrapped(os.path.basename(w.val), rest, path)

    def wrapped(self, cmd, ws, path):
        """The words of the command that cmd runs with arguments ws."""
        flags = set()
        if cmd in ('exec', 'nohup', 'builtin', 'stdbuf', 'setsid', 'nice',
                   'sudo', 'time'):
            return ws[operands(ws, {'exec': 'a', 'stdbuf': 'ioe', 'nice': 'n',
                                    'sudo': 'ugpCDhRTU'}.get(cmd, ''),
                               ('--user', '--group', '--adjustment')):]
        if cmd == 'command':
            i = operands(ws, flags=flags)
            if not flags & {'v', 'V'}:
                return ws[i:]
            # a probe: the script needs or wants the program
            for w in ws[i:]:
                if not w.dyn:
                    self.use(w.val, path, w.line)
            return []
        if cmd == 'env':
            i = operands(ws, 'uCS', ('--unset', '--chdir', '--split-string'))
            while i < len(ws) and ASSIGN.match(ws[i].val):
                i += 1
            return ws[i:]
        if cmd == 'timeout':        # [opts] DURATION CMD
            return ws[operands(ws, 'ks', ('--kill-after', '--signal')) + 1:]
        if cmd == 'chroot':         # [opts] DIR CMD
            return ws[operands(ws) + 1:]
        if cmd == 'taskset':        # [opts] MASK CMD, or -p: no command
            i = operands(ws, flags=flags)
            return [] if 'p' in flags else ws[i + 1:]
        if cmd == 'ionice':
            i = operands(ws, 'cnp', flags=flags)
            return [] if 'p' in flags else ws[i:]
        if cmd == 'unshare':
            return ws[operands(ws, 'SGRw', (
                '--setuid', '--setgid', '--root', '--wd', '--propagation',
                '--map-user', '--map-group', '--map-users', '--map-groups',
                '--setgroups')):]
        if cmd == 'xargs':
            return ws[operands(ws, 'nLPsIdaE', (
                '--max-args', '--max-lines', '--max-procs', '--max-chars',
                '--delimiter', '--arg-file', '--replace', '--eof')):]
        if cmd == 'flock':          # [opts] FILE CMD, FILE -c STR, or FD
            i = operands(ws, 'wE', ('--timeout', '--conflict-exit-code'))
            c = [k for k, w in enumerate(ws) if w.val in ('-c', '--command')]
            if c and c[0] + 1 < len(ws):
                self.script(ws[c[0] + 1].val, path, ws[c[0] + 1].line)
                return []
            if i < len(ws) and ws[i].val.isdigit():
                return []
            return ws[i + 1:]
        if cmd in ('sh', 'bash', 'dash'):   # [opts] -c STRING [ARG...]
            i = operands(ws, 'oO', flags=flags)
            if 'c' in flags and i < len(ws):
                self.script(ws[i].val, path, ws[i].line)
            return []
        if cmd == 'eval' and ws:
            self.script(' '.join(w.val for w in ws), path, ws[0].line)
        elif cmd == 'trap' and ws and ws[0].val and ws[0].val[0] != '-':
            self.script(ws[0].val, path, ws[0].line)
        elif cmd == 'find':         # ... -exec CMD ... {} ; / +
            i = 0
            while i < len(ws):
                if ws[i].val in ('-exec', '-execdir', '-ok', '-okdir'):
                    j = i + 1
                    while j < len(ws) and ws[j].val not in (';', '+'):
                        j += 1
                    self.command(ws[i + 1:j], path)
                    i = j
                i += 1
        return []

    def guest_tests(self):
        """The guest tests' XRDMA_PROGRAMS; their XRDMA_PREPARE steps are
        host commands: returned."""
        prepare = []
        for pat in GUEST_TESTS:
            for f in sorted(glob.glob(os.path.join(ROOT, pat),
                                      recursive=True)):
                rel = os.path.relpath(f, ROOT)
                if '**' in pat and rel.startswith(NOT_TESTS):
                    continue
                with open(f, errors='replace') as fh:
                    for n, line in enumerate(fh, 1):
                        m = re.match(r'# XRDMA_(PROGRAMS|PREPARE|FILES):(.*)',
                                     line)
                        if m and m.group(1) == 'PREPARE':
                            prepare += m.group(2).split()[:1]
                        elif m and m.group(1) == 'FILES':
                            for w in m.group(2).split():
                                self.files.setdefault(
                                    w.split(':')[0], set()).add((rel, n))
                        elif m:
                            for w in m.group(2).split():
                                self.use(w, rel, n, False)
        return prepare


def host_scripts(extra):
    files = set()
    for pat in HOST_SCRIPTS + tuple(extra):
        files.update(os.path.relpath(f, ROOT)
                     for f in glob.glob(os.path.join(ROOT, pat))
                     if os.path.isfile(f))
    return sorted(files - set(GUEST_SIDE))


def shell_files():
    """The repo's shell files (build/ aside), relative to ROOT."""
    found = []
    for d, subdirs, files in os.walk(ROOT):
        if d == ROOT:
            subdirs[:] = [s for s in subdirs if s not in ('build', '.git')]
        for f in files:
            p = os.path.join(d, f)
            if not f.endswith('.sh'):
                try:
                    with open(p, 'rb') as fh:
                        head = fh.read(64)
                except OSError:
                    continue
                if not re.match(rb'#!\s*/\S*/(env\s+)?(ba|da)?sh\b', head):
                    continue
            found.append(os.path.relpath(p, ROOT))
    return sorted(found)


class Functions:
    """The functions a script can call: those it defines, and those of
    the files it sources, found by the end of the path it gives "."
    (after the last expansion and any leading "../":
    "$(dirname "$0")/../tools/testing/harness/host/lib.sh")."""

    def __init__(self, sources):
        self.files, self.sources, self.cache = shell_files(), sources, {}

    def of(self, rel, seen=None):
        if rel in self.cache:
            return self.cache[rel]
        seen = (seen or set()) | {rel}
        try:
            with open(os.path.join(ROOT, rel), errors='replace') as fh:
                names = {m.group(1) or m.group(2)
                         for m in FUNC_DEF.finditer(fh.read())}
        except OSError:
            names = set()
        for word in self.sources.get(rel, []):
            tail = re.split(r'\$\(\.\.\.\)|\$\{[^}]*\}|\$\w+', word)[-1]
            # "$(dirname "$0")/../tools/testing/harness/host/lib.sh"
            tail = re.sub(r'^(\.\.?/)+', '', tail.lstrip('/'))
            if not tail:
                continue
            c = [f for f in self.files if ('/' + f).endswith('/' + tail)]
            near = [f for f in c if os.path.dirname(f) == os.path.dirname(rel)]
            for f in near or c:
                if f not in seen:
                    names |= self.of(f, seen)
        self.cache[rel] = names
        return names


def run(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL,
                              universal_newlines=True,
                              env=dict(os.environ, LC_ALL='C'))
    except OSError as e:
        fatal('%s: %s' % (argv[0], e))


def fatal(msg):
    print('deps-audit: ' + msg, file=sys.stderr)
    sys.exit(2)


def shell_builtins():
    r = run(['bash', '-c', 'compgen -b -k'])
    if r.returncode:
        fatal('bash -c "compgen -b -k" failed')
    return set(r.stdout.split())


def listed_packages():
    r = run(['sh', os.path.join(ROOT, DEPS), '--list'])
    if r.returncode or not r.stdout.split():
        fatal('"%s --list" printed no packages' % DEPS)
    return set(r.stdout.split())


def twin(p):
    """p's other name on a merged-/usr system."""
    for a, b in (('/usr/bin/', '/bin/'), ('/usr/sbin/', '/sbin/'),
                 ('/usr/lib/', '/lib/')):
        if p.startswith(a):
            return b + p[len(a):]
        if p.startswith(b):
            return a + p[len(b):]
    return p


def resolve(word):
    """(the path word runs, None), or (None, why there is none)."""
    cands = [word] if word.startswith('/') else \
        [os.path.join(d, word) for d in SYSDIRS]
    for p in cands:
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p, None
    if word.startswith('/'):
        return None, 'no program %s' % word
    why = 'not found in %s' % ':'.join(SYSDIRS)
    for d in ('/usr/local/sbin', '/usr/local/bin'):
        if os.path.isfile(os.path.join(d, word)):
            why += '; %s/%s was installed by hand' % (d, word)
    return None, why


def owners(paths):
    """path -> the packages shipping it (dpkg -S, once for all)."""
    own = {}
    for line in run(['dpkg-query', '-S'] + sorted(paths)).stdout.splitlines():
        # "pkg[:arch][, pkg...]: path"; dpkg-divert's lines do not count
        if line.startswith('diversion by ') or ': ' not in line:
            continue
        pkgs, path = line.split(': ', 1)
        own[path] = [p.strip().split(':')[0] for p in pkgs.split(',')]
    return own


def package_info(pkgs):
    """package -> (Essential, Priority)."""
    info = {}
    r = run(['dpkg-query', '-W', '-f=${Package}\t${Essential}\t${Priority}\n']
            + sorted(pkgs))
    for line in r.stdout.splitlines():
        p, e, prio = (line.split('\t') + ['', ''])[:3]
        info[p] = (e == 'yes', prio)
    return info


def audit(without=(), verbose=False, out=sys.stdout):
    """Print the audit; return the names of the programs that failed."""
    sc = Scanner()
    prepare = sc.guest_tests()
    for rel in host_scripts(p for p in prepare if not p.startswith('/')):
        with open(os.path.join(ROOT, rel), errors='replace') as fh:
            sc.script(fh.read(), rel)
    builtins, functions = shell_builtins(), Functions(sc.sources)
    listed = listed_packages() - set(without)

    # the programs, one per name and file run: ip and /usr/bin/ip are one
    progs = {}
    for word, uses in sc.uses.items():
        if '$' in word or ('/' in word and not word.startswith('/')):
            continue                # known at run time, or ours
        if not word.startswith('/'):
            uses = [u for u in uses if not u[2] or (
                word not in builtins and word not in functions.of(u[0]))]
        if not uses:
            continue
        path, why = resolve(word)
        key = (os.path.basename(word), path and os.path.realpath(path))
        p = progs.setdefault(key, {'names': set(), 'uses': set(),
                                   'path': path, 'why': why})
        p['names'].add(word)
        p['uses'].update(u[:2] for u in uses)
    # the host files the guest tests ship (XRDMA_FILES), as programs
    for f, uses in sc.files.items():
        have = os.path.exists(f)
        p = progs.setdefault((f, os.path.realpath(f) if have else None), {
            'names': {f}, 'uses': uses, 'path': f if have else None,
            'why': 'no %s on this machine' % f})

    # the files dpkg may know them by: as run, its /usr-merge twin, the
    # file a symlink (/etc/alternatives too) ends at, and its twin
    cands = {}
    for key, p in progs.items():
        if p['path']:
            real = os.path.realpath(p['path'])
            cands[key] = list(dict.fromkeys(
                [p['path'], twin(p['path']), real, twin(real)]))
    own = owners({c for cs in cands.values() for c in cs})
    info = package_info({q for cs in cands.values() for c in cs
                         for q in own.get(c, [])})

    failed, add = [], set()
    for key in sorted(progs, key=lambda k: (min(progs[k]['names'], key=len),
                                            k[0], k[1] or '')):
        p = progs[key]
        name = min(p['names'], key=len)
        uses = sorted(p['uses'])
        path, pkgs = p['path'], []
        if path:
            real = os.path.realpath(path)
            if real not in (path, twin(path)):
                path += ' -> ' + real
            pkgs = next((own[c] for c in cands[key] if c in own), [])
        good = [q for q in pkgs if q in listed or info.get(q, (0, ''))[0]]
        if good:
            print('ok   - %s (%s): %s, %s' % (
                name, path, good[0],
                'listed' if good[0] in listed else 'Essential'), file=out)
        else:
            if not p['path']:
                why = p['why']
            elif not pkgs:
                why = '%s is in no package: installed by hand' % path
            else:
                why = '%s is in %s, neither listed%s nor Essential' % (
                    path, ', '.join('%s (Priority: %s)' % (
                        q, info.get(q, (0, '?'))[1]) for q in pkgs),
                    ' (--without)' if set(pkgs) & set(without) else '')
                add.update(set(pkgs) - set(without))
            more = ' (+%d more)' % (len(uses) - 1) if len(uses) > 1 else ''
            print('FAIL - %s: used by %s:%d%s, not installed by %s (%s)' % (
                name, uses[0][0], uses[0][1], more, DEPS, why), file=out)
            failed.append(name)
        if verbose:
            for f, n in uses:
                print('    %s:%d' % (f, n), file=out)
    if verbose:
        for f, n, w in sorted(sc.dynamic):
            print('# %s:%d: %s: known at run time only, not checked' %
                  (f, n, w), file=out)
    if add:
        print('# packages to add to %s: %s' % (DEPS, ' '.join(sorted(add))),
              file=out)
    print('%d passed, %d failed' % (len(progs) - len(failed), len(failed)),
          file=out)
    return failed


# what the tokenizer must find (cN, and the wrappers) and leave (no*)
SELFTEST_SCRIPT = r'''
f() { g; }                      # a function: a word in command position
A=1 B="$(c1 "$(c2)")" c3 -x >/dev/null 2>&1 <<EOF
no1 $(no2)
EOF
cat <<-'X' | c4
	no3
	X
case "$1" in
a|b) c5 ;;
(c) c6 ;; *) c7
esac
for x in no4; do c8; done
Q=(c9 -arg "$x"); "${Q[@]}"
x=`c10` && [[ $x == no5 ]] || ((no6++))
env -i V=1 timeout -k 5 10s xargs -r -n 2 c11 & nice -n 5 c12 | c13
find . -name x -exec c14 {} \; ; stage name c15 arg; $SUDO c16 arg
bash -euo pipefail -c 'c17; "$1"' $no7
exec {fd}> >(c18 >&2)
echo "$(c19 'x)' ")")" # $(no8)
command -v c20 >/dev/null || "$no9"
'''
SELFTEST_EXPECT = {'c%d' % i for i in range(1, 21)} | {
    'cat', 'env', 'timeout', 'xargs', 'nice', 'find', 'stage', 'bash',
    'exec', 'echo', 'command', 'g'}


def selftest():
    sc = Scanner()
    sc.script(SELFTEST_SCRIPT, 'selftest')
    got = set(sc.uses)
    res = [("the tokenizer finds the fixture's commands",
            got == SELFTEST_EXPECT, 'missing %s, extra %s' % (
                sorted(SELFTEST_EXPECT - got), sorted(got - SELFTEST_EXPECT)))]
    with open(os.devnull, 'w') as null:
        failed = audit(without=('iproute2',), out=null)
    res.append(('--without iproute2 fails on ip and rdma',
                {'ip', 'rdma'} <= set(failed), 'failed: ' + ' '.join(failed)))
    for desc, good, why in res:
        print(('ok   - %s' if good else 'FAIL - %s: ' + why) % desc)
    bad = sum(not r[1] for r in res)
    print('%d passed, %d failed' % (len(res) - bad, bad))
    return bad


def main():
    ap = argparse.ArgumentParser(
        description='Does %s install every program the tests run?' % DEPS)
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='every use, and the commands known at run time only')
    ap.add_argument('--without', action='append', default=[], metavar='PKG',
                    help='audit as if PKG were not in the list')
    ap.add_argument('--selftest', action='store_true',
                    help='check the audit itself')
    args = ap.parse_args()
    if args.selftest:
        return 1 if selftest() else 0
    return 1 if audit(args.without, args.verbose) else 0


if __name__ == '__main__':
    sys.exit(main())
