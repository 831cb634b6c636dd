/**
 * The name suffix kustomize gives a generated ConfigMap: the first ten hex digits of the SHA-256 of
 * a canonical JSON encoding ({"data":...,"kind":"ConfigMap","name":...}, keys sorted, Go's HTML-safe
 * escaping), with the characters 0 1 3 a e replaced by g h k m t so the suffix never reads as a number
 * or a word. Pinned against kustomize's own test vectors in kustomize.test.ts.
 */
import { createHash } from 'node:crypto';
import { isObject, type Json } from './objects.js';

/** JSON with object keys sorted, escaped like Go's encoding/json (<, >, &, U+2028, U+2029). */
export function canonicalJson(value: Json): string {
  const sorted = (item: Json): Json => {
    if (Array.isArray(item)) return item.map(sorted);
    if (!isObject(item)) return item;
    return Object.fromEntries(
      Object.keys(item)
        .sort()
        .map((key) => [key, sorted(item[key]!)]),
    );
  };
  return JSON.stringify(sorted(value)).replace(
    /[<>&\u2028\u2029]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const SUFFIX_LETTERS: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };

/** The hash suffix of a ConfigMap with this name, data and binaryData. */
export function configMapHash(configMap: { name: string; data?: Json; binaryData?: Json }): string {
  const encoded: Record<string, Json> = {
    kind: 'ConfigMap',
    name: configMap.name,
    data: configMap.data ?? '',
  };
  if (isObject(configMap.binaryData)) encoded.binaryData = configMap.binaryData;
  const hex = createHash('sha256').update(canonicalJson(encoded)).digest('hex');
  return [...hex.slice(0, 10)].map((character) => SUFFIX_LETTERS[character] ?? character).join('');
}
