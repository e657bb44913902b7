import { SaxesParser } from 'saxes';
import { DOCUMENT_LIMITS, UnreadableDocument } from '../../core/documentLimits.ts';

/**
 * `word/document.xml` read once by a streaming XML parser (saxes; linear in the input, well-formedness checked),
 * into what form filling needs: the paragraphs' text nodes with their places in the XML, the root tag, and where
 * a new paragraph goes. Elements counted and nesting depth are capped (DOCUMENT_LIMITS.xml); over a cap, or not
 * well-formed, the document is refused as it is read. Positions are string indexes into `xml`.
 */

export interface TextNode {
  /** `<w:t ...>` … `</w:t>` span. */
  start: number;
  end: number;
  text: string;
  /** Just after the `</w:r>` of the run holding the node (null outside a run). */
  runEnd: number | null;
  /** Holds elements of its own (not Word's shape): left as it is. */
  mixed?: boolean;
}

export interface DocParagraph { nodes: TextNode[] }

export interface DocumentXml {
  xml: string;
  /** Paragraphs holding text, in document order; a text node belongs to its innermost paragraph. */
  paragraphs: DocParagraph[];
  /** The `<w:document ...>` open tag. */
  root: { start: number; end: number; attributes: Record<string, string> };
  /** Before the body's closing section properties, else before `</w:body>`. */
  appendAt: number;
}

/** Counts the work done while reading (parser events plus the characters and open elements the handlers look at). */
export interface XmlMeter { steps: number }

const PART = 'word/document.xml';

// Parsed a slice at a time, other requests served in between: a large part never holds the event loop for long.
const SLICE = 128 * 1024;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function parseDocumentXml(
  xml: string,
  limits: { partBytes: number; elements: number; depth: number } = DOCUMENT_LIMITS.xml,
  meter: XmlMeter = { steps: 0 },
): Promise<DocumentXml> {
  if (Buffer.byteLength(xml) > limits.partBytes) throw new UnreadableDocument(`${PART} is larger than ${limits.partBytes} bytes`);
  const parser = new SaxesParser({ xmlns: false, position: true });
  // '<' cannot occur inside a tag (not even in attribute values), so the last one before the tag's end is its start.
  const tagStart = () => {
    const start = xml.lastIndexOf('<', parser.position - 1);
    meter.steps += parser.position - start;
    return start;
  };

  const paragraphs: DocParagraph[] = [];
  const open: { name: string; paragraph?: DocParagraph; run?: TextNode[]; node?: TextNode }[] = [];
  let root: DocumentXml['root'] | null = null;
  let bodyChild: { name: string; start: number } | null = null;
  let appendAt = -1;
  let elements = 0;
  const innermost = <K extends 'paragraph' | 'run'>(key: K) => {
    for (let i = open.length - 1; i >= 0; i--) {
      meter.steps++;
      if (open[i][key]) return open[i][key]!;
    }
    return null;
  };

  parser.on('opentagstart', () => {
    meter.steps++;
    if (++elements > limits.elements) throw new UnreadableDocument(`${PART} has more than ${limits.elements} elements`);
    if (open.length >= limits.depth) throw new UnreadableDocument(`${PART} nests elements more than ${limits.depth} deep`);
  });
  parser.on('opentag', (tag) => {
    const start = tagStart();
    const frame: (typeof open)[number] = { name: tag.name };
    const parent = open[open.length - 1];
    if (parent?.node) parent.node.mixed = true;
    if (open.length === 0) {
      if (tag.name !== 'w:document') throw new UnreadableDocument(`${PART} is not a Word document body`);
      root = { start, end: parser.position, attributes: { ...tag.attributes } as Record<string, string> };
    } else if (open.length === 2 && open[1].name === 'w:body') {
      bodyChild = { name: tag.name, start };
    }
    if (tag.name === 'w:p') {
      frame.paragraph = { nodes: [] };
      paragraphs.push(frame.paragraph);
    } else if (tag.name === 'w:r') {
      frame.run = [];
    } else if (tag.name === 'w:t') {
      const paragraph = innermost('paragraph');
      if (paragraph) {
        frame.node = { start, end: parser.position, text: '', runEnd: null };
        paragraph.nodes.push(frame.node);
        innermost('run')?.push(frame.node);
      }
    }
    open.push(frame);
  });
  const addText = (t: string) => {
    meter.steps++;
    const top = open[open.length - 1];
    if (top?.node) top.node.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag) => {
    meter.steps++;
    const frame = open.pop()!;
    const end = parser.position;
    if (frame.node) frame.node.end = end;
    if (frame.run) for (const n of frame.run) n.runEnd = end;
    if (tag.name === 'w:body' && open.length === 1) {
      const last = bodyChild as { name: string; start: number } | null;
      if (!tag.isSelfClosing) appendAt = last && last.name === 'w:sectPr' ? last.start : tagStart();
    }
  });

  try {
    for (let i = 0; i < xml.length; i += SLICE) {
      parser.write(xml.slice(i, i + SLICE));
      if (i + SLICE < xml.length) await yieldToLoop();
    }
    parser.close();
  } catch (e) {
    if (e instanceof UnreadableDocument) throw e;
    throw new UnreadableDocument(`${PART} is not well-formed XML (${e instanceof Error ? e.message.slice(0, 120) : 'parse error'})`);
  }
  if (!root || appendAt < 0) throw new UnreadableDocument(`${PART} has no document body`);
  const withText = paragraphs.map((p) => ({ nodes: p.nodes.filter((n) => !n.mixed) })).filter((p) => p.nodes.length > 0);
  return { xml, paragraphs: withText, root, appendAt };
}
