import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sniffFileType } from '../../functions/src/core/fileTypes.ts';

test('recognises PDF, JPEG, PNG, WebP and HEIC by their signatures, and nothing else', () => {
  assert.equal(sniffFileType(Buffer.from('%PDF-1.7\n')), 'application/pdf');
  assert.equal(sniffFileType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'image/jpeg');
  assert.equal(sniffFileType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'image/png');
  assert.equal(sniffFileType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])), 'image/webp');
  assert.equal(sniffFileType(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic')])), 'image/heic');
  assert.equal(sniffFileType(Buffer.from('GIF89a')), null);
  assert.equal(sniffFileType(Buffer.from('%PD')), null);
  assert.equal(sniffFileType(Buffer.from('<html>%PDF-')), null);
  assert.equal(sniffFileType(Buffer.alloc(0)), null);
});
