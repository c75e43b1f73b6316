/** A policy file uploaded with PUT /policies: a bad one is the 400 the client sees, naming the field and line. */
import { parsePolicy, PolicyError, type PolicyModel } from '../domain/policy.ts';
import { badRequest } from '../http/errors.ts';

/** Decodes and validates an uploaded policy; answers its text and model, or throws the 400. */
export function requireValidPolicy(bytes: Uint8Array): { text: string; model: PolicyModel } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('Invalid policy: line 1: not UTF-8 text', { policy_file: 'line 1: not UTF-8 text' });
  }
  try {
    return { text, model: parsePolicy(text) };
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    throw badRequest(`Invalid policy: ${error.message}`, {
      policy_file: `line ${error.line}: ${error.problem}`,
      [error.field]: `line ${error.line}: ${error.problem}`,
    });
  }
}
