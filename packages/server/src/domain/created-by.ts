/** Who stored a piece of evidence, as the API answers it. */
import type { TokenRef } from '../store/types.ts';

/** `created_by`: the token's description and id, or its id alone; null for evidence stored before it was recorded. */
export const createdByName = (token: TokenRef | null) =>
  token === null ? null : token.description ? `${token.description} (token ${token.tokenId})` : `token ${token.tokenId}`;
