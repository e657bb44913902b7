/**
 * Phone photos are often 8-20 MB; an invoice photo needs far less. Images are shrunk to at most
 * 2000 px on the long side and re-encoded as JPEG (EXIF rotation applied, metadata dropped) before
 * they are checked and stored. sharp loads on first use, so cold starts do not pay for it.
 */
export const MAX_PHOTO_BYTES = 20 * 1024 * 1024;
const LONG_SIDE = 2000;

export interface ImageFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

const IMAGE = /^image\//i;

/** The file shrunk when it is an image sharp can read; otherwise unchanged (the later checks decide). */
export async function shrinkImage(file: ImageFile): Promise<ImageFile> {
  if (!IMAGE.test(file.contentType) && !/\.(jpe?g|png|webp|heic|heif)$/i.test(file.fileName)) return file;
  try {
    const { default: sharp } = await import('sharp');
    const bytes = await sharp(file.bytes, { failOn: 'error', limitInputPixels: 100_000_000 })
      .rotate()
      .resize({ width: LONG_SIDE, height: LONG_SIDE, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer();
    // A small, already compressed image may come out larger: keep whichever is smaller.
    if (bytes.length >= file.bytes.length && file.bytes.length <= 5 * 1024 * 1024) return file;
    return { fileName: file.fileName.replace(/\.[^.]*$/, '') + '.jpg', contentType: 'image/jpeg', bytes };
  } catch {
    return file; // not an image sharp can read (e.g. HEIC without a decoder): the type and size checks answer
  }
}
