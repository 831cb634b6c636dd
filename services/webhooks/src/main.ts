/** The webhook service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { webhookService } from './server.js';

await runTixService(webhookService());
