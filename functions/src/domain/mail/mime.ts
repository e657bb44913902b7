/** MIME helpers shared by the import (mailImport.ts) and the mail view (mailView.ts). */

/** RFC 2047 encoded-words (B and Q) in a header, in any charset Node's TextDecoder knows. */
export function decodeHeader(v: string): string {
  return v.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=(\s+(?==\?))?/g, (_, cs: string, enc: string, text: string) => {
    const bytes = enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h) => String.fromCharCode(parseInt(h, 16))), 'latin1');
    try {
      return new TextDecoder(cs.toLowerCase()).decode(bytes);
    } catch {
      return bytes.toString('latin1');
    }
  });
}
