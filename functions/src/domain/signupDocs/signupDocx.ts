import JSZip from 'jszip';
import sharp from 'sharp';
import { isTicked, type SignupField } from './signupFields.ts';

/**
 * DOCX forms, edited in `word/document.xml` itself: each value goes into the blank (a run of underscores
 * or dots) that follows its label in the same paragraph; signature and stamp become inline images there.
 */

export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const DOC = 'word/document.xml';
const RELS = 'word/_rels/document.xml.rels';
const TYPES = '[Content_Types].xml';

const PARAGRAPH = /<w:p\b[^>]*>[\s\S]*?<\/w:p>/g;
const TEXT_NODE = /<w:t(\s[^>]*)?>([^<]*)<\/w:t>/g;
const BLANK = /_{3,}|\.{4,}|…+/;

const unescape = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// A form's parts unpacked stay well below these; a ZIP bomb declares more and is refused before inflating.
const MAX_PART_BYTES = 50 * 1024 * 1024;
const MAX_TOTAL_BYTES = 200 * 1024 * 1024;
const MAX_ENTRIES = 2000;

/** Loads a DOCX; null when the bytes are not a Word document (or would unpack to an unreasonable size). */
export async function openDocx(bytes: Buffer): Promise<JSZip | null> {
  try {
    const zip = await JSZip.loadAsync(bytes);
    const entries = Object.values(zip.files);
    // Sizes from the ZIP's central directory (jszip keeps them on _data until an entry is read).
    const sizes = entries.map((e) => (e as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0);
    if (entries.length > MAX_ENTRIES || sizes.some((n) => n > MAX_PART_BYTES) || sizes.reduce((a, b) => a + b, 0) > MAX_TOTAL_BYTES) return null;
    return zip.file(DOC) && zip.file(TYPES) ? zip : null;
  } catch {
    return null;
  }
}

/** The document's paragraphs as plain text (what the AI reads). */
export async function docxText(zip: JSZip): Promise<string> {
  const xml = await zip.file(DOC)!.async('string');
  return [...xml.matchAll(PARAGRAPH)].map((p) => [...p[0].matchAll(TEXT_NODE)].map((t) => unescape(t[2])).join('')).join('\n');
}

interface Node { start: number; end: number; text: string; from: number }

function nodesOf(p: string): Node[] {
  const out: Node[] = [];
  let from = 0;
  for (const m of p.matchAll(TEXT_NODE)) {
    const text = unescape(m[2]);
    out.push({ start: m.index!, end: m.index! + m[0].length, text, from });
    from += text.length;
  }
  return out;
}

/** Paragraph XML with new texts for its text nodes (by index), and extra XML after some nodes' runs. */
function rewrite(p: string, nodes: Node[], texts: string[], after: Map<number, string>): string {
  let out = '';
  let pos = 0;
  nodes.forEach((n, i) => {
    out += p.slice(pos, n.start) + `<w:t xml:space="preserve">${escape(texts[i])}</w:t>`;
    pos = n.end;
    const extra = after.get(i);
    if (extra) {
      const close = p.indexOf('</w:r>', pos);
      if (close >= 0) {
        out += p.slice(pos, close + 6) + extra;
        pos = close + 6;
      }
    }
  });
  return out + p.slice(pos);
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

export interface DocxFillOptions { signaturePng: Buffer | null; stampPng: Buffer | null }

/** Returns the filled DOCX and the labels that had no place in the document (appended at its end). */
export async function fillDocx(original: Buffer, fields: SignupField[], o: DocxFillOptions): Promise<{ bytes: Buffer; appended: string[] }> {
  const zip = (await openDocx(original))!;
  let xml = await zip.file(DOC)!.async('string');
  const images: { rid: string; name: string; png: Buffer }[] = [];
  const rels = (await zip.file(RELS)?.async('string')) ?? '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
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
    xml = xml.replace(PARAGRAPH, (p) => {
      if (placed) return p;
      const nodes = nodesOf(p);
      const full = nodes.map((n) => n.text).join('');
      const hit = labelRe ? labelRe.exec(full) : null;
      if (!hit) return p;
      const end = hit.index + hit[0].length;
      const rest = full.slice(end);
      const m = BLANK.exec(rest);
      const [bs, be] = m ? [end + m.index, end + m.index + m[0].length] : [end, end];
      const texts = nodes.map((n) => n.text);
      const after = new Map<number, string>();
      let done = false;
      nodes.forEach((n, i) => {
        const ns = n.from;
        const ne = n.from + n.text.length;
        // The blank's characters go; the value (or image) goes where the blank began.
        const cutFrom = Math.max(bs, ns) - ns;
        const cutTo = Math.min(be, ne) - ns;
        let t = n.text;
        if (cutTo > cutFrom) t = t.slice(0, cutFrom) + t.slice(cutTo);
        if (!done && bs >= ns && bs <= ne && (bs < ne || i === nodes.length - 1 || be === bs)) {
          const ins = bs - ns;
          const text = m ? content : ` ${content}`;
          t = t.slice(0, ins) + text + t.slice(ins);
          if (extra) after.set(i, extra);
          done = true;
        }
        texts[i] = t;
      });
      if (!done) return p;
      placed = true;
      return rewrite(p, nodes, texts, after);
    });
    if (!placed) {
      appended.push(f.label);
      const para = `<w:p><w:r><w:t xml:space="preserve">${escape(`${f.label}: ${content}`)}</w:t></w:r>${extra}</w:p>`;
      const sect = xml.lastIndexOf('<w:sectPr');
      const bodyEnd = xml.lastIndexOf('</w:body>');
      const at = sect >= 0 && sect > xml.lastIndexOf('</w:p>') ? sect : bodyEnd;
      xml = xml.slice(0, at) + para + xml.slice(at);
    }
  }

  if (images.length) {
    // The drawing namespaces are declared where they are used, so any document.xml accepts the runs.
    xml = xml.replace(/<w:document\b([^>]*)>/, (m, attrs: string) => {
      let a = attrs;
      if (!/xmlns:wp=/.test(a)) a += ' xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"';
      if (!/xmlns:r=/.test(a)) a += ' xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
      return `<w:document${a}>`;
    });
    let r = rels;
    for (const img of images) {
      zip.file(`word/media/${img.name}`, img.png);
      r = r.replace('</Relationships>', `<Relationship Id="${img.rid}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${img.name}"/></Relationships>`);
    }
    zip.file(RELS, r);
    let types = await zip.file(TYPES)!.async('string');
    if (!/Extension="png"/i.test(types)) types = types.replace('</Types>', '<Default Extension="png" ContentType="image/png"/></Types>');
    zip.file(TYPES, types);
  }
  zip.file(DOC, xml);
  const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', mimeType: DOCX_MIME });
  return { bytes, appended };
}
