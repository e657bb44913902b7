import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import PdfWorker from 'pdfjs-dist/build/pdf.worker.min.mjs?worker';

/**
 * A PDF's pages as images, drawn in the browser by pdf.js (loaded only by the forms' review screen).
 * The worker is bundled by Vite from the same origin, as the CSP allows. Returns blob: URLs the caller revokes.
 */
export interface PageImage {
  url: string;
  width: number;
  height: number;
}

export async function renderPdfPages(bytes: ArrayBuffer, targetWidth = 1000): Promise<PageImage[]> {
  GlobalWorkerOptions.workerPort ??= new PdfWorker();
  const task = getDocument({ data: new Uint8Array(bytes) });
  const doc = await task.promise;
  try {
    const pages: PageImage[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const scale = targetWidth / page.getViewport({ scale: 1 }).width;
      const viewport = page.getViewport({ scale });
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(viewport.width);
      canvas.height = Math.ceil(viewport.height);
      await page.render({ canvas, viewport }).promise;
      const blob = await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('canvas'))), 'image/png'));
      pages.push({ url: URL.createObjectURL(blob), width: canvas.width, height: canvas.height });
      page.cleanup();
    }
    return pages;
  } finally {
    await task.destroy();
  }
}
