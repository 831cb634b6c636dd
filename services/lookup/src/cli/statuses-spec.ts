/** The --statuses SPEC of `tix project create`: a comma list of `slug:Label[:closed]`. */

export interface StatusSpecEntry {
  slug: string;
  label: string;
  is_closed: boolean;
}

/** The default SPEC (the spec's default workflow), as README.md ("Admin CLI") documents it. */
export const DEFAULT_STATUSES_SPEC =
  'open:Open,work_in_progress:Work in progress,waiting:Waiting,closed:Closed:closed';

export class StatusesSpecError extends Error {
  override readonly name = 'StatusesSpecError';
}

/**
 * Parses a SPEC into statuses in order, or throws StatusesSpecError naming the bad entry. Checks the
 * shape only; slug and label rules are the service's (so they are stated in one place).
 */
export function parseStatusesSpec(spec: string): StatusSpecEntry[] {
  const entries = spec.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) throw new StatusesSpecError('--statuses is empty');
  return entries.map((entry, index) => {
    const where = `--statuses entry ${index + 1} ("${entry}")`;
    if (entry === '') throw new StatusesSpecError(`${where} is empty (two commas in a row?)`);
    const parts = entry.split(':').map((part) => part.trim());
    if (parts.length < 2 || parts.length > 3) {
      throw new StatusesSpecError(`${where} must be slug:Label or slug:Label:closed`);
    }
    const [slug, label, flag] = parts as [string, string, string | undefined];
    if (slug === '') throw new StatusesSpecError(`${where} has no slug`);
    if (label === '') throw new StatusesSpecError(`${where} has no label`);
    if (flag !== undefined && flag !== 'closed') {
      throw new StatusesSpecError(`${where}: the third part can only be "closed", got "${flag}"`);
    }
    return { slug, label, is_closed: flag === 'closed' };
  });
}
