import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { invoicesEnv, upload, reading, type InvoicesEnv } from '../invoices/helpers.ts';
import { createPayment, simulateSubmission, PDF } from '../payments/helpers.ts';
import { get } from '../../http.ts';

let env: InvoicesEnv;
let origin: string;
before(async () => {
  env = await invoicesEnv();
  origin = await env.h.listen();
});
after(() => env.close());

/** The entry names and sizes of a ZIP, read back with yauzl. */
function unzip(bytes: Buffer): Promise<{ name: string; size: number }[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: { name: string; size: number }[] = [];
      zip.on('entry', (e) => {
        out.push({ name: e.fileName, size: e.uncompressedSize });
        zip.readEntry();
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url.replace(/^https?:\/\/[^/]+/, origin));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  return Buffer.from(await res.arrayBuffer());
}

test('accZip lays the files out like the accountant tree, Hebrew names kept, collisions numbered, month range applied', async () => {
  const { h } = env;
  await h.call('folderCreate', { name: 'פרויקטים' });
  const projects = (await h.call('foldersList')).folders.find((f: any) => f.name === 'פרויקטים').id;
  await upload(env, reading({ issuer: { name: 'Acme' }, number: 'A-1', date: '2026-03-10', payMethod: 'card' }), { fileName: 'חשבונית.pdf', folderId: projects });
  await upload(env, reading({ issuer: { name: 'Beta' }, number: 'B-1', date: '2026-03-20', payMethod: 'bank_transfer' }), { fileName: 'חשבונית.pdf', folderId: projects });
  await upload(env, reading({ issuer: { name: 'Gamma' }, number: 'G-1', date: '2026-05-01', payMethod: null }), { fileName: 'may.pdf', folderId: projects });
  const p = await createPayment(h, { channel: 'link' });
  await simulateSubmission(h, p.id);
  await h.call('markPaid', { paymentId: p.id, proof: { fileName: 'bank.pdf', mimeType: 'application/pdf', dataBase64: PDF.toString('base64') } });

  const root = await h.call('accFolderCreate', { name: 'רואה חשבון' });
  await h.call('accFolderCreate', { name: 'תיקיית פרויקטים', parentId: root.id, source: { kind: 'invoices', folderIds: [projects] } });
  await h.call('accFolderCreate', { name: 'לא ידוע', parentId: root.id, source: { kind: 'invoices', payMethods: ['unknown'] } });
  await h.call('accFolderCreate', { name: 'אסמכתאות', parentId: root.id, source: { kind: 'proofs' } });

  const all = await h.call('accZip', {});
  const names = (await unzip(await download(all.url))).map((e) => e.name).sort();
  assert.deepEqual(names.filter((n) => n.startsWith('רואה חשבון/תיקיית פרויקטים/')).sort(), [
    'רואה חשבון/תיקיית פרויקטים/may.pdf',
    'רואה חשבון/תיקיית פרויקטים/חשבונית (2).pdf',
    'רואה חשבון/תיקיית פרויקטים/חשבונית.pdf',
  ]);
  assert.ok(names.includes('רואה חשבון/לא ידוע/may.pdf'), 'unknown = no AI pay method');
  assert.equal(names.filter((n) => n.startsWith('רואה חשבון/אסמכתאות/')).length, 1);
  assert.equal(all.entries, names.length);

  const march = await h.call('accZip', { from: '2026-03', to: '2026-03' });
  const marchNames = (await unzip(await download(march.url))).map((e) => e.name);
  assert.equal(marchNames.filter((n) => n.includes('תיקיית פרויקטים')).length, 2, 'May is outside the range');
  await assert.rejects(h.call('accZip', { from: '2026-05', to: '2026-03' }), { code: 'invalid-argument', message: /^from:/ });
  await assert.rejects(h.call('accZip', { from: '2026-13' }), { code: 'invalid-argument', message: /^from:/ });
});

test('an empty selection still makes a ZIP, with a README of what was searched', async () => {
  const biz = await env.h.newBusiness('Empty');
  await env.h.call('accFolderCreate', { name: 'Invoices', source: { kind: 'invoices' } }, biz);
  const z = await env.h.call('accZip', { from: '2020-01', to: '2020-02' }, biz);
  const res = await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin));
  const entries = await unzip(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual(entries.map((e) => e.name), ['README.txt']);
  assert.equal(z.entries, 0);
});

test('another business cannot ZIP these folders', async () => {
  const other = await env.h.newBusiness('Other');
  const mine = await env.h.call('accountantFoldersList');
  await assert.rejects(env.h.call('accZip', { folderId: mine.folders[0].id }, other), { code: 'not-found' });
});
