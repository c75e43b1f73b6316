/** A template uploaded with begin trail or PUT flow template: a bad one is the 400 the client sees. */
import { parseTemplate, TemplateError, type TemplateModel } from '../domain/template.ts';
import { templateBounds } from '../domain/template-bounds.ts';
import { badRequest } from '../http/errors.ts';

/** Decodes and parses an uploaded template; a bad one is the 400 the client sees, naming the line. */
export function requireValidTemplate(bytes: Uint8Array, field = 'template_file'): TemplateModel {
  if (bytes.length > templateBounds.bytes) {
    const problem = `a template may be at most ${templateBounds.bytes} bytes (this one has ${bytes.length})`;
    throw badRequest(`Invalid template: ${problem}`, { [field]: problem });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('Invalid template: line 1: not UTF-8 text', { [field]: 'line 1: not UTF-8 text' });
  }
  try {
    return parseTemplate(text);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw badRequest(`Invalid template: ${error.message}`, { [field]: error.message });
  }
}
