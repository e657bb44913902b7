import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocumentXml, type XmlMeter } from '../../../functions/src/domain/signupDocs/docxXml.ts';
import { DOCUMENT_LIMITS, UnreadableDocument } from '../../../functions/src/core/documentLimits.ts';
import { W } from '../../core/bombs.ts';

const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`;
const refused = (pattern: RegExp) => (e: unknown) => e instanceof UnreadableDocument && pattern.test(e.reason);

/** Steps the reader takes on `xml`, whether it is accepted or refused. */
async function steps(xml: string, limits: Parameters<typeof parseDocumentXml>[1] = DOCUMENT_LIMITS.xml) {
  const meter: XmlMeter = { steps: 0 };
  let outcome: string;
  try {
    await parseDocumentXml(xml, limits, meter);
    outcome = 'read';
  } catch (e) {
    assert.ok(e instanceof UnreadableDocument, String(e));
    outcome = e.reason;
  }
  return { steps: meter.steps, outcome };
}

test("the audit's 160,000 unclosed <w:p> are refused after a bounded number of steps; 10x as many take no more", async () => {
  const open = (n: number) => `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${'<w:p>'.repeat(n)}`;
  const n = await steps(open(160_000));
  const ten = await steps(open(1_600_000));
  assert.match(n.outcome, /nests elements more than 256 deep/);
  assert.equal(ten.outcome, n.outcome);
  // Refused at the depth cap: the work is bounded by the cap, not by the input.
  assert.ok(n.steps < 10_000, `${n.steps} steps`);
  assert.ok(ten.steps <= n.steps * 1.01, `${ten.steps} vs ${n.steps}`);
});

test('reading grows linearly: 10x the paragraphs (with text, runs, and the self-closing <w:p/> the old regex was quadratic on) take 10x the steps', async () => {
  const body = (n: number) => '<w:p><w:r><w:t xml:space="preserve">Name: ____</w:t></w:r><w:r><w:t>x</w:t></w:r></w:p><w:p/>'.repeat(n);
  const roomy = { ...DOCUMENT_LIMITS.xml, elements: 10_000_000, partBytes: 1 << 30 };
  const small = await steps(doc(body(10_000)), roomy);
  const large = await steps(doc(body(100_000)), roomy);
  assert.equal(small.outcome, 'read');
  assert.equal(large.outcome, 'read');
  const ratio = large.steps / small.steps;
  assert.ok(ratio > 9 && ratio < 11, `ratio ${ratio.toFixed(2)} (${small.steps} → ${large.steps})`);
  // And the default element cap stops a document past it.
  await assert.rejects(parseDocumentXml(doc(body(90_000)), { ...DOCUMENT_LIMITS.xml, partBytes: 1 << 30 }), refused(/more than 500000 elements/));
});

test('paragraph text nodes, their runs and the places to write are found; entities and CDATA decoded', async () => {
  const xml = doc('<w:p><w:r><w:t xml:space="preserve">A &amp; B: </w:t></w:r><w:r><w:t><![CDATA[__<x>__]]></w:t></w:r></w:p><w:p/><w:sectPr><w:pgSz/></w:sectPr>');
  const d = await parseDocumentXml(xml);
  assert.equal(d.paragraphs.length, 1);
  const [a, b] = d.paragraphs[0].nodes;
  assert.equal(a.text, 'A & B: ');
  assert.equal(b.text, '__<x>__');
  assert.equal(xml.slice(a.start, a.end), '<w:t xml:space="preserve">A &amp; B: </w:t>');
  assert.ok(xml.slice(0, a.runEnd!).endsWith('</w:t></w:r>'));
  assert.ok(xml.slice(d.appendAt).startsWith('<w:sectPr>'));
  assert.equal(xml.slice(d.root.start, d.root.end), `<w:document xmlns:w="${W}">`);
  const noSect = doc('<w:p/>');
  assert.ok(noSect.slice((await parseDocumentXml(noSect)).appendAt).startsWith('</w:body>'));
});

test('not well-formed, not a Word body, or over the part size: refused with a reason', async () => {
  await assert.rejects(parseDocumentXml(doc('<w:p><w:r></w:p>')), refused(/not well-formed XML/));
  await assert.rejects(parseDocumentXml('<html><body/></html>'), refused(/not a Word document body/));
  await assert.rejects(parseDocumentXml(`<w:document xmlns:w="${W}"/>`), refused(/no document body/));
  await assert.rejects(parseDocumentXml(doc('x'.repeat(100)), { ...DOCUMENT_LIMITS.xml, partBytes: 100 }), refused(/larger than 100 bytes/));
});
