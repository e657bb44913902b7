import yauzl from 'yauzl';
import { DOCUMENT_LIMITS, UnreadableDocument, megabytes } from './documentLimits.ts';

/**
 * Reads a ZIP (a DOCX) under hard caps. Every entry is inflated (yauzl, streaming), its produced bytes counted
 * and thrown away unless `keep` asks for it; inflation stops the moment a cap is passed. What the central
 * directory declares only serves to refuse early. Once this has run, nothing in the ZIP can unpack to more
 * than the caps, whoever unpacks it later.
 */

export interface ZipLimits { entries: number; entryBytes: number; totalBytes: number }

/** Not a ZIP at all (null) or the kept entries' bytes by name; UnreadableDocument over a cap. */
export async function readZip(bytes: Buffer, keep: (name: string) => boolean, limits: ZipLimits = DOCUMENT_LIMITS.zip): Promise<Map<string, Buffer> | null> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true });
  } catch {
    return null;
  }
  if (zip.entryCount > limits.entries) throw new UnreadableDocument(`the ZIP has ${zip.entryCount} entries; at most ${limits.entries}`);
  const kept = new Map<string, Buffer>();
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      if (entry.uncompressedSize > limits.entryBytes) throw new UnreadableDocument(`${name} unpacks to more than ${megabytes(limits.entryBytes)}`);
      const wanted = keep(name);
      if (wanted && kept.has(name)) throw new UnreadableDocument(`${name} is in the ZIP twice`);
      const chunks: Buffer[] = [];
      let size = 0;
      const stream = await zip.openReadStreamPromise(entry);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          total += chunk.length;
          if (size > limits.entryBytes) throw new UnreadableDocument(`${name} unpacks to more than ${megabytes(limits.entryBytes)}`);
          if (total > limits.totalBytes) throw new UnreadableDocument(`the ZIP unpacks to more than ${megabytes(limits.totalBytes)}`);
          if (wanted) chunks.push(chunk);
        }
      } catch (e) {
        // yauzl stops an entry the moment it inflates past its declared size.
        if (e instanceof Error && /too many bytes/.test(e.message)) throw new UnreadableDocument(`${name} unpacks to more than the ${entry.uncompressedSize} bytes it declares`);
        throw e;
      } finally {
        stream.destroy();
      }
      if (wanted) kept.set(name, Buffer.concat(chunks));
    }
  } catch (e) {
    if (e instanceof UnreadableDocument) throw e;
    // yauzl's own checks: sizes other than declared, bad compression, encrypted entries, unsafe names.
    throw new UnreadableDocument(`the ZIP is damaged (${e instanceof Error ? e.message.slice(0, 120) : 'unreadable'})`);
  } finally {
    zip.close();
  }
  return kept;
}
