// A misbehaving engine for client tests, chosen by argv[2]:
//   hang-on-slow  answers every request at once, except evaluate_batch of trace "slow": never
//                 (and, being sequential, nothing after it either)
//   stray         writes a reply with an id nobody asked for before each real reply
//   mismatch      answers evaluate_batch with a result for an assertion nobody asked about
//   garbage       answers with a line that is not JSON
//   padded        answers with a valid reply padded to argv[3] bytes (a long line)
//   not-utf8      answers with a valid reply holding a byte that is not UTF-8
//   undefined-error  answers every request with an error code the protocol does not define (-32000)
import { createInterface } from 'node:readline';

const mode = process.argv[2];
let stuck = false;
const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (stuck) return;
  const { id, method, params } = request;
  if (mode === 'garbage') return void process.stdout.write('this is not JSON\n');
  if (mode === 'padded') {
    const head = JSON.stringify({ jsonrpc: '2.0', id, result: { padding: '' } });
    const padding = 'x'.repeat(Math.max(0, Number(process.argv[3]) - head.length));
    return void reply({ jsonrpc: '2.0', id, result: { padding } });
  }
  if (mode === 'not-utf8') {
    const text = JSON.stringify({ jsonrpc: '2.0', id, result: { text: 'AB' } });
    const bytes = Buffer.from(`${text}\n`);
    bytes[bytes.indexOf('AB') + 1] = 0xff;
    return void process.stdout.write(bytes);
  }
  if (mode === 'undefined-error')
    return void reply({ jsonrpc: '2.0', id, error: { code: -32_000, message: 'Server error' } });
  if (mode === 'stray') reply({ jsonrpc: '2.0', id: 999_999, result: { stray: true } });
  if (method === 'evaluate_batch') {
    if (mode === 'hang-on-slow' && params.trace.trace_id === 'slow') {
      stuck = true;
      return;
    }
    const ids =
      mode === 'mismatch' ? ['someone-else'] : params.assertions.map((assertion) => assertion.assertion_id);
    return void reply({
      jsonrpc: '2.0',
      id,
      result: {
        results: ids.map((assertion_id) => ({
          assertion_id,
          status: 'pass',
          score: 1,
          explanation: '',
          cost: 0,
          duration_ms: 0,
        })),
        total_cost: 0,
        total_duration_ms: 0,
        usage: {},
      },
    });
  }
  reply({ jsonrpc: '2.0', id, result: { method, pid: process.pid } });
});
