/** The async handler map of the lookup contract, so each domain can implement its slice of it. */
import type { AsyncHandlers } from '@tix/kit';
import type { lookup } from '@tix/protos';

export type LookupHandlers = AsyncHandlers<lookup.LookupServiceHandlers>;
