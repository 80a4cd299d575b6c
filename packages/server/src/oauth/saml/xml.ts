import { inflateRawSync } from 'node:zlib';
import { DOMParser, type Document as XmlDocument, type Element as XmlElement } from '@xmldom/xmldom';

export type { XmlDocument };

/** A document type declaration: the door to entity expansion and external entities, never accepted. */
export const hasDtd = (text: string) => /<!DOCTYPE|<!ENTITY/i.test(text);

/**
 * The largest inflated SAML message read. Real ones are a few kilobytes; deflate packs a thousand to one, so the
 * 48 KiB a SAMLRequest may carry would otherwise inflate to 50 MB of text to scan and parse.
 */
export const MAX_INFLATED_SAML_BYTES = 1024 * 1024;

/**
 * A SAML protocol message from its wire form: base64, raw-deflated for the redirect binding. The POST binding
 * carries plain XML, though some senders deflate it there too (`deflated: 'auto'` accepts both). Throws when the
 * message inflates beyond MAX_INFLATED_SAML_BYTES.
 */
export function decodeSamlMessage(encoded: string, deflated: boolean | 'auto'): string {
  const bytes = Buffer.from(encoded, 'base64');
  const plain = deflated === false || (deflated === 'auto' && bytes.toString('utf8').trimStart().startsWith('<'));
  return (plain ? bytes : inflateRawSync(bytes, { maxOutputLength: MAX_INFLATED_SAML_BYTES })).toString('utf8');
}

/** Parses XML without printing parser complaints; a document that is not XML has no elements to find. */
export const readXml = (text: string): XmlDocument => new DOMParser({ onError: () => undefined }).parseFromString(text, 'text/xml');

/** The first element of that local name (namespace prefixes vary between senders). */
export const firstElement = (doc: XmlDocument, localName: string): XmlElement | undefined => doc.getElementsByTagNameNS('*', localName)[0] ?? undefined;

export const attributeOf = (doc: XmlDocument, element: string, name: string): string | undefined => firstElement(doc, element)?.getAttribute(name) ?? undefined;

export const textOf = (doc: XmlDocument, element: string): string | undefined => firstElement(doc, element)?.textContent?.trim() ?? undefined;
