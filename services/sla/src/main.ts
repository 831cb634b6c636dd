/** The SLA service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { slaService } from './server.js';

await runTixService(slaService());
