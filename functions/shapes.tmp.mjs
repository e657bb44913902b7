const { registry } = await import(process.cwd() + "/src/operations/index.ts");
const { z } = await import("zod").catch(() => import("zod"));
function strip(s){ if (Array.isArray(s)) return s.map(strip); if (s && typeof s==='object'){ const o={}; for (const [k,v] of Object.entries(s)) { if ((k==='description'&&typeof v==='string')||k==='$schema'||k==='additionalProperties'||k==='pattern') continue; o[k]=strip(v);} return o;} return s; }
function short(s){ // compact representation
  if (!s || typeof s!=='object') return String(s);
  if (s.anyOf) return s.anyOf.map(short).join('|');
  if (s.enum) return 'enum(' + s.enum.join(',') + ')';
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type==='object' && s.properties) return '{' + Object.entries(s.properties).map(([k,v])=>k+((s.required||[]).includes(k)?'':'?')+':'+short(v)).join(', ') + '}';
  if (s.type==='array') return short(s.items)+'[]';
  if (Array.isArray(s.type)) return s.type.join('|');
  return s.type || 'any';
}
for (const name of process.argv.slice(2)) { const op = registry.get(name);
  console.log('## '+name+'\nIN  '+short(strip(z.toJSONSchema(op.input,{io:'input',unrepresentable:'any'})))+'\nOUT '+short(strip(z.toJSONSchema(op.output,{io:'output',unrepresentable:'any'}))));
}
process.exit(0)
