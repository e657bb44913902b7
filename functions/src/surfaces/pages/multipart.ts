import busboy from 'busboy';
import { MAX_PHOTO_BYTES } from '../../core/images.ts';

export interface FormFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
  /** Over the size limit; the bytes are cut there. */
  tooLarge: boolean;
}

export interface Form {
  fields: Record<string, string>;
  /** The one file field `invoice`, or null when none was chosen. */
  invoice: FormFile | null;
}

export class FormError extends Error {}

/** Reads a multipart/form-data (or urlencoded) body; bounded so a hostile form cannot exhaust memory. */
export function parseForm(contentType: string | undefined, body: Buffer | undefined): Promise<Form> {
  return new Promise((resolve, reject) => {
    if (!body || !contentType) return reject(new FormError('no form body'));
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // Browsers send UTF-8 file names; busboy's default for them is latin1.
        defParamCharset: 'utf8',
        // Photos up to 20 MB come in (they are shrunk before the 5 MB check); anything larger is cut and refused.
        limits: { fields: 40, fieldSize: 16 * 1024, files: 1, fileSize: MAX_PHOTO_BYTES + 1, parts: 50 },
      });
    } catch (e) {
      return reject(new FormError(String(e)));
    }
    const fields: Record<string, string> = {};
    let invoice: FormFile | null = null;
    bb.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      let tooLarge = false;
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (tooLarge = true));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        // An empty file input still sends a part, with no name and no bytes.
        if (name === 'invoice' && (info.filename || bytes.length)) invoice = { fileName: info.filename ?? '', contentType: info.mimeType ?? '', bytes, tooLarge };
      });
    });
    bb.on('error', (e) => reject(new FormError(String(e))));
    bb.on('close', () => resolve({ fields, invoice }));
    bb.end(body);
  });
}
