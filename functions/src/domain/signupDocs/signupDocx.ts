import JSZip from 'jszip';
import sharp from 'sharp';
import { DOCUMENT_LIMITS, UnreadableDocument } from '../../core/documentLimits.ts';
import { readZip } from '../../core/zipRead.ts';
import { parseDocumentXml, type DocumentXml, type TextNode } from './docxXml.ts';
import { isTicked, type SignupField } from './signupFields.ts';

/**
 * DOCX forms, edited in `word/document.xml` itself: each value goes into the blank (a run of underscores
 * or dots) that follows its label in the same paragraph; signature and stamp become inline images there.
 */

export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const DOC = 'word/document.xml';
const RELS = 'word/_rels/document.xml.rels';
const TYPES = '[Content_Types].xml';

const BLANK = /_{3,}|\.{4,}|…+/;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const PK = Buffer.from('PK\x03\x04', 'latin1');

/** A Word document as form filling reads it: its main part parsed, the parts edited with it, the ZIP to write back. */
export interface DocxForm { document: DocumentXml; rels: string | null; types: string; zip: JSZip }

/**
 * Reads a DOCX under the caps of core/documentLimits.ts: every part inflated and counted first (core/zipRead.ts),
 * then `word/document.xml` parsed (docxXml.ts). Null when the bytes are not a Word document; UnreadableDocument
 * over a cap or when the document part is not well-formed. Upload, re-analysis and filling all read it here.
 */
export async function readDocx(bytes: Buffer): Promise<DocxForm | null> {
  if (!bytes.subarray(0, 4).equals(PK)) return null;
  const parts = await readZip(bytes, (name) => name === DOC || name === RELS || name === TYPES);
  const doc = parts?.get(DOC);
  const types = parts?.get(TYPES);
  if (!parts || !doc || !types) return null;
  for (const [name, part] of parts) {
    if (part.length > DOCUMENT_LIMITS.xml.partBytes) throw new UnreadableDocument(`${name} is larger than ${DOCUMENT_LIMITS.xml.partBytes} bytes`);
  }
  const document = await parseDocumentXml(doc.toString('utf8'));
  let zip: JSZip;
  try {
    // Every entry is known to inflate within the caps by now; jszip only writes the filled copy back.
    zip = await JSZip.loadAsync(bytes);
  } catch {
    return null;
  }
  return { document, rels: parts.get(RELS)?.toString('utf8') ?? null, types: types.toString('utf8'), zip };
}

/** The document's paragraphs as plain text (what the AI reads). */
export const docxText = (form: DocxForm): string => form.document.paragraphs.map((p) => p.nodes.map((n) => n.text).join('')).join('\n');

/** The XML with edits applied, each a span replaced (or an insertion when start = end); spans never overlap. */
function applyEdits(xml: string, edits: { start: number; end: number; text: string }[]): string {
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((a, b) => a.start - b.start || a.i - b.i);
  let out = '';
  let pos = 0;
  for (const e of sorted) {
    out += xml.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return out + xml.slice(pos);
}

// Filling reads the whole text once per field; between fields other requests get their turn.
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

export interface DocxFillOptions { signaturePng: Buffer | null; stampPng: Buffer | null }

/** Returns the filled DOCX and the labels that had no place in the document (appended at its end). UnreadableDocument over the caps. */
export async function fillDocx(original: Buffer, fields: SignupField[], o: DocxFillOptions): Promise<{ bytes: Buffer; appended: string[] }> {
  const form = await readDocx(original);
  if (!form) throw new UnreadableDocument('not a Word document');
  const { zip, document } = form;
  const { xml, paragraphs } = document;
  // Current texts per paragraph and node; the XML is rewritten once, at the end.
  const texts = paragraphs.map((p) => p.nodes.map((n) => n.text));
  const fulls = texts.map((t) => t.join(''));
  const changed = new Set<TextNode>();
  const after = new Map<TextNode, string[]>();
  const appendedXml: string[] = [];
  const images: { rid: string; name: string; png: Buffer }[] = [];
  const rels = form.rels ?? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
  const appended: string[] = [];
  let drawingId = 1000;

  const imageRun = async (png: Buffer, kind: string, maxCm: number) => {
    const rid = `rIdSignup${images.length + 1}`;
    const name = `signup-${kind}-${images.length + 1}.png`;
    images.push({ rid, name, png });
    const meta = await sharp(png).metadata();
    const ratio = (meta.height ?? 1) / (meta.width ?? 1);
    const cx = Math.round(maxCm * 360000);
    const cy = Math.round(cx * ratio);
    const id = ++drawingId;
    return (
      `<w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${id}" name="${kind} ${id}"/>` +
      `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
      `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${id}" name="${name}"/><pic:cNvPicPr/></pic:nvPicPr>` +
      `<pic:blipFill><a:blip r:embed="${rid}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
      `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`
    );
  };

  for (const f of fields) {
    let content = '';
    let extra = '';
    if (f.kind === 'signature' || f.kind === 'stamp') {
      const png = f.kind === 'signature' ? o.signaturePng : o.stampPng;
      if (!png) continue;
      extra = await imageRun(png, f.kind, f.kind === 'signature' ? 4 : 3);
    } else if (f.kind === 'checkbox') {
      if (!isTicked(f.value)) continue;
      content = '☒';
    } else {
      content = f.value.trim();
      if (!content) continue;
    }
    const words = norm(f.label).split(' ').filter(Boolean);
    const labelRe = words.length ? new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'), 'i') : null;
    let placed = false;
    for (const [pi, p] of paragraphs.entries()) {
      const current = texts[pi];
      const full = fulls[pi];
      const hit = labelRe ? labelRe.exec(full) : null;
      if (!hit) continue;
      const end = hit.index + hit[0].length;
      const rest = full.slice(end);
      const m = BLANK.exec(rest);
      const [bs, be] = m ? [end + m.index, end + m.index + m[0].length] : [end, end];
      const next = [...current];
      let at = -1;
      let from = 0;
      current.forEach((text, i) => {
        const ns = from;
        const ne = from + text.length;
        from = ne;
        // The blank's characters go; the value (or image) goes where the blank began.
        const cutFrom = Math.max(bs, ns) - ns;
        const cutTo = Math.min(be, ne) - ns;
        let t = text;
        if (cutTo > cutFrom) t = t.slice(0, cutFrom) + t.slice(cutTo);
        if (at < 0 && bs >= ns && bs <= ne && (bs < ne || i === current.length - 1 || be === bs)) {
          const ins = bs - ns;
          t = t.slice(0, ins) + (m ? content : ` ${content}`) + t.slice(ins);
          at = i;
        }
        next[i] = t;
      });
      if (at < 0) continue;
      next.forEach((t, i) => {
        if (t !== current[i]) changed.add(p.nodes[i]);
      });
      texts[pi] = next;
      fulls[pi] = next.join('');
      if (extra) after.set(p.nodes[at], [...(after.get(p.nodes[at]) ?? []), extra]);
      placed = true;
      break;
    }
    if (!placed) {
      appended.push(f.label);
      appendedXml.push(`<w:p><w:r><w:t xml:space="preserve">${escape(`${f.label}: ${content}`)}</w:t></w:r>${extra}</w:p>`);
    }
    await yieldToLoop();
  }

  const edits: { start: number; end: number; text: string }[] = [];
  paragraphs.forEach((p, pi) =>
    p.nodes.forEach((n, i) => {
      if (changed.has(n)) edits.push({ start: n.start, end: n.end, text: `<w:t xml:space="preserve">${escape(texts[pi][i])}</w:t>` });
      const extras = after.get(n);
      if (extras && n.runEnd !== null) edits.push({ start: n.runEnd, end: n.runEnd, text: extras.join('') });
    }),
  );
  if (appendedXml.length) edits.push({ start: document.appendAt, end: document.appendAt, text: appendedXml.join('') });
  if (images.length) {
    // The drawing namespaces are declared on the root, so any document.xml accepts the runs.
    const { root } = document;
    let extraNs = '';
    if (!('xmlns:wp' in root.attributes)) extraNs += ' xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"';
    if (!('xmlns:r' in root.attributes)) extraNs += ' xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    if (extraNs) {
      const tag = xml.slice(root.start, root.end);
      const close = tag.endsWith('/>') ? tag.length - 2 : tag.length - 1;
      edits.push({ start: root.start, end: root.end, text: tag.slice(0, close) + extraNs + tag.slice(close) });
    }
    let r = rels;
    for (const img of images) {
      zip.file(`word/media/${img.name}`, img.png);
      r = r.replace('</Relationships>', `<Relationship Id="${img.rid}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${img.name}"/></Relationships>`);
    }
    zip.file(RELS, r);
    let types = form.types;
    if (!/Extension="png"/i.test(types)) types = types.replace('</Types>', '<Default Extension="png" ContentType="image/png"/></Types>');
    zip.file(TYPES, types);
  }
  zip.file(DOC, applyEdits(xml, edits));
  const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', mimeType: DOCX_MIME });
  return { bytes, appended };
}
