#!/usr/bin/env node
'use strict';
const USAGE = `Cross-check generated node tests with ONNX Runtime.

  node check_node_tests.js DIR [--case NAME ...] [--rtol R --atol A] [--json FILE]

DIR is the output of gen_node_tests.py generate (DIR/list.json, DIR/node/...).
For every case: run model.onnx (and model.const.onnx when present) on
test_data_set_*/input_*.npy and compare with output_*.npy element-wise,
|ort - expected| <= atol + rtol*|expected| (default: each case's own rtol/atol,
as the ONNX backend test runner uses them). Exit 0 if all agree, 1 otherwise.`;

const fs = require('fs');
const path = require('path');
const npy = require('./npy');

function usage(msg) {
  if (msg) process.stderr.write(`check_node_tests: ${msg}\n`);
  process.stderr.write(USAGE + '\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { cases: [], rtol: null, atol: null, json: null };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage(`${s} needs a value`); return argv[++i]; };
    if (s === '-h' || s === '--help') { process.stdout.write(USAGE + '\n'); process.exit(0); }
    else if (s === '--case') a.cases.push(val());
    else if (s === '--rtol') a.rtol = Number(val());
    else if (s === '--atol') a.atol = Number(val());
    else if (s === '--json') a.json = val();
    else if (s.startsWith('-')) usage(`unknown option ${s}`);
    else if (!a.dir) a.dir = s;
    else usage(`unexpected argument ${s}`);
  }
  if (!a.dir) usage('no directory given');
  return a;
}

// Worst violation of |x - y| <= atol + rtol*|y| (<= 0 means all within),
// plus the max abs error; exact equality for integer and bool types.
function closeness(got, want, rtol, atol) {
  let worst = -Infinity;
  let maxAbs = 0;
  const exact = !['float32', 'float64', 'float16'].includes(want.dtype);
  for (let i = 0; i < want.data.length; i++) {
    const x = Number(got.data[i]);
    const y = Number(want.data[i]);
    if (Number.isNaN(x) || Number.isNaN(y)) {
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      return { worst: Infinity, maxAbs: NaN };
    }
    const d = x === y ? 0 : Math.abs(x - y); // x === y also covers equal infinities
    maxAbs = Math.max(maxAbs, d);
    worst = Math.max(worst, exact ? d : d - (atol + rtol * Math.abs(y)));
  }
  return { worst, maxAbs };
}

async function runCase(ort, dir, entry, args) {
  const caseDir = path.join(dir, 'node', entry.name);
  const rtol = args.rtol ?? entry.rtol;
  const atol = args.atol ?? entry.atol;
  const problems = [];
  let maxAbs = 0;
  const variants = [['model.onnx', null]];
  if (entry.const_model) variants.push([entry.const_model, entry.const_inputs]);
  for (const [file, inputIdx] of variants) {
    const session = await ort.InferenceSession.create(path.join(caseDir, file), { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
    for (let d = 0; d < entry.data_sets; d++) {
      const ds = path.join(caseDir, `test_data_set_${d}`);
      const idx = inputIdx ?? entry.inputs.map((_, k) => k);
      if (idx.length !== session.inputNames.length) {
        problems.push(`${file}: ${session.inputNames.length} inputs, ${idx.length} expected`);
        continue;
      }
      const feeds = {};
      idx.forEach((k, j) => {
        const a = npy.read(path.join(ds, `input_${k}.npy`));
        feeds[session.inputNames[j]] = new ort.Tensor(a.dtype, a.data, a.shape);
      });
      const res = await session.run(feeds);
      session.outputNames.forEach((n, k) => {
        const want = npy.read(path.join(ds, `output_${k}.npy`));
        const got = res[n];
        const gotShape = got.dims.map(Number);
        if (got.type !== want.dtype || gotShape.join() !== want.shape.join()) {
          problems.push(`${file} output ${k}: ${got.type}[${gotShape}] vs expected ${want.dtype}[${want.shape}]`);
          return;
        }
        const c = closeness(got, want, rtol, atol);
        maxAbs = Math.max(maxAbs, c.maxAbs);
        if (!(c.worst <= 0)) problems.push(`${file} output ${k}: max abs error ${c.maxAbs} beyond atol ${atol} + rtol ${rtol}`);
      });
    }
    if (session.release) await session.release();
  }
  return { name: entry.name, ok: problems.length === 0, max_abs: maxAbs, problems, variants: variants.length };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const listFile = path.join(args.dir, 'list.json');
  if (!fs.existsSync(listFile)) usage(`${listFile} not found (run gen_node_tests.py generate first)`);
  const list = JSON.parse(fs.readFileSync(listFile, 'utf8'));
  let entries = list.cases;
  if (args.cases.length) {
    const unknown = args.cases.filter((c) => !entries.some((e) => e.name === c));
    if (unknown.length) usage(`unknown case(s) ${unknown.join(', ')}`);
    entries = entries.filter((e) => args.cases.includes(e.name));
  }
  let ort;
  try { ort = require('onnxruntime-node'); } catch (e) {
    process.stderr.write(`check_node_tests: cannot load onnxruntime-node (${e.message.split('\n')[0]}); run scripts/models/install-ort.sh\n`);
    process.exit(1);
  }
  const results = [];
  for (const e of entries) {
    let r;
    try { r = await runCase(ort, args.dir, e, args); } catch (err) {
      r = { name: e.name, ok: false, max_abs: NaN, problems: [`ONNX Runtime error: ${err.message.split('\n')[0]}`] };
    }
    results.push(r);
    if (!r.ok) process.stdout.write(`FAIL ${r.name}: ${r.problems.join('; ')}\n`);
  }
  const failed = results.filter((r) => !r.ok);
  const models = results.reduce((s, r) => s + (r.variants || 0), 0);
  process.stdout.write(`check_node_tests: ${results.length - failed.length}/${results.length} cases agree with ONNX Runtime ` +
    `(${models} models run; ort ${ort.env.versions ? ort.env.versions.node : '?'})\n`);
  if (args.json) {
    const tmp = `${args.json}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ results }, null, 1) + '\n');
    fs.renameSync(tmp, args.json);
  }
  process.exit(failed.length ? 1 : 0);
}

main().catch((e) => { process.stderr.write(`check_node_tests: ${e.stack || e}\n`); process.exit(1); });
