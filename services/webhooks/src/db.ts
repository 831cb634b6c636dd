/**
 * What the webhook stores add to the kit's database helpers: named statements for the hot path
 * (fan-out, claim, record an attempt: one statement each, with FOR UPDATE SKIP LOCKED and
 * data-modifying CTEs).
 */
import { namedStatements } from '@tix/kit';

/** `text` as a named statement, parsed and planned once per connection (a fixed set of shapes). */
export const prepared = namedStatements('webhooks');
