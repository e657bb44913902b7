import { Fragment, type ReactNode } from 'react';

/** A template's `{name}` slots filled with elements (amounts and file names keep their own direction inside Hebrew). */
export function fillNodes(template: string, vars: Record<string, ReactNode>): ReactNode {
  return template.split(/(\{\w+\})/).map((part, i) => {
    const key = /^\{(\w+)\}$/.exec(part)?.[1];
    return <Fragment key={i}>{key && key in vars ? vars[key] : part}</Fragment>;
  });
}
