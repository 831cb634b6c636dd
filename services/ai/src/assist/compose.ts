/**
 * Turns a reused reply into a suggestion's text: its greeting replaced by the tone's (it greeted
 * someone else), personal data redacted, and the HTML form (escaped paragraphs, no markup from the
 * source). Tones: neutral, friendly, formal.
 */
import { DEFAULT_SUGGESTION_TONE, SUGGESTION_TONES, type SuggestionTone as Tone } from '@tix/protos';
import { redact } from './redact.js';

export type { Tone };

const GREETINGS: Record<Tone, string> = {
  neutral: 'Hello,',
  friendly: 'Hi there,',
  formal: 'Dear customer,',
};

/** A first line that only greets someone ("Hi Anna,", "Hello there!", "Dear Mr Smith,"). */
const GREETING_LINE = /^\s*(hi|hello|hey|dear|good (morning|afternoon|evening)|greetings)\b[^\n]{0,60}$/i;

export function toneOf(value: string): Tone {
  return (SUGGESTION_TONES as readonly string[]).includes(value) ? (value as Tone) : DEFAULT_SUGGESTION_TONE;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string);
}

/** Paragraphs (blank-line separated) as <p>, single line breaks as <br>. */
export function toHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

export interface ComposedReply {
  content: string;
  contentHtml: string;
  redactions: number;
}

/** The suggestion text made from `reply` in `tone`. */
export function composeReply(reply: string, tone: Tone): ComposedReply {
  const lines = reply.replace(/\r\n/g, '\n').trim().split('\n');
  const body = (GREETING_LINE.test(lines[0] ?? '') ? lines.slice(1) : lines).join('\n').trim();
  const { text, redactions } = redact(body);
  const content = `${GREETINGS[tone]}\n\n${text}`;
  return { content, contentHtml: toHtml(content), redactions };
}
