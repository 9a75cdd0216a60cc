// A TCP proxy that adds a round-trip time: every chunk, either way, is passed on `delay` ms after it
// arrived (half the RTT each way), in order. It counts the connections it accepted.
//   node bench/rtt-proxy.mjs <target port> <one-way delay ms>
// Prints its own port on stdout; each line on stdin ("count") is answered with the number of connections
// accepted so far ("posts": the number of HTTP POSTs clients sent, each a JSON-RPC message and, for the
// clients measured, a round trip); it exits when stdin closes. Binds 127.0.0.1 only.
import net from 'node:net';
import { createInterface } from 'node:readline';

const [targetPort, delayMs] = process.argv.slice(2).map(Number);
let accepted = 0;
let posts = 0;

/**
 * Passes `from`'s data to `to`, each chunk `delayMs` after it arrived but never before `notBefore`
 * (a time from `Date.now()`), then ends `to` after the last one.
 */
function pipeDelayed(from, to, notBefore = 0) {
  const later = (fn) => setTimeout(fn, Math.max(Date.now(), notBefore) + delayMs - Date.now());
  from.on('data', (chunk) => later(() => to.destroyed || to.write(chunk)));
  from.on('end', () => later(() => to.end()));
  from.on('error', () => to.destroy());
  from.on('close', () => later(() => setImmediate(() => to.destroy())));
}

const server = net.createServer((client) => {
  accepted++;
  client.setNoDelay(true);
  const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
  upstream.setNoDelay(true);
  // A new connection costs a round trip (SYN, SYN-ACK) before its first byte can leave the client:
  // the client's bytes go no earlier than one RTT after the accept, then take their one-way delay.
  client.on('data', (chunk) => {
    if (chunk.toString('latin1', 0, 5) === 'POST ') posts++;
  });
  pipeDelayed(client, upstream, Date.now() + 2 * delayMs);
  pipeDelayed(upstream, client);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => process.stdout.write(`${line.trim() === 'posts' ? posts : accepted}\n`));
lines.on('close', () => process.exit(0));
