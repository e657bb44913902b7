/**
 * Reads the MCP list's output notation (functions/src/surfaces/mcp/toolSchemas.ts notationOf) back into the
 * JSON Schema it was written from, so tests check fields and pointers as schemas. A notation that does not
 * parse throws, naming where.
 */
type Schema = Record<string, any>;

export function expandOutput(s: Schema | undefined): Schema | undefined {
  if (!s || typeof s.description !== 'string' || !/^[({]/.test(s.description)) return s;
  const parsed = parseNotation(s.description);
  return { type: 'object', ...parsed };
}

export function parseNotation(text: string): Schema {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`notation: ${what} at ${i}: …${text.slice(Math.max(0, i - 30), i)}⟨here⟩${text.slice(i, i + 30)}…`);
  };
  const eat = (s: string) => {
    if (!text.startsWith(s, i)) fail(`expected "${s}"`);
    i += s.length;
  };
  function value(): Schema {
    const out: Schema = {};
    if (text[i] === '(') {
      const end = text.indexOf(')', i);
      if (end < 0) fail('unclosed (');
      out.description = text.slice(i + 1, end);
      i = end + 1;
    }
    const c = text[i];
    if (c === '{' && text[i + 1] === '*') {
      i += 2;
      const inner = value();
      eat('}');
      return { ...out, type: 'object', ...(Object.keys(inner).length ? { additionalProperties: inner } : {}) };
    }
    if (c === '{') {
      i++;
      const properties: Schema = {};
      while (text[i] !== '}') {
        const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i));
        if (!m) fail('expected a field name');
        i += m![0].length;
        properties[m![0]] = value();
        if (text[i] === ',') eat(', ');
        else if (text[i] !== '}') fail('expected , or }');
      }
      eat('}');
      return { ...out, properties };
    }
    if (text.startsWith('[]', i)) {
      i += 2;
      const items = value();
      return { ...out, items };
    }
    if (c === '=') {
      i++;
      const m = /^("(?:[^"\\]|\\.)*"|true|false|null|-?\d+(?:\.\d+)?)/.exec(text.slice(i));
      if (!m) fail('expected a constant');
      i += m![0].length;
      return { ...out, const: JSON.parse(m![0]) };
    }
    if (c === '<') {
      i++;
      const anyOf: Schema[] = [value()];
      while (text[i] === '|') {
        i++;
        anyOf.push(value());
      }
      eat('>');
      return { ...out, anyOf };
    }
    if (text.startsWith('null', i) && !/[\w$]/.test(text[i + 4] ?? '')) {
      i += 4;
      return { ...out, type: 'null' };
    }
    return out;
  }
  const root = value();
  if (i !== text.length) fail('trailing text');
  return root;
}
