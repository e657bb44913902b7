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

test('accZip lays the files out like the accountant tree, Hebrew folder names kept, files named by what they are, month range applied', async () => {
  const { h } = env;
  await h.call('folderCreate', { name: 'פרויקטים' });
  const projects = (await h.call('foldersList')).folders.find((f: any) => f.name === 'פרויקטים').id;
  await upload(env, reading({ issuer: { name: 'Acme' }, number: 'A-1', date: '2026-03-10', payMethod: 'card', totalMinor: 11_800 }), { fileName: 'חשבונית.pdf', folderId: projects });
  await upload(env, reading({ issuer: { name: 'Beta' }, number: 'B-1', date: '2026-03-20', payMethod: 'bank_transfer', totalMinor: 5_000 }), { fileName: 'חשבונית.pdf', folderId: projects });
  await upload(env, reading({ issuer: { name: 'Gamma' }, number: 'G-1', date: '2026-05-01', payMethod: null, totalMinor: 123_456, currency: 'USD' }), { fileName: 'may.pdf', folderId: projects });
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
    'רואה חשבון/תיקיית פרויקטים/2026-03-10 Acme A-1 ₪118.00.pdf',
    'רואה חשבון/תיקיית פרויקטים/2026-03-20 Beta B-1 ₪50.00.pdf',
    'רואה חשבון/תיקיית פרויקטים/2026-05-01 Gamma G-1 $1,234.56.pdf',
  ]);
  assert.ok(names.includes('רואה חשבון/לא ידוע/2026-05-01 Gamma G-1 $1,234.56.pdf'), 'unknown = no AI pay method');
  assert.equal(names.filter((n) => n.startsWith('רואה חשבון/אסמכתאות/')).length, 1);
  assert.match(names.find((n) => n.startsWith('רואה חשבון/אסמכתאות/'))!, /^רואה חשבון\/אסמכתאות\/\d{4}-\d{2}-\d{2} Dana Cohen אסמכתא ₪123\.45\.pdf$/);
  assert.ok(names.includes('README.txt') && names.includes('index.csv'));
  assert.equal(all.entries, names.length - 2, 'README.txt and index.csv are not counted as files');

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
  assert.deepEqual(entries.map((e) => e.name), ['README.txt', 'index.csv']);
  assert.equal(z.entries, 0);
});

test('another business cannot ZIP these folders', async () => {
  const other = await env.h.newBusiness('Other');
  const mine = await env.h.call('accountantFoldersList');
  await assert.rejects(env.h.call('accZip', { folderId: mine.folders[0].id }, other), { code: 'not-found' });
});

/** The bytes of one entry of a ZIP. */
function entryBytes(zipBytes: Buffer, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zipBytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on('entry', (e) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2 || !stream) return reject(err2);
          const chunks: Buffer[] = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        });
      });
      zip.on('end', () => reject(new Error(`no ${name} in the ZIP`)));
      zip.readEntry();
    });
  });
}

test('the recommended tree puts 9 documents in the ZIP 9 times, named by what they are, with an index and a bilingual README', async () => {
  const biz = await env.h.newBusiness('Nine');
  await env.h.call('folderCreate', { name: 'פרויקטים' }, biz);
  await env.h.call('folderSync', {}, biz);
  const projects = (await env.h.call('foldersList', {}, biz)).folders.find((f: any) => f.name === 'פרויקטים').id;
  const methods = ['card', 'bank_transfer', 'cash', null, 'card', 'check', 'paypal', null, 'other'] as const;
  for (let i = 0; i < 9; i++) {
    // The scanner's names say nothing and collide; the readings say what each document is.
    await upload(env, reading({ issuer: { name: i % 2 ? 'בזק' : 'Acme' }, number: `4021${i}`, date: `2026-10-0${i + 1}`, payMethod: methods[i], totalMinor: 11_800 + i, vatMinor: 1_700 }), { fileName: 'scan_0001.pdf', folderId: i < 3 ? projects : undefined }, biz);
  }
  await env.h.call('accFolderTemplate', {}, biz);
  const z = await env.h.call('accZip', { from: '2026-10', to: '2026-10' }, biz);
  const bytes = await download(z.url);
  const names = (await unzip(bytes)).map((e) => e.name);
  const files = names.filter((n) => n.endsWith('.pdf'));
  assert.equal(files.length, 9, files.join('\n'));
  assert.equal(z.entries, 9);
  assert.ok(files.every((n) => !/\(\d+\)\.pdf$/.test(n) && !n.includes('scan_0001')), files.join('\n'));
  assert.ok(files.includes('חשבוניות לפי תיקייה/פרויקטים/2026-10-02 בזק 40211 ₪118.01.pdf'), files.join('\n'));

  const { parse } = await import('csv-parse/sync');
  const csv = await entryBytes(bytes, 'index.csv');
  assert.deepEqual([...csv.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 with a BOM');
  const rows: string[][] = parse(csv, { bom: true });
  assert.deepEqual(rows[0], ['קובץ / File', 'תיקייה / Folder', 'תאריך / Date', 'ספק / Supplier', 'מספר / Number', 'סכום / Total', 'מע"מ / VAT', 'מטבע / Currency', 'קטגוריה / Category', 'אמצעי תשלום / Pay method']);
  assert.equal(rows.length, 10);
  const bezeq = rows.find((r) => r[0] === '2026-10-02 בזק 40211 ₪118.01.pdf')!;
  assert.deepEqual([bezeq[1], bezeq[2], bezeq[3], bezeq[4], bezeq[5], bezeq[6], bezeq[7], bezeq[9]], ['חשבוניות לפי תיקייה/פרויקטים', '2026-10-02', 'בזק', '40211', '118.01', '17.00', 'ILS', 'העברה בנקאית']);

  const readme = (await entryBytes(bytes, 'README.txt')).toString('utf8');
  const [he, en] = readme.split('\n---\n');
  assert.match(he, /^חבילה לרואה החשבון\nחודשים: 2026-10 – 2026-10\. קבצים: 9\./);
  assert.match(en, /Package for the accountant\nMonths: 2026-10 – 2026-10\. Files: 9\./);
});
