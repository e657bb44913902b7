/** Minimal safe HTML building: interpolations are escaped unless they are already `Html`. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | false | Part[];

export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const render = (p: Part): string =>
  p instanceof Html ? p.text : Array.isArray(p) ? p.map(render).join('') : p === null || p === undefined || p === false ? '' : esc(String(p));

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0];
  for (let i = 0; i < parts.length; i++) out += render(parts[i]) + strings[i + 1];
  return new Html(out);
}

/** Trusted markup, e.g. a constant. */
export const raw = (s: string) => new Html(s);
