// Runs model.onnx from `mirrortrain export --format onnx` in ONNX Runtime (onnxruntime-node) on
// sample_input.npy and checks the outputs against sample_output.npy, what Mirror Workbench computed.
// Usage: node check_onnx_runtime.js EXPORT_DIR...  (outputs must agree to 1e-5 of their scale)   (NODE_PATH must reach onnxruntime-node)
const fs = require('fs');
const ort = require('onnxruntime-node');

// A version 1 .npy file of little-endian float32 or int64, C order.
function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
  const headerLength = b.readUInt16LE(8);
  const header = b.toString('latin1', 10, 10 + headerLength);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const data = b.subarray(10 + headerLength);
  const copy = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  if (descr === '<f4') return { type: 'float32', shape, values: new Float32Array(copy) };
  if (descr === '<i8') return { type: 'int64', shape, values: new BigInt64Array(copy) };
  throw new Error(`${path}: dtype ${descr}`);
}

async function check(dir) {
  const tolerance = 1e-5;
  const x = readNpy(`${dir}/sample_input.npy`);
  const want = readNpy(`${dir}/sample_output.npy`);
  const session = await ort.InferenceSession.create(`${dir}/model.onnx`);
  const out = await session.run({ input: new ort.Tensor(x.type, x.values, x.shape) });
  const got = out.output;
  if (JSON.stringify(got.dims) !== JSON.stringify(want.shape))
    throw new Error(`output shape ${got.dims}, ours ${want.shape}`);
  let diff = 0, scale = 1;
  for (let i = 0; i < want.values.length; ++i) {
    diff = Math.max(diff, Math.abs(got.data[i] - want.values[i]));
    scale = Math.max(scale, Math.abs(want.values[i]));
  }
  console.log(`${dir}: onnxruntime ${ort.env.versions.common}: ${x.shape[0]} examples, max |difference| ${diff.toExponential(2)} (outputs up to ${scale.toPrecision(3)})`);
  if (!(diff <= tolerance * scale)) throw new Error(`${dir}: ONNX Runtime's outputs differ from ours by ${diff}`);
}

(async () => {
  for (const dir of process.argv.slice(2)) await check(dir);
})().catch(e => { console.error(`FAIL: ${e.message}`); process.exit(1); });
