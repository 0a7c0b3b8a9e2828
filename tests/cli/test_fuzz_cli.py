#!/usr/bin/env python3
"""cli.fuzz: a seeded mutation fuzz of every reader and subcommand that reads input, through the program.

Mutants (a fixed seed: the same cases on every run) of the committed inputs are fed to the
subcommands that read them:
  device profiles          predict, sweep, compare-devices
  kernel profiles          predict, sweep (with and without the SASS access patterns)
  validation measurements  validate --from
  CUPTI profiles           kernel-profile --counters, predict-app (stand-in cuobjdump/nvdisasm that print
                           the committed SASS fixture, so that no CUDA toolkit is needed)
  ncu's CSV                import-ncu, raw page and metric rows; an import that succeeds must be read by
                           kernel-profile --counters too (import-ncu writes nothing its readers refuse)
  compare-ncu folders      compare-ncu (its cupti-N.json or its ncu-N.csv mutated)
  SASS dumps               kernel-profile --sass/--cfg/--res-usage
  command lines            every subcommand above, options mutated (edge values, empty values,
                           devices, folders, inputs as -o, unknown options and subcommands, --name=)
Mutations: byte flips, deleted, duplicated and inserted spans, JSON tokens, numbers replaced by edge
values, values swapped for other types, truncation, bytes that are not UTF-8, CSV fields replaced by
malformed numbers, units and quoting.

A case fails on: exit 1 or any exit but 0 and 2, a signal, more than PER_CASE_SECONDS, "inf" or
"NaN" in any output (standard output, files written), a negative time in a JSON output, exit 2 with
anything but one line on standard error, or exit 2 with an output written (or an input changed).
The cases run on a pool of 2 threads, each in a folder of its own.
usage: test_fuzz_cli.py REPO WARPMODEL_BIN [CASES]
"""
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SEED = 20261207
PER_CASE_SECONDS = 10
WORKERS = 2

TOKENS = ['[', ']', '{', '}', ',', ':', '"', 'null', 'true', 'false', '-1', '0', '1e999', '-1e999', '1e-400', 'NaN',
          '""', '"x"', '[]', '{}', '9223372036854775808', '[' * 200, '{"a":' * 100, '\\u0000', '\x00', '\udcff',
          '\udcc3', '\xef\xbb\xbf']
EDGE_NUMBERS = ['-0', '0', '-1', '1', '1e308', '-1e308', '5e-324', '1e-300', '4294967296', '99999999999999999999',
                '2147483648', '2147483647', '18446744073709551616', '0.5', '-0.5', '3.5e9', '1e15', '1e16', '1e18',
                '1e19', '65536', '1025', '256', '33']
TYPE_SWAPS = ['true', 'false', 'null', '"12"', '"x"', '[]', '{}', '[1, 2]', '{"a": 1}']
CSV_VALUES = ['12,34', '0x10', 'NaN', 'nan', 'inf', '-1', '-51,936', '', 'n/a', '1e999', '1e308', '5e-324',
              '18,446,744,073,709,551,616', '2147483648', '(2147483648, 1, 1)', '(0, 1, 1)', '(1, 1)', 'Tbyte',
              'cycle', '%', 'furlong', '\udcff', '"', '""', 'a"b']
NUMBER = re.compile(r'-?\d+(\.\d+)?([eE][-+]?\d+)?')
JSON_SCALAR = re.compile(r'(?<=: )(-?\d+(\.\d+)?([eE][-+]?\d+)?|"[^"\n]*"|true|false|null)')
CSV_FIELD = re.compile(r'"[^"\n]*"')
# A number that is not one: inf or NaN in an output (not inside a word: "information", "provenance").
NOT_A_NUMBER = re.compile(r'(?<![A-Za-z0-9_])[-+]?(inf|infinity|nan)(?![A-Za-z0-9_])', re.IGNORECASE)
# JSON keys that hold a time: never negative; "cycles" and "seconds" of a prediction never null.
TIME_KEYS = {'cycles', 'seconds', 'duration_ns', 'measured_us', 'predicted_us', 'best_predicted_us',
             'total_measured_us', 'mean_s', 'median_s'}
PREDICTION_KEYS = {'cycles', 'seconds'}


def mutate(text, rng, csv=False):
    n = len(text)
    kind = rng.randrange(10)
    i = rng.randrange(n) if n else 0
    if kind == 0:  # flip a byte
        return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]
    if kind == 1:  # delete a span
        return text[:i] + text[i + rng.randrange(1, 64):]
    if kind == 2:  # duplicate a span
        j = min(n, i + rng.randrange(1, 200))
        return text[:j] + text[i:j] + text[j:]
    if kind == 3:  # insert a token
        return text[:i] + rng.choice(TOKENS) + text[i:]
    if kind == 4:  # a number becomes an edge value
        numbers = list(NUMBER.finditer(text))
        if not numbers:
            return text[:i]
        m = rng.choice(numbers)
        return text[:m.start()] + rng.choice(EDGE_NUMBERS) + text[m.end():]
    if kind == 5:  # truncate
        return text[:i]
    if kind == 6 and not csv:  # a value of another type
        values = list(JSON_SCALAR.finditer(text))
        if values:
            m = rng.choice(values)
            return text[:m.start()] + rng.choice(TYPE_SWAPS + EDGE_NUMBERS) + text[m.end():]
    if kind in (6, 7) and csv:  # a CSV field becomes a malformed value, unit or quoting
        fields = list(CSV_FIELD.finditer(text))
        if fields:
            m = rng.choice(fields)
            value = rng.choice(CSV_VALUES)
            return text[:m.start()] + (value if value.startswith('"') else '"' + value + '"') + text[m.end():]
    if kind == 8:  # a byte that is not UTF-8
        return text[:i] + rng.choice(['\udcff', '\udc80', '\udcc3', '\udced\udca0\udc80']) + text[i:]
    # several mutations at once
    for _ in range(rng.randrange(2, 5)):
        text = mutate(text, rng, csv) if text else text
    return text


def write_text(path, text):
    with open(path, 'w', encoding='utf-8', errors='surrogateescape', newline='') as f:
        f.write(text)


def digest(path):
    try:
        with open(path, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def json_problems(value, path=''):
    """Negative times, and predictions without a time, in a JSON document."""
    out = []
    if isinstance(value, dict):
        in_prediction = 'cycles' in value and 'model' in value
        for k, v in value.items():
            if k in TIME_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
                out.append(f'negative time {path}.{k} = {v}')
            if in_prediction and k in PREDICTION_KEYS and v is None:
                out.append(f'prediction without a time: {path}.{k} is null')
            out += json_problems(v, f'{path}.{k}')
    elif isinstance(value, list):
        for n, v in enumerate(value):
            out += json_problems(v, f'{path}[{n}]')
    return out


class Fuzz:
    def __init__(self, repo, binary, tmp):
        self.repo, self.binary, self.tmp = repo, binary, tmp
        self.shared = os.path.join(tmp, 'shared')
        os.makedirs(self.shared)
        r = lambda p: open(os.path.join(repo, p), encoding='utf-8').read()
        self.device_h200 = r('results/h200/device.json')
        self.device_k40 = r('model/data/k40-thesis.device.json')
        self.kernel = r('model/data/stencil-order2-k40-thesis.kernel.json')
        import lzma
        with lzma.open(os.path.join(repo, 'results/h200/validation-measurements.json.xz'), 'rt', encoding='utf-8') as f:
            measured = json.load(f)
        cases = [c for c in measured['cases'] if c['size'] in ('50^3', '256^2')][:16]
        for c in cases:
            c.pop('counters', None)
        self.measurements = json.dumps({'schema': measured['schema'], 'provenance': measured['provenance'],
                                        'cases': cases}, indent=1)
        collection = json.loads(r('results/h200/metrics.json'))
        profile = collection['profiles'][0]
        profile['launches'] = [l for l in profile['launches'] if 'naive_kernel' in l['kernel']][:2]
        self.counters = json.dumps(profile, indent=1)
        # predict-app sweeps every launch's shapes: one launch keeps its cases quick.
        self.counters_one = json.dumps(dict(profile, launches=profile['launches'][:1]), indent=1)
        self.sass_text = r('tests/profiles/sass/fixtures/sm90_stencils.sass')
        self.cfg_text = r('tests/profiles/sass/fixtures/sm90_stencils.cfg.dot')
        self.usage_text = r('tests/profiles/sass/fixtures/sm90_stencils.res-usage.txt')
        self.ncu_csv = r('tests/profiles/cupti/fixtures/ncu-comparison/ncu-0.csv')
        self.ncu_raw = r('tests/profiles/cupti/fixtures/app-example/ncu-raw.csv')
        long_rows = r('tests/profiles/cupti/fixtures/app-example/ncu-long.csv').split('\n')
        self.ncu_long = '\n'.join(long_rows[:4 + 2 * 37]) + '\n'  # the banner, the header, two launches
        self.cupti_json = r('tests/profiles/cupti/fixtures/ncu-comparison/cupti-0.json')

        s = lambda name: os.path.join(self.shared, name)
        # Every input the commands read is a copy here: a -o that a bug let through never reaches the
        # committed files.
        self.ncu_dir = s('ncu-comparison')
        shutil.copytree(os.path.join(repo, 'tests/profiles/cupti/fixtures/ncu-comparison'), self.ncu_dir)
        fixtures = s('sm90_stencils')
        for ext in ('.sass', '.cfg.dot', '.res-usage.txt'):
            shutil.copy(os.path.join(repo, 'tests/profiles/sass/fixtures/sm90_stencils' + ext), fixtures + ext)
        self.paths = {name: s(name) for name in ('device_h200.json', 'device_k40.json', 'kernel.json', 'counters.json',
                                                 'counters_one.json', 'patterns.json', 'measurements')}
        write_text(s('device_h200.json'), self.device_h200)
        write_text(s('device_k40.json'), self.device_k40)
        write_text(s('kernel.json'), self.kernel)
        write_text(s('counters.json'), self.counters)
        write_text(s('counters_one.json'), self.counters_one)
        os.makedirs(s('measurements'))
        write_text(os.path.join(s('measurements'), 'device.json'), self.device_h200)
        write_text(os.path.join(s('measurements'), 'validation-measurements.json'), self.measurements)
        self.sass = ['--sass', fixtures + '.sass', '--cfg', fixtures + '.cfg.dot', '--res-usage', fixtures + '.res-usage.txt']
        # Stand-ins for cuobjdump and nvdisasm: the committed SASS fixture for any cubin.
        tools = s('tools')
        os.makedirs(tools)
        write_text(os.path.join(tools, 'cuobjdump'),
                   '#!/bin/sh\ncase "$1" in\n  -sass) exec cat "%s.sass" ;;\n  -res-usage) exec cat "%s.res-usage.txt" ;;\n'
                   '  -xelf) : > 0.cubin ;;\n  *) exit 0 ;;\nesac\n' % (fixtures, fixtures))
        write_text(os.path.join(tools, 'nvdisasm'), '#!/bin/sh\nexec cat "%s.cfg.dot"\n' % fixtures)
        for t in ('cuobjdump', 'nvdisasm'):
            os.chmod(os.path.join(tools, t), 0o755)
        self.env = dict(os.environ, WARPMODEL_CUOBJDUMP=os.path.join(tools, 'cuobjdump'),
                        WARPMODEL_NVDISASM=os.path.join(tools, 'nvdisasm'))
        os.makedirs(s('cubins'))
        open(os.path.join(s('cubins'), '0.cubin'), 'w').close()
        # A kernel profile with the SASS addresses (the traffic model's input), made by the program.
        made = subprocess.run([binary, 'kernel-profile'] + self.sass + ['--kernel', 'naive_kernel<1>', '--counters',
                                                                         s('counters.json'), '-o', s('patterns.json')],
                              capture_output=True, env=self.env)
        if made.returncode != 0:
            raise SystemExit('cannot make the kernel profile with access patterns: ' + made.stderr.decode())
        self.patterns = open(s('patterns.json'), encoding='utf-8').read()

    # --- the targets: (weight, name, seed text, file name, csv?, command(input, case folder) -> (argv, outputs)) ---
    def targets(self):
        p, sass = self.paths, self.sass
        out = lambda d: os.path.join(d, 'out')
        return [
            (6, 'device', self.device_h200, 'device.json', False,
             lambda f, d: (['predict', '--device', f, '--kernel', p['patterns.json'], '--model', 'all', '--format', 'json',
                            '-o', out(d)], [out(d)])),
            (6, 'device', self.device_k40, 'device.json', False,
             lambda f, d: (['predict', '--device', f, '--kernel', p['kernel.json'], '--model', 'thesis-2016', '--format',
                            'json', '-o', out(d)], [out(d)])),
            (3, 'device', self.device_k40, 'device.json', False,
             lambda f, d: (['sweep', '--device', f, '--kernel', p['kernel.json'], '--model', 'thesis-2016', '--top', '3',
                            '--format', 'json', '-o', out(d)], [out(d)])),
            (3, 'device', self.device_k40, 'device.json', False,
             lambda f, d: (['compare-devices', p['device_h200.json'], f, '--format', 'markdown', '-o', out(d)], [out(d)])),
            (6, 'kernel', self.kernel, 'kernel.json', False,
             lambda f, d: (['predict', '--device', p['device_k40.json'], '--kernel', f, '--model', 'all', '--format',
                            'csv', '-o', out(d)], [out(d)])),
            (2, 'kernel', self.kernel, 'kernel.json', False,
             lambda f, d: (['sweep', '--device', p['device_k40.json'], '--kernel', f, '--model', 'gpuperf-2012',
                            '--format', 'json', '-o', out(d)], [out(d)])),
            (5, 'kernel', self.patterns, 'kernel.json', False,
             lambda f, d: (['predict', '--device', p['device_h200.json'], '--kernel', f, '--format', 'json', '-o', out(d)],
                           [out(d)])),
            (1, 'kernel', self.patterns, 'kernel.json', False,
             lambda f, d: (['sweep', '--device', p['device_h200.json'], '--kernel', f, '--top', '2', '--format', 'json',
                            '-o', out(d)], [out(d)])),
            (5, 'measurements', self.measurements, 'validation-measurements.json', False,
             lambda f, d: (['validate', '--from', d, '-o', out(d)], [out(d)])),
            (4, 'counters', self.counters, 'counters.json', False,
             lambda f, d: (['kernel-profile'] + sass + ['--kernel', 'naive_kernel<1>', '--counters', f, '-o', out(d)],
                           [out(d)])),
            (1, 'counters', self.counters_one, 'counters.json', False,
             lambda f, d: (['predict-app', '--profile', f, '--device', p['device_h200.json'], '--cubins',
                            os.path.join(self.shared, 'cubins'), '--format', 'json', '-o', out(d)], [out(d)])),
            (5, 'ncu raw page', self.ncu_csv, 'ncu.csv', True,
             lambda f, d: (['import-ncu', f, '-o', out(d)], [out(d)])),
            (4, 'ncu raw page', self.ncu_raw, 'ncu.csv', True,
             lambda f, d: (['import-ncu', f, '-o', out(d)], [out(d)])),
            (5, 'ncu metric rows', self.ncu_long, 'ncu.csv', True,
             lambda f, d: (['import-ncu', f, '-o', out(d)], [out(d)])),
            (3, 'compare-ncu folder', self.ncu_csv, 'ncu-0.csv', True,
             lambda f, d: (['compare-ncu', '--from', d, '-o', out(d)], [out(d) + '.md', out(d) + '.json'])),
            (3, 'compare-ncu folder', self.cupti_json, 'cupti-0.json', False,
             lambda f, d: (['compare-ncu', '--from', d, '-o', out(d)], [out(d) + '.md', out(d) + '.json'])),
            (2, 'SASS listing', self.sass_text, 'k.sass', False,
             lambda f, d: (['kernel-profile', '--sass', f, '--kernel', 'naive_kernel<1>', '--launch',
                            'grid=8x8x8,block=8x8x4', '-o', out(d)], [out(d)])),
            (2, 'CFG', self.cfg_text, 'k.cfg.dot', False,
             lambda f, d: (['kernel-profile', '--sass', sass[1], '--cfg', f, '--kernel', 'naive_kernel<1>', '--launch',
                            'grid=8x8x8,block=8x8x4', '-o', out(d)], [out(d)])),
            (2, 'resource usage', self.usage_text, 'k.res-usage.txt', False,
             lambda f, d: (['kernel-profile', '--sass', sass[1], '--res-usage', f, '--kernel', 'naive_kernel<1>',
                            '--launch', 'grid=8x8x8,block=8x8x4', '-o', out(d)], [out(d)])),
        ]

    # --- command lines: valid commands, one option mutated ---
    def command_lines(self):
        p, sass = self.paths, self.sass
        cubins = os.path.join(self.shared, 'cubins')
        csv = os.path.join(self.ncu_dir, 'ncu-0.csv')
        return [
            ['predict', '--device', p['device_k40.json'], '--kernel', p['kernel.json'], '--model', 'thesis-2016',
             '--format', 'json', '-o', '{out}'],
            ['sweep', '--device', p['device_k40.json'], '--kernel', p['kernel.json'], '--model', 'thesis-2016', '--top',
             '3', '-o', '{out}'],
            ['reproduce-thesis', '--format', 'markdown', '-o', '{out}'],
            ['compare-devices', p['device_h200.json'], p['device_k40.json'], '--names', 'a,b', '-o', '{out}'],
            ['validate', '--from', p['measurements'], '-o', '{out}'],
            ['kernel-profile'] + sass + ['--kernel', 'naive_kernel<1>', '--counters', p['counters.json'],
                                         '--launch-index', '0', '--device', p['device_h200.json'], '-o', '{out}'],
            ['sass-analyze', '--sass', sass[1], '--format', 'json', '-o', '{out}'],
            ['import-ncu', csv, '-o', '{out}'],
            ['compare-ncu', '--from', self.ncu_dir, '-o', '{out}'],
            ['predict-app', '--profile', p['counters_one.json'], '--device', p['device_h200.json'], '--cubins', cubins,
             '--group', '--format', 'csv', '-o', '{out}'],
        ]

    def option_values(self, d):
        # Names that do not exist lie inside the case's own folder: a value that is written to (a valid
        # -o) must never create files outside the run's temporary folder.
        return ['', '-1', '0', '1e3', '5e-324', '99999999999999999999', 'x', '/dev/zero', '/dev/null',
                os.path.join(d, 'no-such-folder', 'file'), self.shared, d, self.paths['device_k40.json'],
                self.paths['kernel.json'], '\udcff', 'a' * 3000, '--', '-h']

    def mutate_command(self, argv, rng, d):
        argv = list(argv)
        options = [i for i, a in enumerate(argv) if a.startswith('-') and i + 1 < len(argv)]
        kind = rng.randrange(7)
        if kind <= 1 and options:  # an option's value becomes an edge value
            i = rng.choice(options)
            if not argv[i + 1].startswith('-'):
                argv[i + 1] = rng.choice(self.option_values(d))
        elif kind == 2 and options:  # --name=value, --name=
            i = rng.choice(options)
            if argv[i].startswith('--'):
                argv[i:i + 2] = [argv[i] + '=' + rng.choice(['', argv[i + 1], 'x'])]
        elif kind == 3 and options:  # an option left out, or given twice
            i = rng.choice(options)
            argv = argv[:i] + argv[i + 2:] if rng.randrange(2) else argv[:i + 2] + argv[i:]
        elif kind == 4:  # an unknown option, or a stray word
            argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(['--no-such-option', 'stray', '-z', '--help']))
        elif kind == 5:  # another subcommand's name, a typo, an unknown one
            argv[0] = rng.choice(['no-such-command', 'roofline', argv[0][:-1], argv[0] + 's', 'predict', 'sweep',
                                  'compare-ncu', '\udcff'])
        else:  # -o onto an input, a folder, a device node
            if '-o' in argv:
                i = argv.index('-o')
                inputs = [a for a in argv if os.path.isfile(a)]
                argv[i + 1] = rng.choice(inputs + [self.shared, '/dev/null', d] if inputs else [self.shared, '/dev/null'])
        return argv

    # --- one case ---
    def run_case(self, n, label, text, name, build, d, input_path):
        os.makedirs(d)
        input_text = ''
        if build is not None:  # a mutated file
            if name == 'validation-measurements.json':
                write_text(os.path.join(d, 'device.json'), self.device_h200)
            if name in ('ncu-0.csv', 'cupti-0.json'):
                for other in ('cupti-0.json', 'ncu-0.csv', 'ncu-version.txt'):
                    shutil.copy(os.path.join(self.ncu_dir, other), d)
            input_path = os.path.join(d, name)
            write_text(input_path, text)
            input_text = text
            argv, outputs = build(input_path, d)
        else:  # a mutated command line
            out = os.path.join(d, 'out')
            argv = [a.replace('{out}', out) for a in text]
            outputs = [a for a in argv if a == out] + ([out + '.md', out + '.json'] if argv and argv[0] == 'compare-ncu' else [])
            input_text = ' '.join(argv)
        # What -o names before the run (an input, a device node): unchanged on exit 2.
        watched = {}
        for i, a in enumerate(argv[:-1]):
            if a in ('-o', '--output') and os.path.exists(argv[i + 1]) and not os.path.isdir(argv[i + 1]):
                watched[argv[i + 1]] = digest(argv[i + 1]) if os.path.isfile(argv[i + 1]) else 'not a file'
        args = [self.binary] + [a.encode('utf-8', 'surrogateescape') for a in argv]
        start = time.time()
        try:
            r = subprocess.run(args, capture_output=True, timeout=PER_CASE_SECONDS, env=self.env, cwd=d)
        except subprocess.TimeoutExpired:
            return n, None, f'more than {PER_CASE_SECONDS} s', input_path, argv
        seconds = time.time() - start
        err = r.stderr.decode('utf-8', 'replace')
        out_text = r.stdout.decode('utf-8', 'replace')
        problem = None
        gpu = argv and argv[0] in ('devices', 'characterize', 'run-stencil', 'run-adi', 'profile', 'metrics')
        written = [o for o in outputs if os.path.exists(o) and o not in watched]
        leftovers = [f for f in os.listdir(d) if '.tmp' in f]
        if r.returncode < 0:
            problem = f'killed by signal {-r.returncode}'
        elif r.returncode not in (0, 2) and not (gpu and r.returncode == 3):
            problem = f'exit {r.returncode}: {err.strip()[:300]}'
        elif r.returncode == 2:
            if err.count('\n') != 1 or not err.strip():
                problem = f'exit 2 with {err.count(chr(10))} stderr lines: {err[:300]!r}'
            elif written or leftovers:
                problem = f'exit 2 but written: {written + leftovers}'
            for path, before in watched.items():
                now = digest(path) if os.path.isfile(path) else 'not a file'
                if now != before:
                    problem = f'exit 2 but {path} changed'
        else:
            texts = [('standard output', out_text)]
            for o in written:
                if os.path.isfile(o):
                    texts.append((o, open(o, encoding='utf-8', errors='replace').read()))
                elif os.path.isdir(o):
                    for f in sorted(os.listdir(o)):
                        texts.append((f, open(os.path.join(o, f), encoding='utf-8', errors='replace').read()))
            echoed = NOT_A_NUMBER.search(input_text) is not None  # a name holding "NaN" printed back
            for where, t in texts:
                if not echoed and (m := NOT_A_NUMBER.search(t)):
                    problem = f'{m.group(0)!r} in {where}: ...{t[max(0, m.start() - 80):m.end() + 20]!r}'
                    break
                if where.endswith('.json') or where == os.path.join(d, 'out') or t.lstrip().startswith(('{', '[')):
                    try:
                        doc = json.loads(t)
                    except ValueError:
                        continue
                    if found := json_problems(doc):
                        problem = f'{where}: {found[0]}'
                        break
            # import-ncu writes only what its readers accept: kernel-profile reads the import, and may
            # only say that the kernel is not in it.
            if not problem and argv[0] == 'import-ncu' and os.path.isfile(os.path.join(d, 'out')):
                back = subprocess.run([self.binary, 'kernel-profile'] + self.sass +
                                      ['--kernel', 'naive_kernel<1>', '--counters', os.path.join(d, 'out')],
                                      capture_output=True, timeout=PER_CASE_SECONDS, env=self.env)
                why = back.stderr.decode('utf-8', 'replace')
                if back.returncode not in (0, 2) or (back.returncode == 2 and 'no launch of' not in why):
                    problem = f'kernel-profile refuses what import-ncu wrote: exit {back.returncode}: {why.strip()[:300]}'
        if problem:
            # Kept past the run (the temporary folder goes): the input that failed, to replay.
            keep = os.path.join(tempfile.gettempdir(), f'warpmodel-fuzz-{os.getpid()}', f'case-{n}')
            shutil.copytree(d, keep, dirs_exist_ok=True)
            return n, r.returncode, problem, keep, argv
        shutil.rmtree(d, ignore_errors=True)
        return n, r.returncode, None, seconds, argv


def main():
    repo, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    total = int(sys.argv[3]) if len(sys.argv) > 3 else 5400
    # The per-case limit (10 s) is the product's; an instrumented build (ASan + UBSan at -O0) runs the
    # same case 10-25 times slower, so the sanitizer stage passes its own limit.
    global PER_CASE_SECONDS
    PER_CASE_SECONDS = int(sys.argv[4]) if len(sys.argv) > 4 else PER_CASE_SECONDS
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        fuzz = Fuzz(repo, binary, tmp)
        targets = fuzz.targets()
        commands = fuzz.command_lines()
        # The weighted list of what each case is: files (their weights) and command lines (one part in 8).
        plan = [t for t in targets for _ in range(t[0])]
        cases = []
        for n in range(total):
            d = os.path.join(tmp, f'case-{n}')
            if n % 8 == 7:
                argv = fuzz.mutate_command(rng.choice(commands), rng, d)
                cases.append((n, 'command line', argv, None, None, d, None))
            else:
                _, label, seed_text, name, csv, build = plan[rng.randrange(len(plan))]
                cases.append((n, label, mutate(seed_text, rng, csv), name, build, d, None))
        start = time.time()
        failures, outcomes, slowest, by_target = [], {}, (0, None), {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for n, code, problem, extra, argv in pool.map(lambda c: fuzz.run_case(*c), cases):
                outcomes[code] = outcomes.get(code, 0) + 1
                if problem:
                    failures.append(f'case {n} ({cases[n][1]}: {" ".join(str(a)[:80] for a in argv)}): {problem} '
                                    f'[kept in {extra}]')
                    continue
                target = f'{cases[n][1]} -> {argv[0] if argv else "?"}'
                count, spent = by_target.get(target, (0, 0.0))
                by_target[target] = (count + 1, spent + extra)
                if extra > slowest[0]:
                    slowest = (extra, argv[0])
        seconds = time.time() - start
        for f in failures[:20]:
            print('FAIL:', f)
        print('cases and seconds per target: ' + '; '.join(
            f'{t} {c} ({s:.1f} s)' for t, (c, s) in sorted(by_target.items(), key=lambda kv: -kv[1][1])[:12]))
    by_code = ', '.join(f'{k}: {v}' for k, v in sorted(outcomes.items(), key=lambda kv: str(kv[0])))
    print(f'{total} cases (seed {SEED}) in {seconds:.1f} s on {WORKERS} threads; exit codes {by_code}; slowest case '
          f'{slowest[0]:.2f} s ({slowest[1]}); {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
