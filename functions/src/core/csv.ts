/** CSV files the service writes (statement reports): RFC 4180, CRLF line ends. */

/** One field: quoted when it holds a quote, a comma or a line break. */
export const csvField = (v: string | number): string => {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The rows as a file (a line end after the last row too); `bom` first makes spreadsheets read UTF-8 (Hebrew) right. */
export const csvBytes = (rows: readonly (readonly (string | number)[])[], opts: { bom?: boolean } = {}): Buffer =>
  Buffer.from((opts.bom ? '\uFEFF' : '') + rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n', 'utf8');
