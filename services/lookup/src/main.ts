/** The lookup service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { lookupService } from './server.js';

await runTixService(lookupService());
