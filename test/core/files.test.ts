import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../harness.ts';

let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness({ env: { FILES_URL: 'https://files.example.com' } });
  origin = await h.listen();
});
after(() => h.close());

const pdf = Buffer.from('%PDF-1.4\n% test file\n');

test('a saved file gets a capability link under the files host with 256 random bits', async () => {
  const ref = await h.app.services.files.save(h.owner.businessId, { fileName: 'חשבונית 7.pdf', contentType: 'application/pdf', bytes: pdf });
  const url = new URL(ref.url);
  assert.equal(url.origin, 'https://files.example.com');
  const [token, name] = url.pathname.slice(1).split('/');
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(decodeURIComponent(name), 'חשבונית 7.pdf');
  const other = await h.app.services.files.save(h.owner.businessId, { fileName: 'x.pdf', contentType: 'application/pdf', bytes: pdf });
  assert.notEqual(new URL(other.url).pathname.split('/')[1], token);
});

test('anyone holding the link gets the bytes; a deleted file answers 404', async () => {
  const ref = await h.app.services.files.save(h.owner.businessId, { fileName: 'r.pdf', contentType: 'application/pdf', bytes: pdf });
  const local = origin + '/files' + new URL(ref.url).pathname;
  const res = await fetch(local);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.deepEqual(Buffer.from(await res.arrayBuffer()), pdf);
  await h.app.services.files.remove(h.owner.businessId, ref.fileId);
  const gone = await fetch(local);
  assert.equal(gone.status, 404);
  assert.equal(((await gone.json()) as any).error.code, 'not-found');
  assert.equal(await h.app.services.files.ref(h.owner.businessId, ref.fileId), null);
});

test('a made-up token answers 404', async () => {
  assert.equal((await fetch(`${origin}/files/${'A'.repeat(43)}/x.pdf`)).status, 404);
  assert.equal((await fetch(`${origin}/files/../../etc/passwd`)).status, 404);
});
