import { createServer } from 'node:http';

/** The baseline: a bare node:http server answering a JSON body of the given size. */
const size = Number(process.argv[2]);
const port = Number(process.argv[3]);
const body = JSON.stringify({ ok: true, result: { pad: 'x'.repeat(Math.max(0, size - 30)) } });
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
