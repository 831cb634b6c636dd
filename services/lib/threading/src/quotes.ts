/**
 * The visible reply: the text above the quoted history (docs/mail.md). Cut at the first of
 * - an attribution line `On <date>, <name> wrote:` (Gmail, Apple Mail, Thunderbird; also folded over
 *   two lines, and the German/French/Spanish forms),
 * - Outlook's `-----Original Message-----`, its `From: ... Sent: ...` header block and the
 *   `________________________________` rule,
 * - a forwarded-message marker is NOT a cut (the forwarded text is the content),
 * - a run of `>`-quoted lines that lasts to the end;
 * then the `-- ` signature is dropped.
 */
const ATTRIBUTION = [
  /^\s*On\b.{0,300}\bwrote:\s*$/i,
  /^\s*Am\b.{0,300}\bschrieb\b.{0,200}:\s*$/i,
  /^\s*Le\b.{0,300}\ba écrit\s*:\s*$/i,
  /^\s*El\b.{0,300}\bescribió:\s*$/i,
  /^\s*-{2,}\s*Original Message\s*-{2,}\s*$/i,
  /^\s*-{2,}\s*Ursprüngliche Nachricht\s*-{2,}\s*$/i,
  /^\s*_{20,}\s*$/,
];

function isOutlookHeaderBlock(lines: string[], i: number): boolean {
  if (!/^\s*\*?(From|Von|De):\*?\s/i.test(lines[i] ?? '')) return false;
  const next = lines.slice(i + 1, i + 5).join('\n');
  return /^\s*\*?(Sent|Date|Gesendet|Envoyé):\*?\s/im.test(next);
}

export function visibleReply(text: string): string {
  const lines = (text ?? '').replace(/\r\n?/g, '\n').split('\n');
  let cut = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const twoLines = i + 1 < lines.length ? `${line} ${lines[i + 1]}` : line;
    if (ATTRIBUTION.some((re) => re.test(line)) || isOutlookHeaderBlock(lines, i)) {
      cut = i;
      break;
    }
    if (/^\s*On\b/i.test(line) && !/^\s*>/.test(line) && /^\s*On\b.{0,300}\bwrote:\s*$/i.test(twoLines)) {
      cut = i;
      break;
    }
    if (/^\s*>/.test(line) && lines.slice(i).every((l) => /^\s*>/.test(l) || l.trim() === '')) {
      cut = i;
      break;
    }
  }
  let kept = lines.slice(0, cut);
  const sig = kept.findIndex((l) => l === '-- ' || l === '--');
  if (sig > 0) kept = kept.slice(0, sig);
  return kept.join('\n').trim();
}
