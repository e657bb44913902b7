/** A field the AI found on a signup document: shared by signupDocs.ts, signupDocx.ts and signupPdf.ts. */

export const FIELD_KINDS = ['text', 'date', 'signature', 'stamp', 'checkbox'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface SignupField {
  label: string;
  value: string;
  kind: FieldKind;
  /** 0-based page (always 0 in a DOCX). */
  page: number;
  /** [ymin, xmin, ymax, xmax] on a 0–1000 scale ([0,0,0,0] in a DOCX: placed by label). */
  box: number[];
}

export const isTicked = (value: string) => /^(true|yes|y|x|v|1|on|checked|✓|✔|☒|כן|נכון)$/i.test(value.trim());
