/**
 * Markup for the console's long, uniform tables (a row per deployment, trail or event), where
 * rendering Preact elements cost most of a page (docs/performance.md, "Console pages"). `html`
 * is a tagged template that escapes every value it is given (`escape-html`: `& < > " '`), so a
 * value is text in an element and in a quoted attribute alike; only `Markup` (what `html` itself
 * wrote) goes in as it is. Whether a value is written raw is a matter of its type, never of the
 * place it is written at (docs/decisions.md).
 */
import escapeHtml from 'escape-html';

/** Text that `html` wrote, its values escaped. */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a template takes: text and numbers (escaped), markup, lists of them; nothing for null, undefined and booleans. */
export type MarkupValue = Markup | string | number | boolean | null | undefined | readonly MarkupValue[];

function write(value: MarkupValue): string {
  if (value instanceof Markup) return value.text;
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  if (!Array.isArray(value)) return escapeHtml(String(value));
  let out = '';
  for (const item of value as readonly MarkupValue[]) out += write(item);
  return out;
}

/** `html\`<td>${name}</td>\`` with `name` escaped. */
export function html(strings: TemplateStringsArray, ...values: MarkupValue[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += write(values[i]!) + strings[i + 1]!;
  return new Markup(out);
}
