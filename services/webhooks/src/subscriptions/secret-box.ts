/** Signing secrets at rest: the kit's SecretBox (services/lib/kit/src/secret-box.ts). */
export { createSecretBox, parseSecretKey, type SecretBox } from '@tix/kit';
