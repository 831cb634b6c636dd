/** @tix/threading: inbound mail as pure functions (docs/mail.md). */
export { parseInbound, isRefusal, oneLine } from './parse.js';
export type { ParsedInbound, Address, Attachment, AuthResult } from './parse.js';
export { DEFAULT_LIMITS, checkLimits } from './limits.js';
export type { ParseLimits, Refusal } from './limits.js';
export { visibleReply } from './quotes.js';
export { cidOf, replyHtml, visibleHtml } from './html.js';
export type { ReplyHtmlOptions } from './html.js';
export { attachmentImageSrc } from '@tix/sanitize-html';
export { machineKind, mayAutoReply } from './machine.js';
export type { MachineKind } from './machine.js';
export {
  ticketToken,
  readToken,
  tokenFooter,
  plusAddress,
  parseSubjectTags,
  tagSubject,
  outboundMessageId,
} from './tokens.js';
export type { SubjectTag } from './tokens.js';
export { decideThread, failsDmarc } from './decide.js';
export type { ThreadFacts, TicketFacts, ThreadDecision, IgnoreReason, LinkReason } from './decide.js';
