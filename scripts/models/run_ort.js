#!/usr/bin/env node
'use strict';
const USAGE = `Run an ONNX model with ONNX Runtime (CPU) on .npy inputs.

  node run_ort.js MODEL.onnx IN.npy [IN2.npy ...] -o OUT.npy
  node run_ort.js MODEL.onnx IN.npy [...] --out-dir DIR     (output_0.npy, output_1.npy, ...)
  node run_ort.js MODEL.onnx --each IN1.npy IN2.npy ... --out-dir DIR
                                                            (one run per file, DIR/<same name>)
Inputs bind to the model's graph inputs in order; NAME=FILE binds by name.
Options:
  --repeat N     run N times (after one warm-up run) and report the median time
  --threads N    intra-op threads (default: ONNX Runtime's choice)
  --opt LEVEL    graph optimization: disabled | basic | extended | all (default all)
  --json         print the timing summary as one JSON line
Exit status: 0 ok, 2 usage or input errors, 1 runtime errors.`;

const fs = require('fs');
const path = require('path');
const npy = require('./npy');

function usage(msg) {
  if (msg) process.stderr.write(`run_ort: ${msg}\n`);
  process.stderr.write(USAGE + '\n');
  process.exit(2);
}

// Errors in the data or the model, as opposed to the command line: no usage text.
function die(msg, code) {
  process.stderr.write(`run_ort: ${msg}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const a = { inputs: [], out: null, outDir: null, each: false, repeat: 0, threads: 0, opt: 'all', json: false };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage(`${s} needs a value`); return argv[++i]; };
    if (s === '-h' || s === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (s === '-o' || s === '--out') a.out = val();
    else if (s === '--out-dir') a.outDir = val();
    else if (s === '--each') a.each = true;
    else if (s === '--repeat') a.repeat = Number(val());
    else if (s === '--threads') a.threads = Number(val());
    else if (s === '--opt') a.opt = val();
    else if (s === '--json') a.json = true;
    else if (s.startsWith('-')) usage(`unknown option ${s}`);
    else if (!a.model) a.model = s;
    else a.inputs.push(s);
  }
  if (!a.model) usage('no model given');
  if (!a.inputs.length) usage('no input .npy given');
  if (!a.out && !a.outDir && !a.repeat) usage('give -o OUT.npy or --out-dir DIR (or --repeat N to only time)');
  if (a.each && a.out) usage('--each writes several outputs: use --out-dir');
  if (!Number.isInteger(a.repeat) || a.repeat < 0) usage('--repeat needs a non-negative integer');
  if (!Number.isInteger(a.threads) || a.threads < 0) usage('--threads needs a non-negative integer');
  if (!['disabled', 'basic', 'extended', 'all'].includes(a.opt)) usage(`bad --opt ${a.opt}`);
  return a;
}

function loadOrt() {
  try {
    return require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`run_ort: cannot load onnxruntime-node (${e.message.split('\n')[0]}).\n` +
      'Install it with scripts/models/install-ort.sh.\n');
    process.exit(1);
  }
}

function readInput(file) {
  try {
    return npy.read(file);
  } catch (e) {
    return die(e.message, 2);
  }
}

// Build the feeds for one run: positional files in graph-input order, or NAME=FILE.
function feedsFor(ort, session, specs) {
  const names = session.inputNames;
  if (specs.length !== names.length) {
    die(`model has ${names.length} input(s) [${names.join(', ')}], ${specs.length} file(s) given`, 2);
  }
  const feeds = {};
  specs.forEach((spec, k) => {
    let name = names[k];
    let file = spec;
    const eq = spec.indexOf('=');
    if (eq > 0 && names.includes(spec.slice(0, eq))) { name = spec.slice(0, eq); file = spec.slice(eq + 1); }
    if (name in feeds) die(`input ${name} bound twice`, 2);
    const arr = readInput(file);
    feeds[name] = new ort.Tensor(arr.dtype, arr.data, arr.shape);
  });
  return feeds;
}

function toNpy(tensor) {
  let data = tensor.data;
  if (tensor.type === 'string') throw new Error('string outputs are not supported');
  if (tensor.type === 'float16' && !(data instanceof Uint16Array)) {
    data = new Uint16Array(data.buffer, data.byteOffset, data.length); // Float16Array: same bits
  }
  return { dtype: tensor.type, shape: tensor.dims.map(Number), data };
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.model)) die(`no such model ${args.model}`, 2);
  const ort = loadOrt();
  const opts = { graphOptimizationLevel: args.opt, executionProviders: ['cpu'], logSeverityLevel: 3 };
  if (args.threads) opts.intraOpNumThreads = args.threads;

  const t0 = performance.now();
  let session;
  try {
    session = await ort.InferenceSession.create(args.model, opts);
  } catch (e) {
    process.stderr.write(`run_ort: cannot load ${args.model}: ${e.message}\n`);
    process.exit(1);
  }
  const loadMs = performance.now() - t0;

  const runs = args.each ? args.inputs.map((f) => [f]) : [args.inputs];
  if (args.outDir) fs.mkdirSync(args.outDir, { recursive: true });
  const times = [];
  for (const specs of runs) {
    const feeds = feedsFor(ort, session, specs);
    let t = performance.now();
    let results;
    try {
      results = await session.run(feeds);
    } catch (e) {
      die(`${path.basename(args.model)} on ${specs.join(' ')}: ${e.message}`, 1);
    }
    const firstMs = performance.now() - t;
    for (let r = 0; r < args.repeat; r++) {
      t = performance.now();
      await session.run(feeds);
      times.push(performance.now() - t);
    }
    if (!args.repeat) times.push(firstMs);

    const outNames = session.outputNames;
    if (args.out) {
      if (outNames.length !== 1) die(`model has ${outNames.length} outputs [${outNames.join(', ')}]: use --out-dir`, 2);
      npy.write(args.out, toNpy(results[outNames[0]]));
    } else if (args.outDir && args.each) {
      if (outNames.length !== 1) die('--each needs a single-output model', 2);
      npy.write(path.join(args.outDir, path.basename(specs[0])), toNpy(results[outNames[0]]));
    } else if (args.outDir) {
      outNames.forEach((n, k) => npy.write(path.join(args.outDir, `output_${k}.npy`), toNpy(results[n])));
    }
  }

  const summary = {
    model: args.model, runs: runs.length, repeat: args.repeat,
    load_ms: +loadMs.toFixed(2), run_ms_median: +median(times).toFixed(3),
    run_ms_min: +Math.min(...times).toFixed(3), run_ms_max: +Math.max(...times).toFixed(3),
    threads: args.threads || 'default', ort: ort.env.versions ? ort.env.versions.node : undefined,
  };
  if (args.json) process.stdout.write(JSON.stringify(summary) + '\n');
  else {
    process.stdout.write(`run_ort: ${path.basename(args.model)}: load ${summary.load_ms} ms, run median ` +
      `${summary.run_ms_median} ms (min ${summary.run_ms_min}, max ${summary.run_ms_max}, ${times.length} timed)\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`run_ort: ${e.stack || e}\n`);
  process.exit(1);
});
