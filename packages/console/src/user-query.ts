/**
 * What a search box for users sends as `q`: a user id (`auth0|abc`) finds that user; a plain word searches e-mails,
 * names and nicknames by prefix; anything with a colon is the query syntax as typed.
 */
export function userQuery(text: string): string {
  const trimmed = text.trim();
  if (/^[\w-]+\|\S+$/.test(trimmed)) return `user_id:"${trimmed.replace(/["\\]/g, '\\$&')}"`;
  if (!trimmed || trimmed.includes(':')) return trimmed;
  const word = trimmed.replace(/[\\+\-!(){}[\]^"~*?:/]|&&|\|\|/g, '\\$&');
  return `email:${word}* OR name:${word}* OR nickname:${word}*`;
}
