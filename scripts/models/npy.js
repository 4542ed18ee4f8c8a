'use strict';
// Minimal reader and writer of NumPy .npy files (format versions 1.0-3.0,
// C order, little endian), so the Node tools need no package beyond
// onnxruntime-node. Arrays are {dtype, shape, data} with dtype an ONNX
// Runtime tensor type name and data the matching typed array.

const fs = require('fs');
const path = require('path');

// npy descr -> [ORT tensor type, typed array constructor]
const DESCR = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array], // raw IEEE half bits
  '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array],
  '<i2': ['int16', Int16Array],
  '<u2': ['uint16', Uint16Array],
  '<i4': ['int32', Int32Array],
  '<u4': ['uint32', Uint32Array],
  '<i8': ['int64', BigInt64Array],
  '<u8': ['uint64', BigUint64Array],
  '|b1': ['bool', Uint8Array],
};
// numpy also writes single-byte types with '<' or '=' on some paths.
for (const k of ['i1', 'u1', 'b1']) { DESCR['<' + k] = DESCR['|' + k]; DESCR['=' + k] = DESCR['|' + k]; }
const TYPE_TO_DESCR = {
  float32: '<f4', float64: '<f8', float16: '<f2', int8: '|i1', uint8: '|u1', int16: '<i2',
  uint16: '<u2', int32: '<i4', uint32: '<u4', int64: '<i8', uint64: '<u8', bool: '|b1',
};

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

if (require('os').endianness() !== 'LE') {
  throw new Error('npy.js: assumes a little-endian host');
}

function fail(file, msg) {
  throw new Error(`${file}: ${msg}`);
}

function parse(buf, file = '<buffer>') {
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) fail(file, 'not a .npy file (bad magic)');
  const major = buf[6];
  let hlen, hstart;
  if (major === 1) { hlen = buf.readUInt16LE(8); hstart = 10; }
  else if (major === 2 || major === 3) { hlen = buf.readUInt32LE(8); hstart = 12; }
  else fail(file, `unsupported .npy version ${major}.${buf[7]}`);
  if (hstart + hlen > buf.length) fail(file, 'truncated header');
  const header = buf.subarray(hstart, hstart + hlen).toString(major === 3 ? 'utf8' : 'latin1');
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) fail(file, `cannot parse header ${JSON.stringify(header)}`);
  if (fortran[1] === 'True') fail(file, 'Fortran-order arrays are not supported (save with np.ascontiguousarray)');
  const entry = DESCR[descr[1]];
  if (!entry) fail(file, `unsupported dtype '${descr[1]}' (supported: ${Object.keys(DESCR).join(' ')})`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) fail(file, `bad shape (${shape[1]})`);
  const [type, Ctor] = entry;
  const count = dims.reduce((a, b) => a * b, 1);
  const start = hstart + hlen;
  const bytes = count * Ctor.BYTES_PER_ELEMENT;
  if (buf.length - start !== bytes) fail(file, `data is ${buf.length - start} bytes, shape (${dims}) of ${descr[1]} needs ${bytes}`);
  // Copy into a fresh, aligned ArrayBuffer (the file buffer may be unaligned).
  const data = new Ctor(count);
  new Uint8Array(data.buffer).set(buf.subarray(start, start + bytes));
  return { dtype: type, shape: dims, data };
}

function read(file) {
  return parse(fs.readFileSync(file), file);
}

function serialize({ dtype, shape, data }) {
  const descr = TYPE_TO_DESCR[dtype];
  if (!descr) throw new Error(`npy.js: cannot write dtype ${dtype}`);
  const dims = shape.map(Number);
  const shapeStr = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  // Pad so the data starts on a 64-byte boundary, header ends with '\n'.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header + ' '.repeat(total - 10 - header.length - 1) + '\n';
  if (header.length > 65535) throw new Error('npy.js: header too long');
  const pre = Buffer.alloc(10);
  MAGIC.copy(pre, 0);
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new Error(`npy.js: ${data.length} elements for shape (${dims})`);
  let payload = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (dtype === 'bool') payload = Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)));
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), payload]);
}

// Written to a temporary file in the same directory and renamed, so a reader
// never sees a half-written array.
function write(file, array) {
  const buf = serialize(array);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, buf);
    fs.renameSync(tmp, file);
  } catch (e) {
    try { fs.unlinkSync(tmp); } catch (_) { /* already gone */ }
    throw e;
  }
}

module.exports = { parse, read, serialize, write, DESCR };
