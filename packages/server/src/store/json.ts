/** JSON columns: written as text, read back to values. */
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
export const fromJson = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));
